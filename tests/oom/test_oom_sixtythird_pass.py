"""Sixty-third pass of the OOM doctor (issue 28): wordings that fell through to "not found", and host RAM read as the
device's. Every positive text is a real message quoted from the public thread in its comment (some are in the held-out
fresh sets, scored before this pass: fresh-95, fresh-74, fresh-68, fresh-62, fresh-54); the negatives are the same
shapes with the fact that decides turned the other way."""

from __future__ import annotations

from gpudesk.oom import diagnose_text, parse_text
from gpudesk.oom.signatures import engine_placed_rest_on_host

GiB = 1024**3
MiB = 1024**2


def _first(text: str):
    diagnosis = diagnose_text(text)
    assert diagnosis.found_oom, text
    return diagnosis.causes[0]


# --- OpenCL's CL_INVALID_BUFFER_SIZE: one object over CL_DEVICE_MAX_MEM_ALLOC_SIZE ------------------------------------

def test_opencl_invalid_buffer_size_with_its_size_is_one_allocation_over_the_device():
    # xmrig/xmrig#2263 (fresh-95): a 2986344448-byte DAG buffer on a 1 GB card.
    text = "CL_INVALID_BUFFER_SIZE when calling clCreateBuffer with buffer size 2986344448"
    report = parse_text(text)
    assert report.kind == "generic_oom" and report.requested_bytes == 2986344448
    cause = _first(text)
    assert cause.id == "single_allocation_exceeds_capacity"
    assert cause.evidence["requested_bytes"] == 2986344448
    assert any("CL_DEVICE_MAX_MEM_ALLOC_SIZE" in s for s in (cause.explanation,))
    assert any("clinfo" in c for c in cause.checks)


def test_opencl_invalid_buffer_size_retyped_and_cut_is_still_recognised():
    # fireice-uk/xmr-stak-amd#134 (fresh-95): the issue title with the reporter's "BUFFFER" and cut by GitHub.
    text = "Error CL_INVALID_BUFFFER_SIZE when calling clCreateBuffer to create hash scratchpads buffe"
    cause = _first(text)
    assert cause.id == "single_allocation_exceeds_capacity" and cause.evidence.get("requested_bytes") is None


def test_opencl_invalid_buffer_size_below_a_stated_global_memory_is_not_read_as_over_the_device():
    # Negative: the request fits the device's stated total, so only the per-object cap refused it; this rule stays out.
    text = ("CL_INVALID_BUFFER_SIZE when calling clCreateBuffer with buffer size 2986344448\n"
            "GPU has 8 GiB total capacity")
    diagnosis = diagnose_text(text)
    assert not any(c.evidence.get("error_kind") == "CL_INVALID_BUFFER_SIZE" for c in diagnosis.causes)


def test_other_opencl_statuses_are_not_read_as_the_buffer_size_refusal():
    # Negative: CL_INVALID_BUFFER (-38, a bad cl_mem handle) is not CL_INVALID_BUFFER_SIZE (-61).
    assert parse_text("clSetKernelArg failed: CL_INVALID_BUFFER").kind == "unknown"


# --- a program's own "<buffer> allocation failed" with no device named: the host's RAM ---------------------------------

def test_bare_buffer_allocation_failed_with_no_device_named_is_host_ram():
    # JayDDee/cpuminer-opt#21 (fresh-95): malloc of a scrypt scratchpad per miner thread returned NULL.
    cause = _first("Scrypt buffer allocation failed")
    assert cause.id == "not_capacity" and cause.evidence["deciding_check"] == "host_ram"


def test_buffer_allocation_failed_beside_a_device_is_not_read_as_host_ram():
    # Negative: the same words from a GPU program name its device; the host reading stays out.
    diagnosis = diagnose_text("CUDA: device buffer allocation failed")
    assert diagnosis.found_oom
    assert diagnosis.causes[0].evidence.get("deciding_check") != "host_ram"


# --- memory figures with an error line no reading knows: read for the figures, never "not found" ----------------------

def test_setup_reading_with_little_free_is_another_holder():
    # wilicc/gpu-burn#77 (fresh-62): cudaMemGetInfo at set-up, before gpu-burn allocated anything.
    text = ("Initialized device 0 with 3956 MB of memory (117 MB available, using 105 MB of it), using FLOATS\n"
            "Results are 268435456 bytes each, thus performing 68719476734 iterations\n"
            "Couldn't init a GPU test: Low mem for result. aborting.")
    report = parse_text(text)
    assert report.parsed["total_at_start_bytes"] == 3956 * MiB
    assert report.parsed["free_at_start_bytes"] == 117 * MiB
    assert _first(text).id == "other_process"


def test_available_then_total_memory_in_bytes_at_start_is_another_holder():
    # vllm-project/vllm-ascend#5917 (fresh-74): the worker's memory profile with nothing free.
    text = ("(EngineCore_DP0 pid=4146) INFO 01-15 06:47:41 [worker_v1.py:270] Available memory: 0, total memory: "
            "65452113920\n(EngineCore_DP0 pid=4146) ERROR 01-15 06:47:41 [core.py:843] EngineCore failed to start.")
    report = parse_text(text)
    assert report.parsed["free_at_start_bytes"] == 0
    assert report.parsed["total_at_start_bytes"] == 65452113920
    assert _first(text).id == "other_process"


