"""Thirteenth pass (issue 28): the classes behind the misses of the held-out batch fresh-16, each read as a mechanism:
a figure printed in hexadecimal (a raw byte-count argument) and Metal's per-buffer validation, vLLM's sleep-mode
allocator named with a spaced line number, and vLLM's start-up profiling run (the engine's own dummy batch at its
configured maximum). Every text is a real message quoted from the public thread named in its comment; a variant is
marked as such and keeps the mechanism's own words. Negative cases check that each reading needs its own words."""

from __future__ import annotations

from gpudesk.oom import diagnose_text, parse_text
from gpudesk.oom.user_context import UserContext

# ggml-org/llama.cpp#6861 (a 7B GGUF with a 32k context on an iPhone 15 Pro): Metal's debug layer refuses the
# compute buffer, 0x86004000 = 2248163328 bytes, against the 2048 MB per-buffer limit.
METAL_VALIDATION = ("-[MTLDebugDevice newBufferWithBytesNoCopy:length:options:deallocator:]:700: failed assertion "
                    "`Buffer Validation\nnewBufferWith*:length 0x86004000 must not exceed 2048 MB.")

# vllm-project/vllm#10034 (Llama-3.2-11B-Vision on two 24 GB A10s): the worker's error names the profiling step.
VLLM_PROFILE_WORKER = (
    "INFO 11-05 03:21:41 enc_dec_model_runner.py:297] Starting profile run for multi-modal models.\n"
    "(VllmWorkerProcess pid=67) ERROR 11-05 03:21:52 multiproc_worker_utils.py:233] Exception in worker "
    "VllmWorkerProcess while processing method determine_num_available_blocks: CUDA out of memory. Tried to allocate "
    "1.95 GiB. GPU 1 has a total capacity of 22.09 GiB of which 758.44 MiB is free. Process 2751070 has 21.35 GiB "
    "memory in use. Of the allocated memory 20.90 GiB is allocated by PyTorch, and 85.19 MiB is reserved by PyTorch "
    "but unallocated.")

# vllm-project/vllm#8879 (the same model): the traceback through the V0 worker's profiling run.
VLLM_PROFILE_TRACEBACK = (
    '  File "/lib/python3.9/site-packages/vllm/worker/worker.py", line 229, in determine_num_available_blocks\n'
    "    self.model_runner.profile_run()\n"
    '  File "/lib/python3.9/site-packages/vllm/worker/enc_dec_model_runner.py", line 329, in profile_run\n'
    "    self.execute_model(model_input, None, intermediate_tensors)\n"
    "torch.OutOfMemoryError: CUDA out of memory.")


def _top(text: str) -> tuple[str, str | None]:
    d = diagnose_text(text)
    assert d.found_oom, text
    top = d.causes[0]
    return top.id, top.evidence.get("deciding_check")


# --- hexadecimal sizes and Metal's per-buffer validation ------------------------------------------------------------

def test_metal_buffer_validation_is_the_per_buffer_limit_with_its_figures():
    report = parse_text(METAL_VALIDATION)
    assert report.requested_bytes == 0x86004000
    assert report.parsed["buffer_limit_bytes"] == 2048 * 1024**2
    assert report.backend == "metal" and report.signature == "buffer_limit"
    d = diagnose_text(METAL_VALIDATION)
    top = d.causes[0]
    assert (top.id, top.evidence["deciding_check"]) == ("not_capacity", "buffer_limit")
    # llama.cpp's knobs for its one unsplittable compute buffer, and Metal's own limit, not Vulkan's.
    assert "-ub" in top.fix and "-fa" in top.fix and "maxBufferLength" in top.fix
    # The thread's own diagnosis (the model and its context do not fit the phone anyway) is ranked next.
    assert d.causes[1].id == "genuine_shortage"


def test_a_hexadecimal_size_after_a_size_word_or_before_bytes_is_a_count_of_bytes():
    # Variants in the wordings the tolerant layer already reads, with the figure as a raw hexadecimal argument.
    assert parse_text("RuntimeError: failed to allocate 0x40000000 bytes on device").requested_bytes == 1024**3
    assert parse_text("cudaMalloc failed: out of memory, size = 0x20000000").requested_bytes == 512 * 1024**2


