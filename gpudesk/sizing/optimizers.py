"""Optimizer names users type (Hugging Face ``optim=``, torchtune, bitsandbytes) and the bytes each keeps per parameter.

Model states per parameter = weights + master weights + gradients + optimizer states, by parameter precision:

- ``mixed`` (``bf16``/``fp16``/``fp8`` compute with an fp32 master copy; Megatron, DeepSpeed, torchtitan FSDP2
  ``MixedPrecisionPolicy(param_dtype=bf16)`` over fp32 sharded parameters): 2 + 4 + 2 + states.
- ``fp32`` and ``fp16-amp`` (torch.cuda.amp over fp32 parameters, Hugging Face Trainer ``fp16=True``): 4 + 0 + 4 +
  states; AMP adds the fp16 casts of the weights that autocast caches for the backward pass (2 B/param,
  https://pytorch.org/docs/stable/amp.html "cache_enabled").
- ``bf16-pure`` (parameters, gradients and optimizer states all in bf16, as torchtune's ``dtype: bf16`` recipes):
  2 + 0 + 2 + states, the states in the parameter dtype (torch.optim.AdamW allocates ``exp_avg`` with
  ``torch.zeros_like(p)``, https://github.com/pytorch/pytorch/blob/main/torch/optim/adamw.py).

States per parameter: Adam/AdamW two moments (``2 x state dtype``; Kingma & Ba 2014, arXiv 1412.6980);
8-bit Adam two 1-byte moments plus 2 fp32 absmax per 2048-block, ~2 B (Dettmers et al. 2021, arXiv 2110.02861;
bitsandbytes ``PagedAdamW8bit`` pages the same 2 B to host under pressure); Adafactor factored second moment,
``rows + cols`` values per matrix, ~0 B/param for transformer matrices (Shazeer & Stern 2018, arXiv 1804.04235);
SGD with momentum one state; Muon one momentum buffer for the 2-D hidden matrices, AdamW's two for the rest
(:func:`muon_adamw_params`; Jordan et al. 2024, https://kellerjordan.github.io/posts/muon/).
"""

from __future__ import annotations

from gpudesk.i18n import _
from gpudesk.sizing.checks import choice
from gpudesk.sizing.errors import SizingError

# Accounting names kept from the first version of the estimator (mixed precision; bytes/param).
LEGACY_ACCOUNTING: dict[str, tuple[float, float, float, float]] = {
    "adam-16": (2, 4, 2, 8),
    "adam-18": (2, 4, 4, 8),
    "adam-20": (2, 4, 6, 8),
    "adamw-bf16": (2, 0, 2, 4),
    "adam-8bit": (2, 4, 2, 2),
    "sgd": (2, 4, 2, 4),
}
# User-facing names -> optimizer family.
OPTIMIZER_ALIASES: dict[str, str] = {
    "adam": "adam", "adamw": "adam", "adamw_torch": "adam", "adamw_torch_fused": "adam", "adamw_hf": "adam",
    "adamw_apex_fused": "adam", "fused_adam": "adam",
    "adamw_8bit": "adam-8bit", "adamw_bnb_8bit": "adam-8bit", "adam8bit": "adam-8bit", "adam_8bit": "adam-8bit",
    "paged_adamw_8bit": "adam-8bit", "paged_adamw8bit": "adam-8bit", "pagedadamw8bit": "adam-8bit",
    "paged_adamw": "adam", "paged_adamw_32bit": "adam", "pagedadamw": "adam",
    "adafactor": "adafactor", "sgd": "sgd", "sgd_momentum": "sgd",
    # torch.optim.SGD with momentum=0 (its default) creates no ``momentum_buffer``: no state at all.
    "sgd_plain": "sgd-plain",
    # Muon (MomentUm Orthogonalized by Newton-Schulz): one ``momentum_buffer`` (``torch.zeros_like(grad)``) per 2-D
    # weight matrix (KellerJordan/Muon muon.py ``Muon.step``; torch.optim.Muon, PyTorch 2.9 ``torch/optim/_muon.py``;
    # Moonlight ``examples/toy_train.py``, MoonshotAI/Moonlight; ms-swift ``--optimizer muon`` builds the Moonlight
    # one). Every implementation hands the embeddings, the LM head, norms and biases to AdamW instead
    # (:func:`muon_adamw_params`).
    "muon": "muon",
}
PARAM_PRECISIONS = ("bf16", "fp16", "fp8", "fp32", "fp16-amp", "bf16-amp", "bf16-pure")
# ``sgd`` is both an accounting name and an alias: listed once (dict.fromkeys keeps the first, in order).
OPTIMIZER_NAMES: tuple[str, ...] = tuple(dict.fromkeys((*LEGACY_ACCOUNTING, *OPTIMIZER_ALIASES)))
# family -> (number of states, bytes of one state per parameter in fp32)
_STATE_COUNT: dict[str, float] = {"adam": 2, "adam-8bit": 2, "adafactor": 0, "sgd": 1, "sgd-plain": 0, "muon": 1}


