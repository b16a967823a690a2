"""Inference with whole layers split over GPUs that run in turn (HF device_map="auto", vLLM pipeline parallel)."""

import pytest

from conftest import FIXTURES
from gpudesk.sizing import spec_from_hf_config
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.layer_split import balanced_split, even_split, layer_bytes
from gpudesk.sizing.memory import MemoryWorkload, estimate_memory
from gpudesk.sizing.memory_inference import weight_bytes

GIB = 2**30
DEEPSEEK_67B = spec_from_hf_config(FIXTURES / "sizing" / "configs" / "deepseek-llm-67b.config.json")


def _workload(batch, seq, **kw):
    # DeepSeek-LLM README 'GPU Memory Usage' (20d316b9): HF transformers 4.35 generate, eager attention, tuple cache.
    base = dict(mode="inference", precision="bf16", weight_format="bf16", kv_cache_impl="legacy-tuple",
                prompt_logits="all", flash_attention=False, context_tokens=seq, prompt_tokens=seq,
                concurrent_sequences=batch, micro_batch_size=batch, gpus=8, pipeline_parallel=8)
    return MemoryWorkload(**{**base, **kw})


def test_accelerate_balanced_map_of_deepseek_67b():
    # accelerate get_balanced_memory: 125.6 GiB / 8 + 1.25 x one 1.38 GB layer a GPU; the first keeps room for the
    # 1.68 GB LM head (its largest leaf) beside the embedding, the last takes the rest.
    total = weight_bytes(DEEPSEEK_67B, "bf16")
    stages = balanced_split(DEEPSEEK_67B, total, "bf16", 8)
    assert [s.layers for s in stages] == [11, 13, 13, 13, 13, 13, 13, 6]
    assert stages[0].embeddings and not stages[0].lm_head and stages[-1].lm_head
    assert sum(s.layers for s in stages) == 95
    assert layer_bytes(DEEPSEEK_67B, total, "bf16") == pytest.approx(1.384e9, rel=0.01)


def test_vllm_even_split_gives_the_remainder_to_the_ranks_before_the_last():
    # vllm/distributed/utils.py get_pp_indices: ``for i in range(2, remaining_layers + 2): partitions[-i] += 1``;
    # vLLM's docs' 61-layer example: PP4 -> [15, 15, 16, 15].
    assert [s.layers for s in even_split(DEEPSEEK_67B, 8)] == [12, 12, 12, 12, 12, 12, 12, 11]
    llama_70b = spec_from_hf_config(FIXTURES / "sizing" / "configs" / "llama-2-70b.config.json")
    assert [s.layers for s in even_split(llama_70b, 3)] == [27, 27, 26]
    assert [s.layers for s in even_split(llama_70b, 4)] == [20, 20, 20, 20]
    assert [s.layers for s in even_split(llama_70b, 6)] == [13, 13, 13, 14, 14, 13]


def test_fullest_gpu_holds_13_layers_and_full_width_attention():
    # README: 16.92 GB at batch 1 x 256 and 33.23 GB at 1 x 4096 (per GPU, 8 x A100-40GB).
    short, long = (estimate_memory(DEEPSEEK_67B, _workload(1, s)) for s in (256, 4096))
    assert short.breakdown["weights"] / GIB == pytest.approx(16.76, abs=0.01)
    assert short.device_bytes / (16.92 * GIB) == pytest.approx(1.0, abs=0.1)
    # All 64 heads' scores on one GPU: 8 bytes x 64 x 4096^2 = 8 GiB, not an eighth of it as under --tp 8.
    tp8 = estimate_memory(DEEPSEEK_67B, _workload(1, 4096, pipeline_parallel=1, tensor_parallel=8))
    assert long.breakdown["prefill_workspace"] > 7 * tp8.breakdown["prefill_workspace"]
    assert long.device_bytes / (33.23 * GIB) > 0.8
    assert "13 layers" in long.assumptions[0][0]


def test_logits_only_on_the_last_gpu():
    # Batch 32 x 1024 with logits of every position: 6 x 32768 x 102400 B = 18.8 GiB on the LM head's GPU only,
    # which over 16 GPUs (7 layers each, the LM head alone past them) makes that GPU the fullest.
    est = estimate_memory(DEEPSEEK_67B, _workload(32, 1024, flash_attention=True, gpus=16, pipeline_parallel=16))
    assert "(4/7/7/7/7/7/7/7/7/7/7/7/7/7/0/0 layers a GPU); the fullest, GPU 14 (0 layers, the LM head" in (
        est.assumptions[0][0])
    assert est.breakdown["prefill_workspace"] == pytest.approx(6 * 32768 * 102400, rel=0.01)
    assert est.breakdown["weights"] == pytest.approx(102400 * 8192 * 2, rel=0.01)


def test_refused_settings():
    with pytest.raises(SizingError) as err:
        estimate_memory(DEEPSEEK_67B, _workload(1, 256, pipeline_parallel=96))
    assert err.value.field == "pipeline_parallel"
    with pytest.raises(SizingError) as err:
        estimate_memory(DEEPSEEK_67B, _workload(1, 256, pipeline_microbatches=4))
    assert err.value.field == "pipeline_microbatches"
    with pytest.raises(SizingError):
        estimate_memory(DEEPSEEK_67B, _workload(1, 256, tp_replicated_vocab=True, tensor_parallel=2, gpus=16))


def test_one_stage_is_unchanged():
    one = estimate_memory(DEEPSEEK_67B, _workload(1, 256, pipeline_parallel=1, gpus=1))
    assert one.breakdown["weights"] == round(weight_bytes(DEEPSEEK_67B, "bf16"))
