"""Sixtieth pass (issue 28): misses of fresh-81 .. fresh-88 read in their runtime's own words.

* vLLM's V1 start-up check cut before its available figure ("To serve at least one request with the model's max seq
  len (N), X GiB KV cache is needed, which is larger"): the engine raises it only when the KV cache is too small;
* vLLM's Mamba check quoted from "exceeds available Mamba cache blocks (N)" on, without its max_num_seqs;
* SGLang's "Input length (N tokens) exceeds the maximum allowed length (M tokens)" with M + 6 no context window: the KV
  pool sized at start-up is the limit; with M + 6 a context window (a multiple of 1024) it is not read;
* gunicorn's "Worker (pid:N) was sent SIGKILL! Perhaps out of memory?": the OOM killer's SIGKILL, the guess is
  gunicorn's own words, not a runtime's out-of-memory;
* PyTorch's "Unable to find a valid cuDNN algorithm to run convolution": no algorithm's workspace fitted, a figureless
  shortage;
* PyTorch's MPS message cut to "MPS allocated: X" with a request under a page: far below any Mac's limit, a small
  per-process cap (a VM or CI runner).

Every positive text is a real message quoted from the public thread named in its comment; the negatives must stay
"not found" or keep their reading."""

from __future__ import annotations

from gpudesk.oom import diagnose_text


def _top(text: str) -> tuple[str, object, float]:
    d = diagnose_text(text)
    assert d.found_oom, text
    assert d.top is not None
    return d.top.id, d.top.evidence.get("deciding_check"), d.top.confidence


# vllm-project/vllm#53961 (the excerpt stops inside the sentence).
VLLM_CUT = ("ValueError: To serve at least one request with the model's max seq len (1048576),\n"
            "  23.32 GiB KV cache is needed, which is larger")


def test_vllm_kv_check_cut_before_the_available_figure() -> None:
    d = diagnose_text(VLLM_CUT)
    assert d.top is not None and d.top.id == "kv_cache_budget" and d.top.confidence == 0.9
    assert d.report.parsed["max_model_len_tokens"] == 1048576
    assert abs(d.report.parsed["kv_cache_needed_bytes"] - 23.32 * 2**30) < 2
    # The whole sentence keeps its available figure and the length that fits.
    whole = ("ValueError: To serve at least one request with the models's max seq len (32768), (4.00 GiB KV cache is "
             "needed, which is larger than the available KV cache memory (2.50 GiB). Based on the available memory, "
             "the estimated maximum model length is 20480.")
    d = diagnose_text(whole)
    assert abs(d.report.parsed["kv_cache_available_bytes"] - 2.5 * 2**30) < 2
    assert "20480" in (d.top.fix if d.top else "")
    # A sentence that only talks about serving one request is not the check.
    assert not diagnose_text("To serve at least one request with the model we rent a GPU.").found_oom


# rwlove/home-ops#13226 (the author's fragment, elided with '...').
MAMBA_CUT = "exceeds available Mamba cache blocks (95)... CUDA graph capture cannot proceed"


def test_vllm_mamba_check_without_max_num_seqs() -> None:
    d = diagnose_text(MAMBA_CUT)
    assert d.top is not None and d.top.id == "kv_cache_budget"
    assert d.report.parsed["mamba_cache_blocks"] == 95
    assert "max_num_seqs" not in d.report.parsed
    assert "--max-num-seqs 95" in d.top.fix
    full = ("RuntimeError: Worker failed with error 'max_num_seqs (1024) exceeds available Mamba cache blocks (600). "
            "Each decode sequence requires one Mamba cache block, so CUDA graph capture cannot proceed.'")
    d = diagnose_text(full)
    assert d.report.parsed["max_num_seqs"] == 1024 and d.report.parsed["mamba_cache_blocks"] == 600


# sgl-project/sglang#36583 (the KV pool sized at 1,741 tokens while 46.9 GB sat unused).
SGLANG_INPUT = "Input length (3034 tokens) exceeds the maximum allowed length (1735 tokens)"


def test_sglang_input_limit_set_by_the_kv_pool() -> None:
    d = diagnose_text(SGLANG_INPUT)
    assert d.top is not None and d.top.id == "kv_cache_budget" and d.top.confidence == 0.75
    assert d.top.evidence["kv_cache_tokens"] == 1741
    assert d.top.evidence["refused_request_tokens"] == 3034
    assert "max_total_num_tokens" in d.top.checks[0]


def test_sglang_input_limit_at_a_context_window_is_not_read() -> None:
    # 8186 + 6 = 8192: the model's context window, a prompt too long for the model, not memory.
    text = ("Input length (9000 tokens) exceeds the maximum allowed length (8186 tokens). Use a shorter input or enable "
            "--allow-auto-truncate.")
    assert not diagnose_text(text).found_oom
    # Other programs' length checks are not SGLang's.
    assert not diagnose_text("Title exceeds the maximum allowed length of 200 characters").found_oom


# turboderp-org/exllamav2#556 (gunicorn with 2 workers, each loading the model).
GUNICORN_SIGKILL = "[ERROR] Worker (pid:25134) was sent SIGKILL! Perhaps out of memory?"


def test_gunicorn_sigkill_guess_reads_as_the_oom_killer() -> None:
    top = _top(GUNICORN_SIGKILL)
    assert top[:2] == ("not_capacity", "host_ram")
    # A CUDA out-of-memory beside it is the GPU's own failure and keeps its reading.
    cuda = GUNICORN_SIGKILL + "\ntorch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
    assert _top(cuda)[0] != "not_capacity"
    # gunicorn's report of another signal is not a kill.
    assert not diagnose_text("[ERROR] Worker (pid:25134) was sent SIGSEGV!").found_oom


# XPixelGroup/DiffBIR#59 (8 GB card, 11 GB needed by the maintainer's answer).
CUDNN_NO_ALGO = "RuntimeError: Unable to find a valid cuDNN algorithm to run convolution"


def test_cudnn_no_valid_algorithm_is_a_figureless_shortage() -> None:
    top = _top(CUDNN_NO_ALGO)
    assert top[0] == "genuine_shortage" and top[2] < 0.6
    assert not diagnose_text("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if you "
                             "passed in a non-contiguous input.").found_oom


# actions/runner-images#11899 (macOS-15 Apple-silicon runner, MPS capped near 1 GB).
MPS_CUT = "MPS backend out of memory (MPS allocated: 1024.00 MB). Tried to allocate 256 bytes on shared pool."


def test_mps_cut_message_far_under_any_mac_limit_is_a_small_cap() -> None:
    top = _top(MPS_CUT)
    assert top[0] == "per_process_cap" and top[2] == 0.6
    # Live tensors near a real Mac's limit, or a large request, stay a shortage.
    assert _top("MPS backend out of memory (MPS allocated: 6.00 GB). Tried to allocate 256 bytes on shared "
                "pool.")[0] == "genuine_shortage"
    assert _top("MPS backend out of memory (MPS allocated: 1.00 GB). Tried to allocate 2.00 GB on private "
                "pool.")[0] == "genuine_shortage"
    # The whole message keeps the figures' reading (opensoundscape#850's shape, with a real model's figures here).
    whole = ("RuntimeError: MPS backend out of memory (MPS allocated: 17.43 GB, other allocations: 1.46 GB, max "
             "allowed: 18.13 GB). Tried to allocate 512.00 MB on private pool.")
    assert _top(whole)[0] == "genuine_shortage"
