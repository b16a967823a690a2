"""Expert parallelism inside a serving replica: which experts a GPU holds, reads and computes each step.

Without expert parallelism every GPU of a ``tp``-wide replica holds a ``1 / tp`` slice of every routed expert
(vLLM ``FusedMoEParallelConfig`` with ``use_ep`` False: ``tp_size`` slices of each expert's intermediate width,
vllm/model_executor/layers/fused_moe/config.py; SGLang ``--ep-size 1``; TensorRT-LLM ``moe_tp_size = tp_size``,
tensorrt_llm/mapping.py). With an expert-parallel size ``ep`` (vLLM ``--enable-expert-parallel``: ep = tp x dp;
SGLang ``--ep-size`` / ``--expert-parallel-size``; TensorRT-LLM ``--ep_size`` / ``moe_expert_parallel_size``, with
``moe_tp_size = tp / ep``) each GPU holds ``E / ep`` whole experts (sliced ``tp / ep`` ways) and computes only the
(token, expert) pairs routed to them (vLLM ``determine_expert_map``: a rank's local experts, the others mapped to
-1 and skipped; https://github.com/vllm-project/vllm, https://github.com/sgl-project/sglang,
https://github.com/NVIDIA/TensorRT-LLM). Two things change per GPU:

- The routed rows: a GPU's grouped GEMM gathers only the rows of the pairs routed to its own experts, ``n k / ep``
  of them instead of all ``n k``; the other two hidden-wide passes stay whole, since the kernel writes a zero
  output row for every pair routed to another GPU (``fused_moe_kernel``: ``if off_experts == -1:
  write_zeros_to_output``, "Write back zeros to the output when the expert is not in the current expert parallel
  rank", vllm/model_executor/layers/fused_moe/fused_moe.py, read at ROCm/vllm f8c9a385, 2025-08-28, which carries
  upstream's kernel; SGLang's Triton fused MoE is derived from it) and ``moe_sum`` reads all ``n k`` rows back
  (:data:`gpudesk.sizing.serve_step.MOE_ROUTED_ROW_PASSES`).
- The weights read: on average the same bytes (``E / ep`` experts at ``ep`` times a TP slice), but the step ends
  when the busiest GPU ends. With uniform routing each of a GPU's ``E / ep`` experts is touched by a step of ``n``
  tokens with probability ``p = 1 - (1 - k / E)^n``, so the experts it reads are binomial (mean ``E p / ep``,
  variance ``E p (1 - p) / ep``); the busiest of ``ep`` GPUs reads about ``mean + z sd``, ``z`` the expected
  largest of ``ep`` standard normals (Blom's approximation, ``inv_cdf((ep - 0.375) / (ep + 0.25))``), at most its
  ``E / ep``. At a decode step of one DeepSeek-R1 token (E 256, k 8) on EP 8 the busiest GPU reads about 2.4
  experts per layer where the mean is 1. This is why vLLM ships an expert-parallel load balancer (EPLB,
  ``--enable-eplb``) for skewed real routing; uniform routing is the least imbalance a step can have.

The collective is unchanged where attention runs tensor-parallel over the same GPUs: every GPU holds every token,
and the experts' partial outputs are summed by the same all-reduce (vLLM ``FusedMoE`` ``reduce_results``).
"""

from __future__ import annotations

import math
from statistics import NormalDist

EXPERT_PARALLEL_SOURCE = ("vLLM FusedMoEParallelConfig (vllm/model_executor/layers/fused_moe/config.py) and "
                          "determine_expert_map (layer.py): E/ep whole experts per GPU; SGLang --ep-size; "
                          "TensorRT-LLM mapping.py moe_ep_size / moe_tp_size "
                          "(https://github.com/vllm-project/vllm, https://github.com/sgl-project/sglang, "
                          "https://github.com/NVIDIA/TensorRT-LLM)")


def expected_max_standard_normal(count: int) -> float:
    """The expected largest of ``count`` independent standard normals (Blom's approximation; 0 for one)."""
    if count <= 1:
        return 0.0
    return NormalDist().inv_cdf((count - 0.375) / (count + 0.25))


def busiest_rank_experts(tokens: int, experts: int, active_per_token: int, ep: int) -> float:
    """Routed experts per MoE layer the busiest of ``ep`` expert-parallel GPUs reads in a step of ``tokens`` tokens
    (module docstring); with ``ep`` 1 the experts the step touches, ``E (1 - (1 - k/E)^n)``."""
    if tokens <= 0 or experts <= 0 or active_per_token <= 0:
        return 0.0
    p = 1.0 - (1.0 - active_per_token / experts) ** tokens
    if ep <= 1:
        return experts * p
    local = experts / ep
    spread = math.sqrt(local * p * (1.0 - p))
    return min(local, local * p + expected_max_standard_normal(ep) * spread)