def precision_family(precision: str) -> str:
    """``mixed`` (16/8-bit compute over an fp32 master), ``fp32`` (fp32 params, incl. AMP) or ``pure`` (bf16 params)."""
    prec = choice("precision", precision, PARAM_PRECISIONS)
    if prec in ("fp32", "fp16-amp", "bf16-amp"):
        return "fp32"
    if prec == "bf16-pure":
        return "pure"
    return "mixed"


def optimizer_bytes_per_param(optimizer: str, precision: str = "bf16") -> tuple[float, float, float, float]:
    """(weights, master_weights, gradients, optimizer_states) bytes per parameter before sharding.

    Raises:
        SizingError: unknown optimizer or precision; ``adamw-bf16`` with fp32 parameters.
    """
    name = str(optimizer).strip().lower()
    family = precision_family(precision)
    if name in LEGACY_ACCOUNTING:
        if family == "mixed":
            return LEGACY_ACCOUNTING[name]
        if name == "adamw-bf16":
            if family == "fp32":
                raise SizingError("optimizer", _("adamw-bf16 keeps bf16 states; it does not apply to fp32 training."))
            return LEGACY_ACCOUNTING[name]
        name = {"adam-8bit": "adam-8bit", "sgd": "sgd"}.get(name, "adam")
    if name not in OPTIMIZER_ALIASES and name not in _STATE_COUNT:
        raise SizingError("optimizer", _("unknown optimizer {name!r}; use one of {names}.").format(
            name=optimizer, names=", ".join(OPTIMIZER_NAMES)))
    fam = OPTIMIZER_ALIASES.get(name, name)
    states = _STATE_COUNT[fam]
    if family == "fp32":
        per_state = 1.0 if fam == "adam-8bit" else 4.0
        return (4.0, 0.0, 4.0, states * per_state)
    if family == "pure":
        per_state = 1.0 if fam == "adam-8bit" else 2.0
        return (2.0, 0.0, 2.0, states * per_state)
    per_state = 1.0 if fam == "adam-8bit" else 4.0
    return (2.0, 4.0, 2.0, states * per_state)


# PyTorch's default (``foreach``) Adam/AdamW step on CUDA (PyTorch >= 2.0, ``_default_to_fused_or_foreach``) builds
# ``exp_avg_sq.sqrt()`` for every parameter at once (``torch._foreach_sqrt`` in ``_multi_tensor_adamw``,
# https://github.com/pytorch/pytorch/blob/v2.4.0/torch/optim/adamw.py), a temporary the size of one optimizer state,
# alive with all gradients during ``optimizer.step()``. ``fused`` (``fused=True``: HF ``adamw_torch_fused``,
# apex/DeepSpeed FusedAdam) and ``for-loop`` (one parameter at a time: PyTorch 1.x default, HF ``adamw_hf``)
# keep no such copy. The accounting names (adam-16/18/20) describe fused Megatron/DeepSpeed optimizers.
OPTIMIZER_IMPLS = ("foreach", "fused", "for-loop")
_FUSED_NAMES = frozenset({"adamw_torch_fused", "adamw_apex_fused", "fused_adam"})


