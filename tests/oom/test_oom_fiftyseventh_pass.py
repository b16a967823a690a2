"""Fifty-seventh pass (issue 28): messages the doctor did not recognise at all, read in their runtime's own words.

* Habana SynapseAI's graph helper, "MODULE:SYNHELPER workspace Allocation of size ::N failed!": the request N;
* CubeCL's memory manager, "No memory pool big enough to reserve N bytes.": a per-allocation limit of the runtime's
  pool configuration (``not_capacity`` / buffer_limit), the request N;
* a status compared with success by number, 2 being the allocation failure: Caffe's / Caffe2's "error == cudaSuccess
  (2 vs. 0)" (cudaErrorMemoryAllocation), "== CUFFT_SUCCESS (2 vs. 0)" (CUFFT_ALLOC_FAILED); nnabla's "memory error in
  alloc" (its Memory::alloc failing);
* posix_memalign returning 12 (ENOMEM), PaddlePaddle's CPU allocator: host RAM, the request from "Alloc N error!";
* a program's own cudaHostRegister wrapper, "CUDA Error while trying to pin memory": pinned host memory;
* bash's job report in a translated locale ("riga 24:  8612 Killed"): the process was killed (SIGKILL);
* a launcher's child "terminated with code -9" (Popen.returncode -9: SIGKILL);
* a server's memory guard "would require ~X ... but ceiling is Y", the ceiling unnamed: its own ceiling.

Every positive text is a real message quoted from the public thread named in its comment; the negatives must stay
"not found" or keep their reading."""

from __future__ import annotations

from gpudesk.oom import diagnose_text
from gpudesk.oom.parsers.detect import parse_text
from gpudesk.oom.parsers.generic import RUNTIME_ALLOC_STATUS

# HabanaAI/Model-References#10 (AWS DL1, loss.backward()).
SYNHELPER = ("  File \"/usr/local/lib/python3.8/dist-packages/torch/autograd/__init__.py\", line 154, in backward\n"
             "    Variable._execution_engine.run_backward(\n"
             "RuntimeError: FATAL ERROR :: MODULE:SYNHELPER workspace Allocation of size ::14493510400 failed!")
# tracel-ai/cubecl#90 (Burn's wgpu backend under WSL).
CUBECL = ("thread 'main' panicked at /home/u/.cargo/registry/src/index.crates.io-6f17d22bba15001f/cubecl-runtime-0.2.0/"
          "src/memory_management/dynamic.rs:156:9:\nNo memory pool big enough to reserve 262144000 bytes.\nnote: run "
          "with `RUST_BACKTRACE=1` environment variable to display a backtrace")
# facebookarchive/caffe2#1936 (the thread's title).
CAFFE2 = "Dectectron error == cudaSuccess. 2 vs 0. Error at: /root/caffe2/caffe2/core/context_gpu.cu:343"
# gy20073/compact_bilinear_pooling#21.
CUFFT = ("Check failed: (cufftPlanMany(&plan_noinv_1 , 1, &n, __null, 0, 0, __null, 0, 0, CUFFT_R2C, hw)) == "
         "CUFFT_SUCCESS (2 vs. 0) ...")
# sony/NDJIR#5 (nnabla's CUDA extension).
NNABLA = "RuntimeError: memory error in alloc"
# PaddlePaddle/Paddle#17050 (BERT on the CPU, Fluid 1.3).
PADDLE_CPU = ("paddle.fluid.core.EnforceNotMet: Enforce failed. Expected posix_memalign(&p, alignment, size) == 0, but "
              "received posix_memalign(&p, alignment, size):12 != 0:0.\nAlloc 524288000 error! at "
              "[/paddle/paddle/fluid/memory/detail/system_allocator.cc:51]\nPaddlePaddle Call Stacks:\n"
              "1       0x7fdd810c6ebap paddle::memory::detail::AlignedMalloc(unsigned long) + 314\n"
              "2       0x7fdd810c7177p paddle::memory::detail::CPUAllocator::Alloc(unsigned long*, unsigned long) + 39")
# Nerogar/OneTrainer#820 (the title).
PIN = "RuntimeError: CUDA Error while trying to pin memory"
# invoke-ai/InvokeAI#2308 (Italian locale).
ITALIAN_KILLED = (">> Loading inpainting-1.5 from /home/user/models/sd-v1-5-inpainting.ckpt\n"
                  "   | DiffusionWrapper has 859.54 M params.\n"
                  "./invokeai/invoke.sh: riga 24:  8612 Killed                  .venv/bin/python .venv/bin/invoke.py "
                  "--web $*")
