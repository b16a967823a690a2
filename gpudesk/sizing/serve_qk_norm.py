"""A QK RMSNorm over the whole layer under tensor parallelism: one more all-reduce and two kernels per layer.

Most QK-normed models (Qwen3, Gemma 3, OLMo 2 per head) normalise each head apart, which a rank does on its own
heads. MiniMax-M2 (and M2.5 / M2.7, ``qk_norm_type`` ``per_layer`` in the config) normalises each token's whole
q and k projections, every head at once (transformers ``modeling_minimax_m2.py``). A rank of a ``tp``-wide group
holds ``1 / tp`` of the heads, so the root mean square needs the sum of squares of every rank: the engines compute
the local sums in one kernel, all-reduce them (a few bytes per token: one float for q and one for k) and scale q
and k in a second kernel:

- SGLang ``python/sglang/srt/models/minimax_m2.py`` ``MiniMaxM2QKRMSNorm._forward_naive`` (the default; a fused
  kernel only behind ``SGLANG_USE_FUSED_PARALLEL_QKNORM``): ``rms_sumsq_serial`` (Triton), ``attn_tp_all_reduce``
  of the ``[2 x tokens]`` float sums ("custom all-reduce ... is much faster than the nccl all-reduce", padded for
  it), ``rms_apply_serial`` (Triton) (https://github.com/sgl-project/sglang);
- vLLM ``vllm/model_executor/layers/mamba/linear_attn.py`` ``MiniMaxText01RMSNormTP.forward_qk``, used by
  ``models/minimax_m2.py``: the q and k variances concatenated and summed by one
  ``tensor_model_parallel_all_reduce`` (https://github.com/vllm-project/vllm).

At a decode step the message is a few bytes, so the all-reduce costs its latency (the engine's one-shot kernel
on NVLink / Infinity Fabric: :func:`gpudesk.sizing.serve_rates.allreduce_latency_s`), on top of Megatron's two
per layer, plus the two kernels at the kernel floor. At ``tp`` 1 (or one GPU per attention group) the norm is
local: nothing is added.
"""

from __future__ import annotations

from gpudesk.i18n import _
from gpudesk.sizing.shapes import ModelSpec
from gpudesk.sizing.speed_common import Assumption, raw

LAYER_QK_NORM_SOURCE = ("TP-wide QK RMSNorm: sglang python/sglang/srt/models/minimax_m2.py MiniMaxM2QKRMSNorm "
                        "(rms_sumsq_serial, attn_tp_all_reduce, rms_apply_serial); vllm model_executor/layers/mamba/"
                        "linear_attn.py MiniMaxText01RMSNormTP.forward_qk (https://github.com/sgl-project/sglang, "
                        "https://github.com/vllm-project/vllm)")
#: Kernels of the split norm around its all-reduce: the local sums of squares, then the scaling of q and k.
LAYER_QK_NORM_KERNELS = 2
#: Values all-reduced per token: the q and the k sum of squares, fp32.
LAYER_QK_NORM_BYTES_PER_TOKEN = 2 * 4


def layer_qk_norm_per_layer(spec: ModelSpec, attention_tp: int) -> tuple[int, int]:
    """(extra kernels, extra all-reduces) per layer that a layer-wide QK RMSNorm costs when attention runs over
    ``attention_tp`` tensor-parallel GPUs (module docstring); (0, 0) for per-head norms or one GPU per group."""
    if not spec.layer_qk_norm or attention_tp <= 1:
        return 0, 0
    return LAYER_QK_NORM_KERNELS, 1


def layer_qk_norm_assumption(allreduces: int, kernels: int, attention_tp: int) -> Assumption:
    """The assumption a step model shows when :func:`layer_qk_norm_per_layer` adds ``allreduces`` and ``kernels``."""
    return Assumption("layer_qk_norm_allreduce", _(
        "the QK RMSNorm spans every head: {allreduces} more all-reduce of the sums of squares and {kernels} "
        "kernels per layer across the {tp} tensor-parallel GPUs").format(
        allreduces=allreduces, kernels=kernels, tp=attention_tp), LAYER_QK_NORM_SOURCE,
        raw(allreduces_per_layer=allreduces, kernels_per_layer=kernels))