def test_an_address_in_an_out_of_memory_text_is_not_a_size():
    # A pointer printed next to the failure is not the request.
    report = parse_text("cudaMalloc failed: out of memory (ptr=0x7f3a1b2c3d40)")
    assert report.requested_bytes is None
    # A pointer after an allocator's name is not its size either.
    assert parse_text("malloc 0x55d4c3a2b000 failed: out of memory").requested_bytes is None


def test_must_not_exceed_without_a_buffer_length_is_not_an_allocation():
    d = diagnose_text("ValueError: learning rate must not exceed 1.0 (got 0x10)")
    assert not d.found_oom


def test_a_buffer_length_that_fits_its_limit_wording_still_needs_the_refusal():
    # A length logged with its limit but no "must not exceed" refusal is not Metal's validation failure.
    report = parse_text("newBufferWithLength: length 0x1000 (limit 2048 MB) created")
    assert report.signature != "buffer_limit"


# --- vLLM: the sleep-mode allocator and the start-up profiling run ------------------------------------------------

def test_vllm_cumem_allocator_with_a_spaced_line_number_is_the_engine_budget():
    # TideDra/lmm-r1#42 (colocated vLLM engines in an RL trainer), verbatim with its typos.
    text = ("Runtime Error: Cuda error: out of memory at /workspace/csrc/cumem_allocator.cpp: 62\n"
            "Cuda Error: out of memory at /workspave/scrc/cumem_allocator.cpp: 62")
    assert _top(text) == ("kv_cache_budget", None)


def test_vllm_profiling_run_out_of_memory_is_the_engines_profiling_budget():
    for text in (VLLM_PROFILE_WORKER, VLLM_PROFILE_TRACEBACK):
        d = diagnose_text(text)
        top = d.causes[0]
        assert top.id == "kv_cache_budget", text
        assert "--max-num-seqs" in top.fix and "--enforce-eager" in top.fix


def test_a_training_oom_without_vllms_profiling_step_is_not_the_engine_budget():
    # Variant: the same PyTorch figures from a training loop; "profile" alone (torch.profiler) is not vLLM's step.
    text = ('  File "train.py", line 88, in <module>\n    with torch.profiler.profile() as prof:\n'
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.95 GiB. GPU 1 has a total capacity of "
            "22.09 GiB of which 758.44 MiB is free. Process 2751070 has 21.35 GiB memory in use. Of the allocated "
            "memory 20.90 GiB is allocated by PyTorch, and 85.19 MiB is reserved by PyTorch but unallocated.")
    assert _top(text)[0] != "kv_cache_budget"


def test_profiling_words_without_an_out_of_memory_error_are_not_the_budget():
    # vLLM's own log line on a healthy start: no failure to explain.
    d = diagnose_text("INFO 10-24 18:10:17 enc_dec_model_runner.py:301] Starting profile run for multi-modal models.")
    assert not d.causes or d.causes[0].id != "kv_cache_budget"


# --- WSL2's pinned-memory limit beside a figureless message -------------------------------------------------------

def _ranked(text: str, **context: object) -> list[tuple[str, str | None]]:
    d = diagnose_text(text, context=UserContext(**context) if context else None)  # type: ignore[arg-type]
    return [(c.id, c.evidence.get("deciding_check")) for c in d.causes]


def test_a_figureless_oom_under_wsl_ranks_the_pinned_memory_limit_with_its_check():
    # ddPn08/rvc-webui#78: the issue title is the only error text; pin_memory=False in the DataLoader was the fix. No
    # figure tells it from the job's own need, so the limit is ranked, not asserted first.
    for context in ({"host_os": "wsl"}, {}):  # the user's input, or the words "in WSL2" in the text
        ranked = _ranked("CUDA out of memory in WSL2", **context)
        assert ("not_capacity", "pin_memory") in ranked[:2], (context, ranked)


def test_pinned_memory_is_not_ranked_off_wsl_or_when_the_figures_speak():
    assert ("not_capacity", "pin_memory") not in _ranked("CUDA out of memory", host_os="linux")
    # Variant under WSL with PyTorch's figures: they decide (a request larger than what is free), no pinned guess added.
    figures = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 8.00 GiB total "
               "capacity; 5.50 GiB already allocated; 1.20 GiB free; 5.60 GiB reserved in total by PyTorch)")
    assert ("not_capacity", "pin_memory") not in _ranked(figures, host_os="wsl")