def is_paged(optimizer: str) -> bool:
    """bitsandbytes paged optimizers (``paged_adamw``, ``paged_adamw_8bit``): states in CUDA unified memory."""
    return str(optimizer).strip().lower().startswith("paged")


def optimizer_alias_groups() -> tuple[tuple[str, bool, tuple[str, ...]], ...]:
    """The names of :data:`OPTIMIZER_ALIASES` grouped by what they are sized as: ``(family, paged, names)`` in the
    table's order, the bitsandbytes paged names (:func:`is_paged`) apart from the unpaged ones of their family. The
    one source of the lists the wizard's Optimizer help shows."""
    groups: dict[tuple[str, bool], list[str]] = {}
    for name, family in OPTIMIZER_ALIASES.items():
        groups.setdefault((family, is_paged(name)), []).append(name)
    return tuple((family, paged, tuple(names)) for (family, paged), names in groups.items())


def step_temporary_bytes_per_param(optimizer: str, precision: str = "bf16", implementation: str = "foreach") -> float:
    """Bytes per parameter of the temporaries ``optimizer.step()`` allocates for all parameters at once: one
    state-sized tensor for a ``foreach`` Adam/AdamW (see :data:`OPTIMIZER_IMPLS`), 0 otherwise.

    Fused names (``adamw_torch_fused``), the accounting names, 8-bit, paged (bitsandbytes kernels), Adafactor and
    SGD keep none.

    Raises:
        SizingError: unknown optimizer, precision or implementation.
    """
    impl = choice("optimizer_impl", implementation, OPTIMIZER_IMPLS)
    name = str(optimizer).strip().lower()
    states = optimizer_bytes_per_param(optimizer, precision)[3]
    if (impl != "foreach" or name in _FUSED_NAMES or name in LEGACY_ACCOUNTING or is_paged(name)
            or OPTIMIZER_ALIASES.get(name) != "adam"):
        return 0.0
    return states / 2


# DeepSpeed ZeRO-3 steps its fp32 partition one sub-group at a time (``DeepSpeedZeroOptimizer_Stage3.step``:
# ``_prepare_fp32_grad_for_sub_group`` -> ``_optimizer_step`` -> ``_release_sub_group`` frees the fp32 gradient,
# https://github.com/deepspeedai/DeepSpeed/blob/v0.14.0/deepspeed/runtime/zero/stage3.py), each sub-group at most
# ``sub_group_size`` elements (default 1e9: ``DeepSpeedZeroConfig.sub_group_size``,
# https://github.com/deepspeedai/DeepSpeed/blob/v0.14.0/deepspeed/runtime/zero/config.py and the ZeRO docs,
# https://www.deepspeed.ai/docs/config-json/#parameter-offloading). PyTorch FSDP has no sub-groups.
ZERO3_SUB_GROUP_ELEMENTS = 1_000_000_000
ZERO3_SUB_GROUP_FP32_GRAD_BYTES = 4.0
# The fp32 gradient of a sub-group is cast from a flat copy of its 16-bit gradient partitions:
# ``_prepare_fp32_grad_for_sub_group`` runs ``self.flatten(self.averaged_gradients[sub_group_id]).to(fp32)``, where
# ``self.flatten`` is ``torch._utils._flatten_dense_tensors`` (a ``torch.cat`` of the per-parameter partition views
# for more than one tensor), so the 16-bit flat tensor and its fp32 cast are both alive while ``.to`` runs; the flat
# one is dropped when the statement ends, before ``_optimizer_step`` makes the step's temporaries
# (https://github.com/deepspeedai/DeepSpeed/blob/v0.11.1/deepspeed/runtime/zero/stage3.py lines 143 and 1726-1745;
# the same at v0.14.2, lines 147 and 1847-1851). With fp32 gradients ``.to(fp32)`` returns its input: no second copy.
# Every DeepSpeed release read makes this copy, so it is always counted (no setting: a user has no switch for it).