# jundot/omlx#1794 (the guard's sentence wrapped by the client).
GUARD = ("Error: 400 oMLX prefill memory\n  guard rejected this prompt: Prefill  would require ~62.21 GB peak  (current "
         "54.71 GB + KV+SDPA 7.51 GB)\n  but ceiling is 60.00 GB (usage 54.7  GB, ceiling 60.0 GB). Reduce  context "
         "length, free system memory,\n  or loosen memory_guard_tier (safe →  balanced → aggressive).")


def _top(text: str) -> tuple[str, object, float]:
    d = diagnose_text(text)
    assert d.found_oom and d.top is not None
    return d.top.id, d.top.evidence.get("deciding_check"), d.top.confidence


def test_synapse_workspace_request_is_read() -> None:
    assert parse_text(SYNHELPER).requested_bytes == 14493510400
    cause, _check, confidence = _top(SYNHELPER)
    assert cause == "genuine_shortage" and confidence < 0.8  # no capacity in the text: an honest, middling reading


def test_cubecl_pool_is_a_per_allocation_limit() -> None:
    assert parse_text(CUBECL).requested_bytes == 262144000
    assert _top(CUBECL)[:2] == ("not_capacity", "buffer_limit")
    assert _top(CUBECL.replace("reserve", "alloc"))[:2] == ("not_capacity", "buffer_limit")


def test_status_two_against_success_is_an_allocation_failure() -> None:
    for text in (CAFFE2, CUFFT, NNABLA, "Check failed: error == cudaSuccess (2 vs. 0)  out of memory"):
        assert RUNTIME_ALLOC_STATUS.search(text), text
    for text in (CAFFE2, CUFFT, NNABLA):
        cause, _check, confidence = _top(text)
        assert cause == "genuine_shortage" and confidence <= 0.5  # figureless


def test_other_statuses_are_not_read() -> None:
    for text in ("Check failed: error == cudaSuccess (1 vs. 0)  invalid argument",
                 "Check failed: error == cudaSuccess (77 vs. 0)  an illegal memory access was encountered",
                 "Check failed: (cufftExecR2C(plan, in, out)) == CUFFT_SUCCESS (5 vs. 0)",
                 "Check failed: error == cudaSuccess (2 vs. 1)",
                 "value error in alloc", "memory error in allocate_buffer"):
        assert RUNTIME_ALLOC_STATUS.search(text) is None, text
    assert not diagnose_text("value error in alloc").found_oom


def test_posix_memalign_enomem_is_host_ram() -> None:
    assert parse_text(PADDLE_CPU).requested_bytes == 524288000
    assert _top(PADDLE_CPU)[:2] == ("not_capacity", "host_ram")


def test_posix_memalign_einval_is_not_host_ram() -> None:
    text = ("Expected posix_memalign(&p, alignment, size) == 0, but received posix_memalign(&p, alignment, "
            "size):22 != 0:0.")
    d = diagnose_text(text)
    assert not d.found_oom or (d.top is not None and d.top.evidence.get("deciding_check") != "host_ram")


def test_pin_wrapper_is_pinned_memory() -> None:
    assert _top(PIN)[:2] == ("not_capacity", "pin_memory")


def test_translated_bash_killed_line() -> None:
    cause, check, _confidence = _top(ITALIAN_KILLED)
    assert (cause, check) == ("not_capacity", "host_ram")
    # The English form keeps its reading, and "Killed" in prose after another word is not read.
    assert _top(ITALIAN_KILLED.replace("riga", "line"))[:2] == ("not_capacity", "host_ram")
    assert not diagnose_text("the tutorial line 24: 8612 people Killed it").found_oom


def test_wrapped_guard_is_the_programs_ceiling() -> None:
    report = parse_text(GUARD)
    assert report.parsed.get("configured_limit_bytes") == 60 * 2**30
    assert _top(GUARD)[0] == "per_process_cap"
    # A need against what is free is no configured ceiling.
    assert "configured_limit_bytes" not in parse_text("Prefill would require ~62.21 GB but only 40 GB is free").parsed


# tier4/autoware-ml#78 (Lightning's child-process observer; the "..." is the PR author's).
CHILD_KILLED = "[rank: 1] Child process ... terminated with code -9"


def test_child_terminated_by_signal_nine() -> None:
    assert _top(CHILD_KILLED)[:2] == ("not_capacity", "host_ram")
    assert _top("Child process with PID 4242 terminated with code -9. Forcefully terminating all other processes to "
                "avoid zombies")[:2] == ("not_capacity", "host_ram")
    # Another code is no SIGKILL (-15 is SIGTERM, 1 an ordinary failure, -95 not -9).
    for code in ("1", "-15", "-95"):
        assert not diagnose_text(f"[rank: 1] Child process with PID 4242 terminated with code {code}.").found_oom


