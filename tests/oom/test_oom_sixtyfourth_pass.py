"""Sixty-fourth pass of the OOM doctor (issue 28): start-up failures worded as out of memory (ROCm's /dev/kfd and HSA
runtime, NVENC's encode session) and the LLVM compiler's host out-of-memory, read as device shortages before. Every
positive text is a real message quoted from the public thread in its comment (in the held-out set fresh-97, scored
before this pass); the negatives are the same words with an allocation figure of the program's, or without the
start-up call."""

from __future__ import annotations

from gpudesk.oom import diagnose_text
from gpudesk.oom.signatures import classify
from gpudesk.oom.start_refusal_words import nvenc_session_refused, rocm_runtime_start


def _first(text: str):
    diagnosis = diagnose_text(text)
    assert diagnosis.found_oom, text
    return diagnosis.causes[0]


# --- ROCm: the kernel driver (/dev/kfd) or the HSA runtime refusing to start -----------------------------------------

ROCM_KFD = ("amdgpu:~/amd$ sudo /opt/rocm-4.5.2/bin/rocminfo\nROCk module is loaded\n"
            "Unable to open /dev/kfd read-write: Cannot allocate memory\njbberry is member of render group")
ROCM_HSA_INIT = ("[reapertwo@arch ~]$ /opt/rocm/bin/rocminfo\nROCk module is loaded\n"
                 "hsa api call failure at: /build/rocminfo/src/rocminfo-rocm-5.3.0/rocminfo.cc:1148\n"
                 "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary "
                 "resources. This error may also occur when the core runtime library needs to spawn threads or create "
                 "internal OS-specific events.")
ROCM_LAUNCH = ("[Issue] gfx1012 (RX 5500, RDNA1): every kernel launch fails with HSA_STATUS_ERROR_OUT_OF_RESOURCES "
               "freezing the executable, reproduces with plain hipcc")


def test_kfd_open_refused_is_the_driver_not_the_gpu_memory():
    # ROCm/legacy-rocm-build#1663 (fresh-97): rocminfo cannot open the kernel driver.
    cause = _first(ROCM_KFD)
    assert cause.id == "not_capacity" and cause.evidence["deciding_check"] == "driver_version"
    assert "dmesg" in cause.evidence["check_command"] and "rocminfo" in cause.evidence["check_command"]


def test_hsa_out_of_resources_at_start_up_is_the_runtime():
    # rocm-arch/rocm-arch#901 (fresh-97): rocminfo's agent enumeration; ROCm/TheRock#7472: every launch on gfx1012.
    for text in (ROCM_HSA_INIT, ROCM_LAUNCH):
        cause = _first(text)
        assert cause.id == "not_capacity" and cause.evidence["not_capacity_kind"] == "rocm_start", text
        assert cause.evidence["deciding_check"] == "driver_version"


def test_hsa_out_of_resources_beside_an_allocation_figure_is_left_to_the_capacity_readings():
    text = ("hipMalloc failed to allocate 8.00 GiB: HSA_STATUS_ERROR_OUT_OF_RESOURCES")
    assert not rocm_runtime_start(text)
    assert classify(text) != "rocm_start"
    assert not rocm_runtime_start("Unable to open /dev/kfd read-write: Permission denied")


# --- NVENC: the encode session refused with status 10 (NV_ENC_ERR_OUT_OF_MEMORY) -------------------------------------

NVENC_FFMPEG = ("[h264_nvenc @ 0x5601aa5b40c0] OpenEncodeSessionEx failed: out of memory (10)\n"
                "[h264_nvenc @ 0x5601aa5b40c0] No NVENC capable devices found")
NVENC_VPF = ("RuntimeError: NvEncoder : m_nvenc.nvEncOpenEncodeSessionEx(&encodeSessionExParams, &hEncoder) returned "
             "error 10\nDescription: EncodeAPI Internal Error.\n at /tmp/pip-req-build-u1jnj07w/src/TC/src/"
             "NvEncoder.cpp:82")
NVENC_BARE = "NvEncoder : m_nvenc.nvEncOpenEncodeSessionEx(&encodeSessionExParams, &hEncoder) returned error 10"


def test_nvenc_session_out_of_memory_is_a_session_limit_not_vram():
    # valkjsaaa/auto-bilibili-recorder#9 (FFmpeg's words), NVIDIA/VideoProcessingFramework#501 and
    # NVIDIA/open-gpu-kernel-modules#415 (the SDK sample's words; unrecognised before this pass).
    for text in (NVENC_FFMPEG, NVENC_VPF, NVENC_BARE):
        cause = _first(text)
        assert cause.id == "not_capacity" and cause.evidence["not_capacity_kind"] == "nvenc_session", text
        assert cause.evidence["deciding_check"] == "free_exceeds_request"
        assert "encoder" in cause.evidence["check_command"]


def test_other_nvenc_statuses_and_other_calls_are_not_the_session_refusal():
    assert not nvenc_session_refused("nvEncOpenEncodeSessionEx(&params, &hEncoder) returned error 15")
    assert not nvenc_session_refused("nvEncInitializeEncoder returned error 10")
    assert not nvenc_session_refused("OpenEncodeSessionEx failed: out of memory (10) while allocating 512 MiB")


# --- LLVM's own bad-alloc handler: the compiler's host memory -------------------------------------------------------

def test_llvm_out_of_memory_is_host_ram():
    # hashcat/hashcat#2338 (fresh-97): the OpenCL kernel compiler on Windows.
    cause = _first("LLVM ERROR: out of memory")
    assert cause.id == "not_capacity" and cause.evidence["deciding_check"] == "host_ram"


def test_a_device_out_of_memory_without_the_start_up_words_keeps_its_reading():
    for text in ("RuntimeError: CUDA error: out of memory", "HIP out of memory. Tried to allocate 2.00 GiB",
                 "LLVM ERROR: Cannot select: intrinsic"):
        assert classify(text) not in ("rocm_start", "nvenc_session", "host_ram"), text


# --- Direct3D 12: a failed status check on the call that allocates a committed resource -----------------------------

def test_failed_check_on_create_committed_resource_is_a_device_allocation():
    # microsoft/DirectML#281 (fresh-97; not recognised before this pass).
    text = ("CHECK failed: ((((HRESULT)((d3d_device->CreateCommittedResource( &properties, D3D12_HEAP_FLAG_NONE, "
            "&resource_buffer, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, nullptr, __uuidof(*out), "
            "reinterpret_cast<void**>(out))))) >= 0)) == (true)")
    assert _first(text).id == "genuine_shortage"


def test_create_committed_resource_named_without_a_failure_is_not_an_oom():
    text = "d3d_device->CreateCommittedResource(&properties, D3D12_HEAP_FLAG_NONE, &desc) returned S_OK"
    assert not diagnose_text(text).found_oom
