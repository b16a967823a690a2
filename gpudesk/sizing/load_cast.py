"""The peak of loading 16-bit inference weights as fp32 on the GPU and casting them there (``load_dtype``).

A script that calls ``from_pretrained`` without ``torch_dtype`` gets an fp32 model: transformers builds the model
in ``torch.get_default_dtype()`` and casts the checkpoint tensors to it ("torch_dtype ... If not specified, the
model will get loaded in ``torch.float`` (fp32)", ``PreTrainedModel.from_pretrained`` in
https://github.com/huggingface/transformers/blob/v4.40.0/src/transformers/modeling_utils.py; the same from 4.31).
When the script then calls ``model.cuda().half()`` (or ``.to(torch.bfloat16)``), the whole fp32 model reaches the
GPU first. ``Module.half()`` is ``self._apply(lambda t: t.half() if t.is_floating_point() else t)``, and ``_apply``
walks the parameters one at a time: ``param_applied = fn(param)`` allocates the 16-bit copy, then
``param.data = param_applied`` drops the fp32 storage
(https://github.com/pytorch/pytorch/blob/v2.1.0/torch/nn/modules/module.py ``Module._apply``, ``Module.half``).
So the allocated peak of the cast is its first step: every fp32 parameter plus the 16-bit copy of the first
parameter (the input embedding, registered first by a Hugging Face decoder such as ``LlamaModel.__init__``); each
later step has freed more than it allocates. ``max_memory_allocated`` keeps that moment unless the peak is reset
after loading, and the caching allocator keeps the freed fp32 blocks reserved until ``torch.cuda.empty_cache()``
(https://pytorch.org/docs/stable/notes/cuda.html#memory-management): the 16-bit weights and the run's transients
are then served from inside them. The peak (allocated, reserved or device) is therefore
``max(fp32 weights + first 16-bit copy, 16-bit weights + the run's transients)``.
"""

from __future__ import annotations

from gpudesk.i18n import _
from gpudesk.sizing.checks import choice
from gpudesk.sizing.dtypes import weight_bits_per_param
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.estimate import add_phase_excess
from gpudesk.sizing.shapes import ModelSpec

# weight-format: the weights reach the GPU as they run (default); fp32: loaded as fp32 onto the GPU, then cast.
LOAD_DTYPES = ("weight-format", "fp32")
FP32_BITS = 32.0
# Formats a cast from fp32 on the GPU produces (Module.half / .bfloat16 / .to(dtype)); fp32 itself needs no cast.
CAST_FORMATS = frozenset({"fp16", "bf16", "fp32"})



def check_load_dtype(load_dtype: str, weight_format: str) -> str:
    """The validated ``load_dtype``.

    Raises:
        SizingError: an unknown value, or ``fp32`` for a weight format no fp32 model is cast to (a quantised one).
    """
    load = choice("load_dtype", load_dtype, LOAD_DTYPES)
    if load == "fp32" and weight_format.lower() not in CAST_FORMATS:
        raise SizingError("load_dtype", _("an fp32 model is cast on the GPU to fp16 or bf16 (or kept in fp32); the "
                                          "weight format {weight_format} is quantised by its own loader, so leave "
                                          "the load dtype at weight-format.").format(weight_format=weight_format))
    return load


def first_cast_copy_bytes(spec: ModelSpec, weight_format: str, tensor_parallel: int = 1) -> float:
    """Bytes of the 16-bit copy of the first parameter the cast meets: the input embedding table (0 without a
    transformer shape)."""
    if not (spec.vocab_size and spec.hidden_size):
        return 0.0
    return spec.vocab_size * spec.hidden_size * weight_bits_per_param(weight_format) / 8 / max(1, tensor_parallel)


def add_fp32_load_cast(parts: dict[str, float], weight_format: str, first_copy_bytes: float
                       ) -> tuple[str, str] | None:
    """Add ``load_cast_copy`` to ``parts`` in place: what the first step of the fp32-to-16-bit cast holds beyond the
    16-bit weights and the run's own transients. Returns the assumption to show, or None when the run's peak is
    larger (or the weights are fp32 already).

    Call it before :func:`gpudesk.sizing.overheads.add_overheads`, with ``parts["weights"]`` in ``weight_format``.
    """
    bits = weight_bits_per_param(weight_format)
    if bits >= FP32_BITS:
        return None
    weights = parts.get("weights", 0.0)
    fp32_weights = weights * FP32_BITS / bits
    # The cast's first step holds the fp32 weights and the first 16-bit copy; the run, the 16-bit weights and its
    # transients: compared beside the 16-bit weights.
    if not add_phase_excess(parts, "load_cast_copy", fp32_weights + first_copy_bytes - weights,
                            beside=frozenset({"weights"})):
        return None
    return (_("the peak is while loading: the weights reach the GPU in fp32 ({gib:.2f} GiB) and are cast to "
              "{weight_format} there one tensor at a time; the allocator keeps the fp32 blocks reserved").format(
                  gib=fp32_weights / 2**30, weight_format=weight_format),
            "transformers modeling_utils.py from_pretrained (no torch_dtype: fp32); torch/nn/modules/module.py "
            "Module._apply / Module.half")
