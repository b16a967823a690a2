"""FSDP2 gradient accumulation without communication (``--fsdp2-no-sync``).

A loop that calls ``FSDPModule.set_requires_gradient_sync(False)`` on every micro-batch but the last ("the
equivalence of ``no_sync`` in FSDP1", torch/distributed/fsdp/_fully_shard/_fully_shard.py
``set_requires_gradient_sync``, PyTorch v2.13.0) sets every parameter group's ``reduce_grads`` to False. Its
``FSDPParamGroup.post_backward`` then reshards the parameters and returns before the reduce-scatter, keeping each
parameter's whole unsharded gradient (``_fsdp_param_group.py`` ``post_backward``: ``if not self.reduce_grads: ...
fsdp_param.to_accumulated_grad_if_needed(); return``). When the ``MixedPrecisionPolicy`` has a ``reduce_dtype``
other than the gradients' dtype, ``FSDPParam.to_accumulated_grad_if_needed`` replaces that gradient by a copy in the
reduce dtype (``self.unsharded_accumulated_grad = unsharded_grad.to(self.reduce_dtype)``, ``_fsdp_param.py``) and the
later micro-batches add into it; ``init_dtype_attrs`` clamps ``reduce_dtype`` to None when it equals the compute
dtype. So from the first micro-batch's backward until the syncing backward reduce-scatters and frees it, every rank
holds the full gradient of its tensor-parallel share of the model: the rank's parameters x 4 bytes with
``reduce_dtype=float32`` (torchtitan's and KempnerForge's policy), x the gradient bytes otherwise.

Who does it: Hugging Face Accelerate's ``no_sync`` / ``accumulate`` under FSDP2 since ec92b1af (2025-09-06,
huggingface/accelerate PR 3762, src/accelerate/accelerator.py ``if self.is_fsdp2:
model.set_requires_gradient_sync(False)``); KempnerForge ``kempnerforge/training/grad.py`` ``maybe_no_sync``.
Who does not (the default, ``off``): torchtitan's trainer and torchtune's recipes reduce-scatter every micro-batch
(neither calls it outside torchtitan's chunked-loss LM head), nor does Accelerate before PR 3762 (an FSDP2 module has
no ``no_sync``, so its ``getattr(model, "no_sync", nullcontext)`` fell back to a null context).
"""

from __future__ import annotations

from gpudesk.i18n import _
from gpudesk.sizing.errors import SizingError

#: off: the loop reduce-scatters every micro-batch; fp32: set_requires_gradient_sync(False) with
#: ``reduce_dtype=float32``; grad-dtype: the same with no reduce dtype other than the gradients' own.
FSDP2_NO_SYNC = ("off", "fp32", "grad-dtype")
FP32_BYTES = 4.0


def check_fsdp2_no_sync(value: str, fsdp: bool, fsdp_version: int) -> None:
    """Refuse an unknown value, or a no-sync FSDP2 loop described for something other than FSDP2.

    Raises:
        SizingError: (field ``fsdp2_no_sync``) a value outside :data:`FSDP2_NO_SYNC`, or a value other than ``off``
            with a sharding other than ``fsdp`` or with FSDP version 1 (``fsdp1_no_sync`` describes FSDP1).
    """
    if value not in FSDP2_NO_SYNC:
        raise SizingError("fsdp2_no_sync", _("FSDP2 no-sync must be one of {choices}, got {value}.").format(
            choices=", ".join(FSDP2_NO_SYNC), value=value))
    if value != "off" and (not fsdp or fsdp_version != 2):
        raise SizingError("fsdp2_no_sync", _("FSDP2 no-sync applies to sharding fsdp with FSDP version 2; FSDP1 "
                                             "loops are described by the FSDP1 sync setting."))


def fsdp2_no_sync_gradient_bytes(rank_params: float, grad_bytes_per_param: float, value: str) -> float:
    """The unsharded gradients a rank holds between micro-batches under ``set_requires_gradient_sync(False)``:
    ``rank_params`` (the rank's tensor-parallel share, not divided by the data-parallel ranks) x 4 bytes (``fp32``)
    or x the gradient bytes (``grad-dtype``); 0 for ``off``."""
    if value == "off":
        return 0.0
    return rank_params * (FP32_BYTES if value == "fp32" else grad_bytes_per_param)