def test_a_setup_reading_with_most_memory_free_is_not_another_holder():
    # Negative: the same set-up line with the card nearly free.
    text = ("Initialized device 0 with 3956 MB of memory (3800 MB available, using 3700 MB of it), using FLOATS\n"
            "Couldn't init a GPU test: Low mem for result. aborting.")
    assert _first(text).id != "other_process"


def test_memory_figures_of_a_healthy_run_stay_not_found():
    # Negative: the same set-up line with no failure beside it is a report of nothing wrong.
    assert not diagnose_text("Initialized device 0 with 3956 MB of memory (117 MB available, using 105 MB of it), "
                             "using FLOATS").found_oom


def test_text_without_any_memory_figure_is_still_not_found():
    # Negative: radiasoft/devops#224's words (fresh-18) carry no figure; nothing is invented.
    text = ("gpu-jupyter kernel restarts for no apparent reason\nI have a notebook that works fine on the Sirepo "
            "Jupyter server.")
    assert not diagnose_text(text).found_oom


def test_a_figure_that_is_not_memory_is_not_read_as_one():
    # Negative: a size of a file is not a reading of memory.
    assert not diagnose_text("Downloaded 4.2 GB of checkpoints in 3 minutes").found_oom


# --- Ollama's offload line: the GPU's share fits, the rest of the model is the host's ---------------------------------

_OFFLOAD = ('msg=offload library=cuda layers.requested=-1 layers.model=49 layers.offload={offload} layers.split="" '
            'memory.available="[11.4 GiB]"\n memory.gpu_overhead="0 B" memory.required.full="68.3 GiB" '
            'memory.required.partial="{partial}" memory.required.kv="2.2 GiB"\n memory.weights.total="60.6 GiB"')


def test_partial_offload_that_fits_the_gpu_leaves_the_rest_to_host_ram():
    # ollama/ollama#10739 (fresh-68): 4 of 49 layers on an 11.4 GiB GPU, about 56 GiB of weights left to the host.
    text = _OFFLOAD.format(offload=4, partial="10.9 GiB")
    assert engine_placed_rest_on_host(text)
    cause = _first(text)
    assert cause.id == "not_capacity" and cause.evidence["deciding_check"] == "host_ram"


def test_full_offload_or_a_share_above_the_free_memory_is_not_the_host():
    # Negatives: every layer on the GPU, or a GPU share above what it had free.
    assert not engine_placed_rest_on_host(_OFFLOAD.format(offload=49, partial="10.9 GiB"))
    assert not engine_placed_rest_on_host(_OFFLOAD.format(offload=4, partial="12.5 GiB"))


def test_partial_offload_with_a_device_failure_is_left_to_the_device():
    # Negative (shape of ollama/ollama#6139): the runner then failed on the GPU, "error: out of memory".
    text = _OFFLOAD.format(offload=4, partial="10.9 GiB") + "\nCUDA error: out of memory"
    assert _first(text).evidence.get("deciding_check") != "host_ram"


# --- memory kept between runs of one process: the residue after each release rising ----------------------------------

_SLEEP = ("Nightly test grpo-qwen3.5-35ba3b-2n8g-megatron-ep16 failing after the vllm bump PR (#2384)\n\n"
          "- After initial sleep: `Sleep mode freed 43.82 GiB, 4.11 GiB memory is still in use`\n"
          "- After Step 1: `{one} GiB memory is still in use`\n"
          "- After Step 2: around `{two} GiB memory is still in use`")


def test_residue_after_each_release_rising_is_a_leak():
    # NVIDIA-NeMo/RL#2619 (fresh-54): vLLM's sleep mode leaving more behind after each step.
    text = _SLEEP.format(one="11.57", two="25.0")
    cause = _first(text)
    assert cause.id == "leak"
    assert cause.evidence["still_in_use_first_bytes"] == round(4.11 * GiB)
    assert cause.evidence["still_in_use_last_bytes"] == 25 * GiB


def test_flat_residue_after_each_release_is_not_a_leak():
    # Negative: the same readings staying flat are the job's need.
    text = _SLEEP.format(one="4.11", two="4.12")
    assert all(c.id != "leak" for c in diagnose_text(text).causes)


# --- the operating system ending an app for its memory (iOS jetsam, in Xcode's words) --------------------------------

def test_app_killed_by_the_os_for_too_much_memory_is_host_ram():
    # mlc-ai/mlc-llm#2028 (fresh-73): Xcode's alert when jetsam ended the app.
    text = 'The app “MLCChat” has been killed by the operating system because it is using too much memory.'
    cause = _first(text)
    assert cause.id == "not_capacity" and cause.evidence["deciding_check"] == "host_ram"


def test_too_much_memory_beside_a_device_failure_is_left_to_the_device():
    # Negative: the same words beside CUDA's own out-of-memory are about the device.
    text = "The app was killed by the operating system because it is using too much memory: CUDA out of memory"
    assert _first(text).evidence.get("deciding_check") != "host_ram"
