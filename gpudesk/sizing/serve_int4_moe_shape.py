"""The routed experts whose 4-bit weight-only MoE kernel times were measured, shared by the two measured tables:
Marlin MoE on NVIDIA (:mod:`gpudesk.sizing.serve_marlin_moe`, vLLM PR 14138: DeepSeek-V3-AWQ) and SGLang's Triton
int4 fused MoE on CDNA 4 (:mod:`gpudesk.sizing.serve_rocm_int4_moe`, sgl-project/sglang PRs 22208 and 34460:
Kimi-K2 / K2.5 W4A16). Both were taken on the DeepSeek-V3 expert shape (hidden 7168, expert width 2048; Kimi-K2
keeps it with 384 experts), so each table is charged only to routed experts of that shape stored in a 4-bit
weight-only format (AWQ, GPTQ, compressed-tensors W4A16, the ``int4-*`` storage formats)."""

from __future__ import annotations

MEASURED_HIDDEN = 7168
MEASURED_EXPERT_WIDTH = 2048
WEIGHT_ONLY_4BIT_PREFIXES = ("int4", "awq", "gptq", "w4a16")


def measured_int4_experts(weight_format: str, hidden: int, expert_width: int, experts: int) -> bool:
    """Whether a model with ``experts`` routed experts of ``hidden`` x ``expert_width`` in ``weight_format`` has the
    shape and format both measured tables were taken on (module docstring); False for a dense model."""
    return (bool(experts) and weight_format.lower().startswith(WEIGHT_ONLY_4BIT_PREFIXES)
            and hidden == MEASURED_HIDDEN and expert_width == MEASURED_EXPERT_WIDTH)
