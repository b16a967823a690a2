"""The assumption line of ``fused_norm`` (the Plan wizard's "Fused RMSNorm kernel", ``--fused-norm``).

Eager PyTorch's Python RMSNorm (transformers ``LlamaRMSNorm``, torchtune ``torchtune/modules/rms_norm.py``) upcasts to
fp32 and saves fp32 copies for its backward; a fused kernel (apex ``FusedRMSNormAffineFunction``:
``ctx.save_for_backward(input_, weight_, invvar)``,
https://github.com/NVIDIA/apex/blob/master/apex/normalization/fused_layer_norm.py) saves only the 16-bit input and
one fp32 statistic a row. The bytes are :func:`gpudesk.sizing.memory_train.eager_extra_bytes_per_layer` with and
without ``fused_norm``; this module only says, in the estimate's assumptions, what the setting changed, so that a
user who turned it on sees it named beside the activations it lowered.
"""

from __future__ import annotations

from gpudesk.i18n import _
from gpudesk.sizing.memory_train import eager_extra_bytes_per_layer
from gpudesk.sizing.shapes import ModelSpec
from gpudesk.units import format_bytes

FUSED_NORM_SOURCE = ("apex normalization/fused_layer_norm.py FusedRMSNormAffineFunction (save_for_backward(input_, "
                     "weight_, invvar)); transformers LlamaRMSNorm (fp32 upcast)")


def fused_norm_note(spec: ModelSpec, seq_len_tokens: int, micro_batch_size: int, *, tensor_parallel: int,
                    sequence_parallel: bool, recompute: str, compiled: bool,
                    activation_bytes_given: bool) -> tuple[str, str]:
    """(assumption, source) for a training estimate with ``fused_norm`` on: the bytes a layer saves less than with
    eager PyTorch's fp32 norm copies, or why the setting changes nothing here (the eager extra is counted only for
    an eager, not compiled, gated model without selective recompute and without given activation bytes)."""
    if activation_bytes_given or compiled or recompute not in ("none", "full") or not spec.gated:
        return (_("fused RMSNorm kernel: no change here (the eager norms' fp32 copies are counted only in eager "
                  "PyTorch, not compiled, for a gated model without selective recompute)"), FUSED_NORM_SOURCE)
    saved = (eager_extra_bytes_per_layer(spec, seq_len_tokens, micro_batch_size, tensor_parallel, sequence_parallel)
             - eager_extra_bytes_per_layer(spec, seq_len_tokens, micro_batch_size, tensor_parallel,
                                           sequence_parallel, fused_norm=True))
    return (_("fused RMSNorm kernel: each norm saves its 16-bit input and one fp32 statistic a row, {size} less "
              "a layer than eager PyTorch's fp32 copies; the SiLU output is still saved").format(
                  size=format_bytes(int(saved))), FUSED_NORM_SOURCE)
