"""The allocated peak of loading a quantised model whose attention projections are fused after loading.

AutoAWQ's ``from_quantized(..., fuse_layers=True)`` loads every ``WQLinear`` onto the GPU, then builds one fused
block per decoder layer. ``fuse_qkv`` concatenates the layer's packed q, k and v matrices (``qweight``, ``qzeros``,
``scales``) into a new ``WQLinear`` with ``torch.cat``
(https://github.com/casper-hansen/AutoAWQ/blob/5c7e3682d34ebda3aaa6326bac2d63472ef4eba6/awq/utils/fused_utils.py
``fuse_qkv``), while the unfused layers stay referenced by ``model.model.layers`` until the fuser replaces
``model.model`` with the fused ``LlamaLikeModel`` after the last layer
(``awq/models/llama.py`` ``LlamaFuser.fuse_transformer`` at the same commit). So for a moment the GPU holds the
weights plus a second copy of every layer's q, k and v projections. PyTorch's ``max_memory_allocated`` keeps that
moment unless the peak is reset after loading, so the allocated peak of a run is
``max(weights + fused q/k/v copy, weights + the run's own transients)``.
"""

from __future__ import annotations

from gpudesk.i18n import _
from gpudesk.sizing.dtypes import weight_bits_per_param
from gpudesk.sizing.estimate import add_phase_excess
from gpudesk.sizing.shapes import ModelSpec



def fused_qkv_copy_bytes(spec: ModelSpec, weight_format: str, tensor_parallel: int = 1) -> float:
    """Bytes of the q, k and v projections of every decoder layer in ``weight_format``, per GPU (0 without a
    transformer shape)."""
    if not spec.is_transformer:
        return 0.0
    dims = spec.transformer_dims
    head_dim = spec.head_dim_resolved
    qkv_elements = dims.hidden_size * (dims.num_attention_heads + 2 * spec.kv_heads_resolved) * head_dim
    return dims.layers * qkv_elements * weight_bits_per_param(weight_format) / 8 / max(1, tensor_parallel)


def add_fused_qkv_load(parts: dict[str, float], copy_bytes: float) -> tuple[str, str] | None:
    """Add ``fused_load_copy`` to ``parts`` in place: what the fusing moment holds beyond the run's own transients
    (``max(copy, transients) - transients``). Returns the assumption to show, or None when the run's peak is larger.

    Call it before :func:`gpudesk.sizing.overheads.add_overheads` (overheads are not transients of the run).
    """
    # The weights are held in both phases: the fusing moment adds the copy, the run its own transients.
    if not add_phase_excess(parts, "fused_load_copy", copy_bytes, beside=frozenset({"weights"})):
        return None
    return (_("the peak is while loading: fusing q, k and v copies them ({gib:.2f} GiB) before the unfused layers "
              "are freed").format(gib=copy_bytes / 2**30),
            "AutoAWQ awq/utils/fused_utils.py fuse_qkv; awq/models/llama.py LlamaFuser.fuse_transformer")
