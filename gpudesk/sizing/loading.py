"""Memory the caching allocator reserves while the model is LOADED, before the first training step.

PyTorch's caching allocator keeps every block it has obtained from the driver until ``torch.cuda.empty_cache()``
(https://pytorch.org/docs/stable/notes/cuda.html#memory-management), and ``torch.cuda.reset_peak_memory_stats()``
resets the peak reserved figure to what is reserved *now*, not to zero. So when a recipe reports the peak
reserved (or device) memory, the blocks left behind by loading count: the measured peak is
``max(reserved at the end of loading, reserved during training)``. Allocated memory is not affected (the staging
tensors are freed).

Reserved at the end of loading = the weights resident on this GPU + the staging working set, by loader
(``weight_loading``):

- ``per-tensor`` (default): every tensor is copied to the device and, for a 4-bit base, quantised by bitsandbytes'
  CUDA kernel one tensor at a time (transformers ``from_pretrained`` with ``BitsAndBytesConfig``: ``Params4bit``
  quantises in ``.cuda()``/``.to()``, ``bitsandbytes/nn/modules.py`` ``Params4bit._quantize`` ->
  ``functional.quantize_4bit``): one 16-bit copy of a matrix plus its 4-bit output, for each size that needs its
  own segments (below).
- ``nf4-nearest-search``: torchao's ``to_nf4`` before 2024-05-01 (torchao 0.1, used by torchtune's QLoRA of April
  2024) finds each weight's nearest NF4 code by broadcasting the whole flattened tensor against the 16 codes:
  ``diff = (value.unsqueeze(-1) - nf4).abs()`` (``torchao/dtypes/nf4tensor.py`` ``quantize_tensor_nearest`` at
  https://github.com/pytorch/ao/blob/a7ff835edceaf3388d6b205b9c6e24a5778b7e33/torchao/dtypes/nf4tensor.py), so the
  subtraction's result and its ``abs()`` (16 elements of the input dtype per weight each) coexist with the input
  and the scaled blocks. torchao fixed it by quantising in chunks ("This can cause a large memory spike due to
  intermediates of the quantization process", https://github.com/pytorch/ao/commit/6081796bc00e8db4e17a337ae337e66d366444e4).
- Each distinct staging size keeps its own cached segments: blocks above 10 MiB get a segment of their own rounded
  size, a request larger than every cached free block needs a new ``cudaMalloc``, and the smaller segments are
  never returned (c10 ``CUDACachingAllocator.cpp``: ``get_allocation_size``, ``get_free_block`` then ``alloc_block``;
  freed only by ``empty_cache`` or a failed allocation,
  https://github.com/pytorch/pytorch/blob/v2.2.0/c10/cuda/CUDACachingAllocator.cpp). A decoder layer loads its
  attention projections before its larger MLP matrices, so the staging of the attention size stays reserved beside
  the MLP's: the working set is summed over the sizes that exceed every size before them in the layer's order
  (:func:`staging_size_records`; Llama-2-7B: 4096 x 4096, then 11008 x 4096).
  torchtune 0914d5cf's QLoRA init runs that staging twice for every matrix: the prototype layer's ``LoRALinear``
  builds a bf16 ``nn.Linear`` on the GPU and quantises it, ``_get_clones`` deep-copies the layer ``num_layers`` times
  (``Parameter.__deepcopy__`` -> the NF4 ``clone`` dispatch of ``torchtune/utils/_register_nf4_dispatch_ops.py``:
  ``to_nf4(get_original_weight())``), and ``load_state_dict`` quantises each checkpoint tensor again (the NF4
  ``copy_`` dispatch). A replay of that sequence through the allocator's rules (outside the repository) gives 9.15
  GB reserved for Llama-2-7B against the 9.13 GB torchtune's QLoRA tutorial logs after model init; the sum here
  gives 8.0 GB (with the weights, adapters and buffers): the rest is resident NF4 blocks splitting the cached staging
  segments, which only a replay follows.
- ``fsdp1-sync-states``: FSDP1 with ``sync_module_states=True`` from a copy on rank 0's CPU (torchtune
  ``lora_finetune_distributed`` of 2024-04; Answer.AI ``fsdp_qlora`` ``train.py`` ``low_memory``): FSDP moves
  each wrapped unit to the GPU unsharded, broadcasts it, and flattens it into a new ``FlatParameter`` before
  keeping only this rank's shard (``torch/distributed/fsdp/_init_utils.py`` ``_move_module_to_device``,
  ``_sync_module_params_and_buffers``; ``_flat_param.py`` ``flatten_tensors_into_flat_param``): two unsharded
  copies of the largest unit (a decoder layer, or the root unit that keeps the embeddings and the LM head).
"""

from __future__ import annotations

from gpudesk.i18n import _
from gpudesk.sizing.checks import choice
from gpudesk.sizing.dtypes import weight_bits_per_param
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.shapes import ModelSpec

