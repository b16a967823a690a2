"""fp32 main gradients kept between optimizer steps, gradients all-reduced through a flat copy (``--main-grads-kept``).

Megatron-LM's fp16/bf16 optimizer before contiguous gradient buffers (DDP_impl ``local`` with
``use_contiguous_buffers_in_ddp`` off, as at 63121a9e0f5b85dcff046fb2f918557f0c885594, 2021-05):

- ``Float16OptimizerWithFloat16Params._copy_model_grads_to_main_grads`` gives every fp32 main parameter a new fp32
  gradient at each step (``main_param.grad = model_param.main_grad.float()``, megatron/optimizer/optimizer.py line
  304), and its ``zero_grad`` frees only the 16-bit model gradients and the fp32-from-fp32 groups (lines 283-289),
  so the fp32 main gradients stay allocated from the first step on, through the next forward and backward, until
  the next step replaces them one parameter at a time: 4 bytes a parameter in every phase.
- ``train_step`` calls ``allreduce_gradients`` after backward whatever the data-parallel size
  (megatron/training.py lines 377-381), and without contiguous buffers it packs the gradients of each dtype with
  ``_flatten_dense_tensors`` before the all-reduce and copies the result back (megatron/model/distributed.py lines
  196-218): a second copy of every gradient in their own dtype for that moment, in place of PyTorch DDP's
  buckets that live for the whole run.

The bigscience 2021 Megatron logs read it (bigscience-workshop/bigscience experiments/gpt2-meg/*.out at 6980df2d,
TP 4 x PP 4-64, DP 1): every middle rank's end-of-iteration ``allocated`` is 20.02-20.08 bytes a parameter after
20 iterations (16-bit weights 2 + fp32 main parameters 4 + Adam 8 + the kept fp32 main gradients 4 + 16-bit
gradients 2) and its ``max allocated`` 22.6-23.5, where the all-reduce moment counts 22 (the flat copy's 2 more).
Megatron-Core (a contiguous gradient buffer, ``--ddp-bucket-view``; fp32 with ``--fp32-grad-buffer``) keeps
neither: its main gradients are the buffer.
"""

from __future__ import annotations

from gpudesk.i18n import _
from gpudesk.sizing.errors import SizingError

MAIN_GRAD_BYTES = 4.0


def check_main_grads_kept(main_grads_kept: bool, per_param: tuple[float, float, float, float], stage: str,
                          offload: str, fp32_grad_buffer: bool) -> None:
    """Refuse ``main_grads_kept`` where it cannot hold.

    Raises:
        SizingError: (field ``main_grads_kept``) without fp32 master weights beside 16-bit parameters, with a
            sharding other than plain data parallelism (ZeRO and FSDP step their own partitions), with an
            offloaded optimizer, or with ``fp32_grad_buffer`` (the buffer is then the main gradient).
    """
    if not main_grads_kept:
        return
    if fp32_grad_buffer:
        raise SizingError("main_grads_kept", _("with an fp32 gradient buffer the buffer is the main gradient: "
                                               "give one of the two settings."))
    if not per_param[1] or per_param[2] >= MAIN_GRAD_BYTES:
        raise SizingError("main_grads_kept", _("fp32 main gradients kept between steps need 16-bit parameters with "
                                               "fp32 master weights (precision fp16 or bf16)."))
    if stage != "ddp" or offload != "none":
        raise SizingError("main_grads_kept", _("fp32 main gradients kept between steps apply to plain data "
                                               "parallelism (sharding ddp) with no offload."))


def kept_main_grad_bytes(rank_params: float, main_grads_kept: bool) -> float:
    """Bytes of the fp32 main gradients alive in every phase (module docstring); 0 when not kept."""
    return rank_params * MAIN_GRAD_BYTES if main_grads_kept else 0.0


def flat_allreduce_copy_bytes(rank_params: float, gradient_bytes_per_param: float, main_grads_kept: bool) -> float:
    """Bytes of the flattened copy of the gradients made for the all-reduce after backward (module docstring)."""
    return rank_params * gradient_bytes_per_param if main_grads_kept else 0.0