def zero3_sub_group_step_bytes(partition_params: float, optimizer: str, precision: str = "bf16",
                               implementation: str = "foreach", grad_bytes: float = 4.0) -> float:
    """Bytes alive for the optimizer step of DeepSpeed ZeRO-3 beyond the persistent model states: one sub-group
    (the rank's partition, capped at :data:`ZERO3_SUB_GROUP_ELEMENTS`) of fp32 gradient made from the 16-bit
    gradient partition, plus the larger of the step's temporaries for that sub-group
    (:func:`step_temporary_bytes_per_param`) and the flat 16-bit copy the fp32 gradient is cast from
    (see the comment above; ``grad_bytes`` is the gradient partition's element size, 4 for fp32
    gradients, where the cast makes no second copy). The accounting names (adam-16/18/20) are closed
    per-parameter accountings of fused optimizers and add nothing.

    Raises:
        SizingError: unknown optimizer, precision or implementation.
    """
    if _closed_accounting(optimizer):
        choice("optimizer_impl", implementation, OPTIMIZER_IMPLS)
        return 0.0
    elements = min(float(partition_params), float(ZERO3_SUB_GROUP_ELEMENTS))
    flat_copy = grad_bytes if grad_bytes < ZERO3_SUB_GROUP_FP32_GRAD_BYTES else 0.0
    per_param = ZERO3_SUB_GROUP_FP32_GRAD_BYTES + max(
        flat_copy, step_temporary_bytes_per_param(optimizer, precision, implementation))
    return elements * per_param


# DeepSpeed ZeRO-1/2 and Colossal-AI's ZeRO-1/2 (``LowLevelZeroOptimizer``) step the fp32 master partition with an
# fp32 copy of the 16-bit gradient partition, made while the 16-bit partition is still held: DeepSpeed
# ``DeepSpeedZeroOptimizer.step`` builds ``single_grad_partition = self.flatten(self.averaged_gradients[i]).to(fp32)``
# for a whole parameter group before ``free_grad_in_param_list`` drops the 16-bit gradients
# (https://github.com/deepspeedai/DeepSpeed/blob/v0.14.0/deepspeed/runtime/zero/stage_1_and_2.py); Colossal-AI
# ``LowLevelZeroOptimizer.step`` converts every partitioned gradient with ``grad.to(master_param.dtype)`` and keeps
# them all in ``grad_partition_groups`` until ``self.optim.step()`` returns, the 16-bit partition staying in its
# gradient store (https://github.com/hpcaitech/ColossalAI/blob/d888c3787c38e6cd3a00193a1cac4939dd56a377/colossalai/
# zero/low_level/low_level_optim.py). With the optimizer offloaded the copy goes to host memory.
ZERO12_FP32_GRAD_BYTES = ZERO3_SUB_GROUP_FP32_GRAD_BYTES  # the same fp32 gradient element, 4 bytes


# The names of :data:`LEGACY_ACCOUNTING` that are optimizers, not closed accountings: their tuple gives the states of
# 8-bit Adam / SGD with momentum, and the ZeRO step still makes its fp32 gradient partition for them. DeepSpeed's
# ``DeepSpeedZeroOptimizer.step`` (``flat_grad_partition.to(self.single_partition_of_fp32_groups[i].dtype)``) and
# ``DeepSpeedZeroOptimizer_Stage3._prepare_fp32_grad_for_sub_group`` (``.to(self.fp32_partitioned_groups_flat[
# sub_group_id].dtype)``) build it whatever ``self.optimizer`` is
# (https://github.com/deepspeedai/DeepSpeed/blob/edaa7221267243c7be7fb49c5d5f5c4fb97b4641/deepspeed/runtime/zero/
# stage_1_and_2.py and .../stage3.py), as Colossal-AI's ``LowLevelZeroOptimizer.step`` does (d888c378, above).
_OPTIMIZER_ACCOUNTINGS = frozenset({"adam-8bit", "sgd"})


