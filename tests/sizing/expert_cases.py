"""The MoE and dense models and the training estimate the expert-parallel tests share (memfix47, memfix48, qa51 D2)."""

from __future__ import annotations

from conftest import FIXTURES
from gpudesk.sizing import MemoryWorkload, estimate_memory, spec_from_hf_config
from gpudesk.sizing.estimate import MemoryEstimate
from gpudesk.sizing.shapes import ModelSpec

CONFIGS = FIXTURES / "sizing" / "configs"
MOE = spec_from_hf_config(CONFIGS / "qwen3-30b-a3b.config.json")
DENSE = spec_from_hf_config(CONFIGS / "llama-2-7b.config.json")


def train_estimate(spec: ModelSpec = MOE, **kw: object) -> MemoryEstimate:
    """Full training of ``spec`` at 2,048 tokens, micro-batch 1, AdamW in bf16 under ZeRO-1 on 16 GPUs, with ``kw``
    overriding any MemoryWorkload field."""
    w: dict[str, object] = dict(mode="train", precision="bf16", optimizer="adamw", sharding="zero1",
                                seq_len_tokens=2048, micro_batch_size=1, gpus=16)
    return estimate_memory(spec, MemoryWorkload(**{**w, **kw}))  # type: ignore[arg-type]