# --- qa50 D6-D10 ---------------------------------------------------------------------------------------------------


def test_gaudi_message_gets_gaudi_terms() -> None:
    # The SYNHELPER line names Habana's graph helper: the platform is Gaudi's, and no NVIDIA command is given.
    report = parse_text(SYNHELPER)
    assert report.platform == "hpu"
    d = diagnose_text(SYNHELPER)
    for cause in d.causes:
        words = " ".join([cause.fix, *cause.more_fixes, *cause.checks, str(cause.evidence.get("check_command") or "")])
        assert "nvidia-smi" not in words and "CUDA_VISIBLE_DEVICES" not in words and "torch.cuda" not in words
    # Gaudi's own commands where a rule names a tool (stack_terms' swap).
    from gpudesk.oom import stack_terms
    from gpudesk.oom.cause import Cause
    cause = Cause(id="other_process", title="t", confidence=0.5, fix="Run nvidia-smi; pick CUDA_VISIBLE_DEVICES",
                  checks=["nvidia-smi --query-compute-apps=pid,used_memory --format=csv: x",
                          "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: y", "torch.cuda.memory_allocated(): z"])
    stack_terms.apply(report, [cause])
    assert cause.fix == "Run hl-smi; pick HABANA_VISIBLE_MODULES"
    assert cause.checks == ["hl-smi: x", "torch.hpu.memory_allocated(): z"]
    # A CUDA text keeps NVIDIA's; "hpu" inside a word is no Gaudi.
    assert parse_text("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB").platform == "cuda"
    assert parse_text("chpux: CUDA error: out of memory").platform == "cuda"


def test_cut_figure_is_not_a_request() -> None:
    cut = SYNHELPER.replace("::14493510400 failed!", "::1449351")
    report = parse_text(cut)
    assert report.requested_bytes is None and report.missing
    d = diagnose_text(cut)
    assert d.found_oom and d.top is not None and d.top.confidence < 0.5
    # A figure closed by a unit or words is read, also at the end of the text.
    assert parse_text("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB").requested_bytes == 20 * 2**20
    assert parse_text(SYNHELPER).requested_bytes == 14493510400
    assert parse_text(CUBECL.replace(".\nnote: run with `RUST_BACKTRACE=1` environment variable to display a "
                                     "backtrace", "")).requested_bytes == 262144000  # "bytes" closes it


def test_cubecl_fix_is_cubecl_s() -> None:
    d = diagnose_text(CUBECL)
    assert d.top is not None and "GGML_VK" not in d.top.fix and "CubeCL" in d.top.fix
    sized = d.top.confidence
    bare = diagnose_text("No memory pool big enough to reserve")
    assert bare.top is not None and bare.top.confidence < sized
    # llama.cpp's Vulkan text keeps ggml's setting.
    ggml = diagnose_text("ggml_vulkan: Device memory allocation of size 4294967296 failed.\nggml_vulkan: "
                         "vk::Device::allocateMemory: ErrorOutOfDeviceMemory")
    assert ggml.top is not None and "CubeCL" not in ggml.top.fix


def test_paddle_host_ram_names_no_pytorch() -> None:
    d = diagnose_text(PADDLE_CPU)
    assert d.top is not None and "PyTorch" not in d.top.explanation


# glibc's strsignal(SIGKILL) in its catalogs (bash's jobs.c prints it): po/de.po "Getötet", fr.po "Processus arrêté";
# bash's own line prefix "Zeile %d: " / "ligne %d : ".
GERMAN_KILLED = "./run.sh: Zeile 24:  8612 Getötet                python train.py"
FRENCH_KILLED = "./run.sh: ligne 24 :  8612 Processus arrêté        python train.py"


def test_bash_killed_line_in_glibc_catalogs() -> None:
    for text in (GERMAN_KILLED, FRENCH_KILLED, FRENCH_KILLED.replace("ligne 24 :", "ligne 24:"),
                 GERMAN_KILLED.replace("Getötet", "Abgebrochen (Killed)"), FRENCH_KILLED.replace("Processus arrêté", "Tué")):
        assert _top(text)[:2] == ("not_capacity", "host_ram"), text
    # The words in prose, or another signal's description, are not read.
    assert not diagnose_text("die Anleitung Zeile 24: 8612 Menschen Getötet").found_oom
    assert not diagnose_text("./run.sh: Zeile 24:  8612 Abbruch (Speicherabzug geschrieben)  python train.py").found_oom