def _closed_accounting(optimizer: str) -> bool:
    """Whether ``optimizer`` is one of the closed per-parameter accountings (:data:`LEGACY_ACCOUNTING`: adam-16/18/20,
    adamw-bf16), which already count every byte of the step; ``adam-8bit`` and ``sgd`` are optimizers
    (:data:`_OPTIMIZER_ACCOUNTINGS`)."""
    name = str(optimizer).strip().lower()
    return name in LEGACY_ACCOUNTING and name not in _OPTIMIZER_ACCOUNTINGS


def zero12_step_bytes(partition_params: float, optimizer: str, per_param: tuple[float, float, float, float]) -> float:
    """Bytes alive for the optimizer step of ZeRO-1/2 beyond the persistent model states: the fp32 copy of this
    rank's gradient partition (:data:`ZERO12_FP32_GRAD_BYTES` per parameter), when the accounting keeps fp32 master
    weights and 16-bit gradients. The accounting names (adam-16/18/20) are closed per-parameter accountings and add
    nothing; so do runs without a master copy (pure 16-bit or fp32 training)."""
    if _closed_accounting(optimizer) or not per_param[1] or per_param[2] >= ZERO12_FP32_GRAD_BYTES:
        return 0.0
    return float(partition_params) * ZERO12_FP32_GRAD_BYTES


# The fp32 gradients a mixed-precision optimizer (16-bit parameters, fp32 master weights) gives its master weights for
# the step under plain data parallelism, where nothing shards them: Megatron-LM's fp16 optimizer sets
# ``main_param.grad = model_param.grad.float()`` for every parameter before unscaling, clipping and stepping
# (https://github.com/NVIDIA/Megatron-LM/blob/63121a9e0f5b85dcff046fb2f918557f0c885594/megatron/optimizer/optimizer.py
# ``_copy_model_grads_to_main_grads``, lines 298-307), and DeepSpeed's non-ZeRO ``FP16_Optimizer.step`` flattens
# ``p.grad.to(fp32)`` of every parameter into ``fp32_groups_flat[i].grad`` before the 16-bit gradients are dropped
# (https://github.com/deepspeedai/DeepSpeed/blob/v0.14.2/deepspeed/runtime/fp16/fused_optimizer.py lines 282-291).
# The bigscience 2021 Megatron 52B log (experiments/gpt2-meg-ds-3d/meg_ds_3d_gpt2_perf_n16-ds-off.out at 6980df2d) reads
# it: its middle ranks' ``max allocated`` after the first iteration is 15,492.8 MiB for 805,560,320 parameters, 20.2
# bytes a parameter = 16-bit weights 2 + fp32 master 4 + 16-bit gradients 2 + Adam 8 + fp32 gradients 4 (apex
# FusedAdam keeps no temporaries). ZeRO-1/2 count the same element for their partition (:func:`zero12_step_bytes`).
DDP_MASTER_GRAD_BYTES = ZERO12_FP32_GRAD_BYTES


def ddp_master_grad_step_bytes(rank_params: float, optimizer: str, per_param: tuple[float, float, float, float]
                               ) -> float:
    """Bytes of the fp32 gradients of this rank's master weights at the optimizer step under plain data
    parallelism (:data:`DDP_MASTER_GRAD_BYTES` a parameter), when the accounting keeps fp32 master weights beside
    16-bit gradients; nothing for the closed accountings (adam-16/18/20, adamw-bf16), pure 16-bit or fp32 training,
    or gradients already kept in fp32 (``fp32_grad_buffer``)."""
    if _closed_accounting(optimizer) or not per_param[1] or per_param[2] >= DDP_MASTER_GRAD_BYTES:
        return 0.0
    return float(rank_params) * DDP_MASTER_GRAD_BYTES