WEIGHT_LOADERS = ("per-tensor", "nf4-nearest-search", "fsdp1-sync-states")
NF4_CODES = 16  # NormalFloat-4 has 16 code values (Dettmers et al. 2023, arXiv 2305.14314)


def largest_matrix_elements(spec: ModelSpec) -> int:
    """Elements of the largest Linear weight of one decoder layer (the MLP's ``h x ffn`` for Llama-style models)."""
    dims = spec.transformer_dims
    h = dims.hidden_size
    q = dims.num_attention_heads * spec.head_dim_resolved
    ffn = spec.ffn_size or 4 * h
    return max(h * q, h * ffn)


def layer_matrix_elements(spec: ModelSpec) -> list[int]:
    """Elements of each Linear weight of one decoder layer in the order a Llama-style layer builds and loads them:
    the q, k, v and output projections, then the MLP (gate, up, down; fc1, fc2 without a gate)."""
    dims = spec.transformer_dims
    h = dims.hidden_size
    q = dims.num_attention_heads * spec.head_dim_resolved
    kv = (spec.num_kv_heads or dims.num_attention_heads) * spec.head_dim_resolved
    ffn = spec.ffn_size or 4 * h
    mlp = [h * ffn] * (3 if spec.gated else 2)
    return [h * q, h * kv, h * kv, q * h] + mlp


def staging_size_records(spec: ModelSpec) -> list[int]:
    """The matrix sizes whose staging needs new allocator segments: each size larger than every one before it in
    :func:`layer_matrix_elements` (a smaller request is served from a cached larger segment). Their last entry is
    :func:`largest_matrix_elements` whenever the layer's largest matrix is one of those listed."""
    records: list[int] = []
    for n in layer_matrix_elements(spec):
        if not records or n > records[-1]:
            records.append(n)
    return records


def load_staging_bytes(spec: ModelSpec, weight_loading: str, *, quantised_base: bool, base_bytes_per_param: float,
                       sharded_gpus: int) -> float:
    """The transient bytes the loader ``weight_loading`` holds at once while loading (see the module docstring).

    Args:
        quantised_base: the base is quantised to NF4 while loading (QLoRA).
        base_bytes_per_param: bytes per parameter of the 16-bit (or 32-bit) checkpoint tensors on the device.
        sharded_gpus: GPUs the base is sharded over (``fsdp1-sync-states`` needs 2 or more).

    Raises:
        SizingError: an unknown loader, ``nf4-nearest-search`` without a 4-bit base, or ``fsdp1-sync-states``
            without sharding.
    """
    loader = choice("weight_loading", weight_loading, WEIGHT_LOADERS)
    if not spec.is_transformer:
        return 0.0
    largest = float(largest_matrix_elements(spec))
    records = float(sum(staging_size_records(spec)))
    if loader == "per-tensor":
        out_bytes = weight_bits_per_param("nf4-dq") / 8 if quantised_base else 0.0
        return records * (base_bytes_per_param + out_bytes)
    if loader == "nf4-nearest-search":
        if not quantised_base:
            raise SizingError("weight_loading", _("nf4-nearest-search applies to a base quantised to NF4 while "
                                                  "loading (mode qlora)."))
        # input + scaled blocks of the largest matrix; (value - codes) and its abs(), each 16 elements per weight,
        # in segments of their own for each size (module docstring)
        return largest * base_bytes_per_param * 2 + records * base_bytes_per_param * 2 * NF4_CODES
    if sharded_gpus < 2:
        raise SizingError("weight_loading", _("fsdp1-sync-states applies to FSDP1 full sharding over 2 or more GPUs "
                                              "(sharding fsdp, FSDP version 1)."))
    layers = max(1, spec.layers or 1)
    layer_bytes = (spec.params - spec.embedding_params) / layers * (
        weight_bits_per_param("nf4-dq") / 8 if quantised_base else base_bytes_per_param)
    root_bytes = spec.embedding_params * base_bytes_per_param
    return 2.0 * max(layer_bytes, root_bytes)


def add_loading_reserve(parts: dict[str, float], resident_bytes: float, staging_bytes: float) -> float:
    """Add ``loading_reserve`` to ``parts`` in place: the reserved memory left by loading beyond what training
    reserves (``max(loading, training) - training``; allocator cache, not allocated). Returns the bytes added.

    Call it after :func:`gpudesk.sizing.overheads.add_overheads` (the training figure includes ``fragmentation``).
    """
    not_reserved = ("cuda_context", "framework_overhead", "paged_optimizer_states")
    training_reserved = sum(v for k, v in parts.items() if k not in not_reserved)
    extra = max(0.0, resident_bytes + staging_bytes - training_reserved)
    if extra:
        parts["loading_reserve"] = extra
    return extra
