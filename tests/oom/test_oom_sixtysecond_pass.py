"""Sixty-second pass (issue 28): the engine's KV budget in Metal's words, and a launch's ranks above a context.

* vLLM on Apple silicon refuses to start with "Paged attention: not enough Metal memory for KV cache. metal_limit=..,
  fraction=.., usable_metal=.., model_memory=.., overhead=.., kv_budget=<= 0" (vllm-metal, vllm_metal/v1/cache_policy.py
  ``_validate_paged_attention_plan``): the budget limit x fraction - weights - overhead. It read as a shortage (0.45);
  with the weights inside the limit it is the engine's KV budget (0.8), the fix naming the fraction that leaves room.
* Neighbouring PIDs of one launch on one GPU holding more than a CUDA context (above other_process's 1.5 GiB sibling
  ceiling, below the old 2 GiB workload floor) read as a foreign process (0.9); they are the launch's ranks working on
  that GPU (multi_gpu_imbalance 0.92).

Every positive text is a real message quoted from the public thread named in its comment; the negatives say where
their figures were changed."""

from __future__ import annotations

from gpudesk.oom import diagnose_text

# vllm-project/vllm-metal#585: the measured overhead inflated past the whole limit (weights 13.76 of 40.20 GB).
METAL_OVERHEAD = ("ValueError: Paged attention: not enough Metal memory for KV cache.\nmetal_limit=40.20GB, fraction=0.92, "
                  "usable_metal=36.98GB,\nmodel_memory=13.76GB, overhead=37.86GB, kv_budget=-14.63GB.\nMitigations: "
                  "increase VLLM_METAL_MEMORY_FRACTION; use a smaller or more\nquantized model.")
# vllm-project/vllm-metal#755: a fraction of 0.15, the message cut inside its mitigation.
METAL_LOW_FRACTION = ("INFO [cache_policy.py:1307] Paged attention: VLLM_METAL_MEMORY_FRACTION=auto, using "
                      "--gpu-memory-utilization=0.15\n\nValueError: Paged attention: not enough Metal memory for KV cache. "
                      "metal_limit=5.73GB, fraction=0.15, usable_metal=0.86GB, model_memory=0.34GB, overhead=1.42GB, "
                      "kv_budget=-0.89GB. Mitigations: increase VLLM_METAL_MEM")
# parsehawk/parsehawk#6: the default fraction 0.5 on a 16 GB Mac, with the hybrid model's state reservation.
METAL_HYBRID = ("ValueError: Paged attention: not enough Metal memory for KV cache.\nmetal_limit=14.30GB, fraction=0.5, "
                "usable_metal=7.15GB,\nmodel_memory=5.32GB, overhead=2.06GB,\nkv_budget_before_hybrid=-0.23GB,\n"
                "hybrid_gdn_state=lazy (growth_peak_reserve=0.15GB, 51.5MB/seq * peak_slots=3/max_num_seqs=256),\n"
                "kv_budget=-0.38GB.\nMitigations: increase VLLM_METAL_MEMORY_FRACTION; use a smaller or more\nquantized "
                "model; lower --max-num-seqs (for single-user serving, try --max-num-seqs 1).")
# sgl-project/sglang#6082: TP=4 ranks 21068-21071 all on GPU 0 (rank 0's 16.12 GiB, the others 1.87-1.91 GiB each).
SGLANG_RANKS_ON_GPU0 = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 38.00 MiB. GPU 0 has a total capacity of 23.65 GiB "
    "of which 39.44 MiB is free. Process 20909 has 1.81 GiB memory in use. Process 21069 has 1.87 GiB memory in use. "
    "Process 21071 has 1.87 GiB memory in use. Process 21068 has 16.12 GiB memory in use. Process 21070 has 1.91 GiB "
    "memory in use. Of the allocated memory 1.22 GiB is allocated by PyTorch, and 220.57 MiB is reserved by PyTorch but "
    "unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
    "to avoid fragmentation.  See documentation for Memory Management  "
    "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")


def test_metal_kv_budget_refusal_is_the_engine_budget() -> None:
    for text in (METAL_OVERHEAD, METAL_LOW_FRACTION, METAL_HYBRID):
        d = diagnose_text(text)
        assert d.found_oom and d.top is not None
        assert d.top.id == "kv_cache_budget" and d.top.confidence == 0.8
    low = diagnose_text(METAL_LOW_FRACTION).top
    assert low is not None
    assert low.evidence["memory_fraction_ratio"] == 0.15
    assert low.evidence["weights_bytes"] == 340_000_000 and low.evidence["kv_budget_bytes"] == -890_000_000
    # (0.34 + 1.42) / 5.73 of the limit is taken before the KV cache: the fix names a share above it.
    assert abs(low.evidence["fraction_needed_ratio"] - 0.307) < 1e-3
    assert "0.31" in low.fix
    # The hybrid reservation's line keeps the final budget, not the one before it.
    hybrid = diagnose_text(METAL_HYBRID).top
    assert hybrid is not None and hybrid.evidence["kv_budget_bytes"] == -380_000_000
    # Weights plus overhead above the whole limit: no fraction fits, the overhead is named.
    over = diagnose_text(METAL_OVERHEAD).top
    assert over is not None and over.evidence["fraction_needed_ratio"] > 1
    assert "37.86 GB" in over.fix


def test_metal_refusal_with_weights_beyond_the_limit_is_not_a_budget() -> None:
    # vllm-metal#755's refusal with model_memory changed to 6.20GB, above the 5.73 GB limit: no fraction holds it.
    text = METAL_LOW_FRACTION.replace("model_memory=0.34GB", "model_memory=6.20GB")
    d = diagnose_text(text)
    assert d.top is not None and d.top.id != "kv_cache_budget"
    # The refusal in words alone (no plan figures) keeps its reading.
    words = diagnose_text("AssertionError: Not enough memory for KV cache, try reducing --num-pages")
    assert words.top is not None and words.top.id == "kv_cache_budget" and words.top.confidence == 0.7


def test_launch_ranks_above_a_context_on_one_gpu_are_the_placement() -> None:
    d = diagnose_text(SGLANG_RANKS_ON_GPU0)
    assert d.top is not None and d.top.id == "multi_gpu_imbalance" and d.top.confidence == 0.92
    assert d.top.evidence["neighbouring_pids"] == [21068, 21069, 21070, 21071]
    assert d.top.evidence["working_ranks"] == 4
    assert any(c.id == "other_process" for c in d.causes[1:])


def test_context_sized_siblings_keep_their_reading() -> None:
    # sglang#6082's list with ranks 21069-21071 changed to 1.19 GiB each (CUDA contexts, returnn#1469's size): the
    # other ranks' contexts, other_process's sibling reading, not working ranks.
    text = (SGLANG_RANKS_ON_GPU0.replace("Process 21069 has 1.87", "Process 21069 has 1.19")
            .replace("Process 21071 has 1.87", "Process 21071 has 1.19")
            .replace("Process 21070 has 1.91", "Process 21070 has 1.19"))
    d = diagnose_text(text)
    assert d.top is not None and d.top.id != "multi_gpu_imbalance"