def optimizer_source(optimizer: str) -> str:
    """The citation for an optimizer's state size."""
    fam = OPTIMIZER_ALIASES.get(str(optimizer).lower(), str(optimizer).lower())
    return {
        "adam": "Kingma & Ba 2014 (arXiv 1412.6980); ZeRO paper (arXiv 1910.02054) section 3.1",
        "adam-8bit": "Dettmers et al. 2021, 8-bit optimizers (arXiv 2110.02861)",
        "adam-16": "ZeRO paper (arXiv 1910.02054): 2+2+12 = 16 B/param",
        "adam-18": "Megatron-LM theoretical_memory_usage.py / NVIDIA/Megatron-LM#654: 18 B/param",
        "adam-20": "MT-NLG 530B (arXiv 2201.11990) and DeepSpeed estimate_zero2 2P+18P/N: 20 B/param",
        "adamw-bf16": "pure-bf16 AdamW, huggingface/transformers PR 21312: 8 B/param",
        "adafactor": "Shazeer & Stern 2018, Adafactor (arXiv 1804.04235): factored second moment",
        "sgd": "EleutherAI Transformer Math 101: SGD with momentum, one state",
        "sgd-plain": "torch/optim/sgd.py: momentum 0 keeps no momentum_buffer",
        "muon": "Muon (KellerJordan/Muon, torch.optim.Muon, Moonlight arXiv 2502.16982): one momentum buffer per 2-D "
                "hidden matrix, AdamW's two for embeddings, LM head and norms",
    }.get(fam, "gpudesk.sizing.optimizers")


def is_muon(optimizer: str) -> bool:
    """Whether ``optimizer`` names Muon (:data:`OPTIMIZER_ALIASES`)."""
    return OPTIMIZER_ALIASES.get(str(optimizer).strip().lower()) == "muon"


# Muon orthogonalises only 2-D hidden matrices: KellerJordan/Muon's README and ``MuonWithAuxAdam`` put
# "embeddings, classifier heads, and hidden gains/biases" in an AdamW group (https://github.com/KellerJordan/Muon,
# muon.py), torch.optim.Muon accepts 2-D parameters only and its docs send the rest to AdamW
# (https://docs.pytorch.org/docs/stable/generated/torch.optim.Muon.html), and Moonlight's toy_train.py selects
# ``p.ndim >= 2 and "embed_tokens" not in name and "lm_head" not in name`` for Muon, the rest for its internal AdamW
# with ``moment1`` and ``moment2`` (https://github.com/MoonshotAI/Moonlight, examples/toy_train.py at c2ad5b20, lines
# 186-187, 222-223 and 296-302; KellerJordan/Muon muon.py at 857d1adc, ``Muon`` docstring). Those parameters
# keep AdamW's two states, one more than Muon's momentum.
MUON_ADAMW_EXTRA_STATES = 1


def muon_adamw_params(embedding_params: int, hidden_size: int, layers: int) -> int:
    """Parameters a Muon run hands to AdamW in a pre-norm decoder: the token embedding and an untied LM head
    (``embedding_params``) and the RMSNorm gains, two per layer and the final one (biases, where a model has
    them, are left out: a few thousand a layer)."""
    return int(embedding_params) + (2 * int(layers) + 1) * int(hidden_size)


def muon_step_temporary_bytes(rows: int, cols: int, grad_bytes: float = 2.0) -> float:
    """Bytes of the temporaries of one Muon update, for the largest 2-D matrix (the step runs parameter by
    parameter, so only one matrix's are alive): the Nesterov blend of gradient and momentum (Moonlight's
    ``g.add(buf, alpha=momentum)`` makes a gradient-sized tensor in the gradient's dtype; KellerJordan's
    ``grad.lerp_`` works in place), then ``zeropower_via_newtonschulz5``: ``X = G.bfloat16()`` and its normalised
    copy, and per iteration ``A = X @ X.T`` (m x m, m the smaller side), ``B = b A + c A @ A`` (``A @ A`` and the
    sum, m x m each) and ``X = a X + B @ X`` (two m x n), all bf16 (2 bytes). Sources: KellerJordan/Muon muon.py at
    857d1adc (2025-11-23), Moonlight examples/toy_train.py at c2ad5b20 (2025-08-02) lines 49-72 and 180-191. Upper
    bound: every listed tensor alive at once."""
    m, n = sorted((max(0, int(rows)), max(0, int(cols))))
    return float(m * n) * grad_bytes + 2.0 * (3 * m * n + 3 * m * m)
