"""The parameters DeepSpeed ZeRO-3 holds gathered on a GPU, walked over one training step's module trace.

ZeRO-3 keeps each parameter as a 1/N partition and all-gathers it when a module runs
(``PartitionedParameterCoordinator.fetch_sub_module``). What is gathered at once, per
https://github.com/deepspeedai/DeepSpeed/blob/v0.13.1/deepspeed/runtime/zero/partitioned_param_coordinator.py
and the ZeRO-3 settings (https://www.deepspeed.ai/docs/config-json/#parameter-offloading, "ZeRO optimizations"):

- ``stage3_max_reuse_distance`` (default 1e9 elements): after a module runs, ``__params_to_release`` walks the
  rest of the step's module trace (``__submodule_order[step_id:]``, forward then backward) until it has passed that
  many parameter elements; a parameter met again on the way is not released. The last decoder layers of the
  forward pass are met again in the backward pass after ``2 x`` the parameters behind them (their own recompute
  or backward, the LM head forward and backward between), so about ``max_reuse_distance / 2`` elements of them stay
  gathered at the turn from forward to backward. The window ends with the step: nothing is kept across steps.
- ``stage3_prefetch_bucket_size``: the parameters of the next modules fetched ahead of use (Hugging Face's
  ``"auto"``: ``0.9 x hidden^2``; DeepSpeed's default 5e7, :data:`ZERO3_DEFAULTS`), capped by
  ``stage3_max_live_parameters`` (default 1e9).
- ``stage3_param_persistence_threshold``: parameters smaller than this are never partitioned (``ds_persist``):
  norms and biases (``"auto"``: ``10 x hidden``; default 1e5).
- ``reduce_bucket_size``: the gradient bucket ZeRO-3 reduce-scatters from, a flat 16-bit buffer of that many
  elements on the GPU for the whole run (``stage3.py`` ``__ipg_bucket_flat_buffer``; ``"auto"``: ``hidden^2``;
  default 5e8), beside the gradient of the module being reduced.

The trace is built from the model's shapes at Linear granularity: the embedding, per layer q, k, v, o and the MLP's
two (plain) or three (gated) matrices, then the LM head (the embedding again when tied); with activation
checkpointing each layer's forward modules run again before its backward. Offloading the parameters
(``offload_param``) moves the partitions, not the gathered copies: they are the same on the GPU.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpudesk.i18n import _
from gpudesk.sizing.shapes import ModelSpec

# DeepSpeed ZeRO-3 defaults (deepspeed/runtime/zero/config.py: ZeroConfig field defaults, v0.13.1; the same at
# v0.14.2, 5f631abc, lines 105-223, and as ZERO_OPTIMIZATION_*_DEFAULT in deepspeed/runtime/zero/constants.py at
# v0.6.5).
DEFAULT_MAX_REUSE_DISTANCE = 1_000_000_000
DEFAULT_MAX_LIVE_PARAMETERS = 1_000_000_000
DEEPSPEED_PREFETCH_BUCKET = 50_000_000  # stage3_prefetch_bucket_size: pp_int(5e7)
DEEPSPEED_PERSISTENCE_THRESHOLD = 100_000  # stage3_param_persistence_threshold: pp_int(1e5)
DEEPSPEED_REDUCE_BUCKET = 500_000_000  # reduce_bucket_size: pp_int(5e8)

# Where a size the user does not give comes from (``--zero3-defaults``):
# - ``hf-auto``: the config says ``"auto"`` and Hugging Face fills it from the hidden size ``h`` before DeepSpeed
#   starts: reduce bucket ``h^2``, prefetch bucket ``0.9 h^2``, persistence threshold ``10 h``
#   (transformers ``integrations/deepspeed.py`` ``trainer_config_finalize``; accelerate ``Accelerator._prepare_deepspeed``,
#   v0.21.0 8514c351 ``accelerator.py`` lines 1479-1493). The Trainer's and the usual example configs.
# - ``deepspeed``: the config leaves the key out, so DeepSpeed's own default holds. accelerate fills a key only where
#   the config says ``"auto"`` (``HfDeepSpeedConfig`` ``fill_match``: ``if config.get(ds_key) == "auto"``,
#   ``utils/dataclasses.py`` lines 613-629 at v0.21.0) and the config its ``DeepSpeedPlugin`` builds without a
#   config file has no bucket keys (lines 580-598): ``accelerate config`` with DeepSpeed and no file, a plain
#   ``deepspeed.initialize`` with a config that names none of them.
ZERO3_DEFAULTS = ("hf-auto", "deepspeed")


@dataclass(frozen=True)
class Zero3Settings:
    """ZeRO-3 parameter settings in elements; None: filled as ``unset`` says (:data:`ZERO3_DEFAULTS`), Hugging
    Face's ``"auto"`` fill from the hidden size or DeepSpeed's own defaults."""

    max_reuse_distance: int = DEFAULT_MAX_REUSE_DISTANCE
    max_live_parameters: int = DEFAULT_MAX_LIVE_PARAMETERS
    prefetch_bucket_size: int | None = None
    param_persistence_threshold: int | None = None
    reduce_bucket_size: int | None = None
    unset: str = "hf-auto"
    # The model was built outside ``deepspeed.zero.Init``: autograd keeps the gathered Linear weights
    # (gpudesk.sizing.zero3_outside_init).
    outside_init: bool = False

    def resolved(self, hidden: int) -> tuple[int, int, int, int, int]:
        """(reuse distance, max live, prefetch bucket, persistence threshold, reduce bucket) with the sizes not
        given filled as :attr:`unset` says."""
        if self.unset == "deepspeed":
            fill = (DEEPSPEED_PREFETCH_BUCKET, DEEPSPEED_PERSISTENCE_THRESHOLD, DEEPSPEED_REDUCE_BUCKET)
        else:
            fill = (int(0.9 * hidden * hidden), 10 * hidden, hidden * hidden)
        prefetch = self.prefetch_bucket_size if self.prefetch_bucket_size is not None else fill[0]
        persist = self.param_persistence_threshold if self.param_persistence_threshold is not None else fill[1]
        reduce = self.reduce_bucket_size if self.reduce_bucket_size is not None else fill[2]
        return self.max_reuse_distance, self.max_live_parameters, prefetch, persist, reduce


def _layer_modules(spec: ModelSpec, tensor_parallel: int) -> list[int]:
    """Parameter counts of one decoder layer's Linear modules, in forward order."""
    h = spec.hidden_size or 0
    heads = spec.num_attention_heads or 0
    d = spec.head_dim_resolved if heads else 0
    kv = spec.kv_heads_resolved if heads else 0
    attention = [h * heads * d, h * kv * d, h * kv * d, heads * d * h]
    vocab_tables = spec.embedding_params
    layer = max(0, (spec.params - vocab_tables) // max(1, spec.layers or 1))
    mlp = max(0, layer - sum(attention))
    parts = 3 if spec.gated else 2
    return [x // tensor_parallel for x in attention + [mlp // parts] * parts]


def _vocab_table(spec: ModelSpec, tensor_parallel: int) -> int:
    """Parameter count of one vocabulary table (the embedding, or an untied LM head) on one GPU."""
    return (spec.vocab_size or 0) * (spec.hidden_size or 0) // tensor_parallel


def step_trace(spec: ModelSpec, recompute: bool, tensor_parallel: int = 1) -> list[tuple[int, int]]:
    """One training step's module trace as ``(module id, parameters)``, forward then backward."""
    layers = spec.layers or 0
    per_layer = _layer_modules(spec, tensor_parallel)
    table = _vocab_table(spec, tensor_parallel)
    embed, head = 0, (0 if spec.tied_embeddings else 1)

    def layer_ids(i: int) -> list[tuple[int, int]]:
        return [(2 + i * len(per_layer) + j, n) for j, n in enumerate(per_layer)]

    forward = [(embed, table)] + [m for i in range(layers) for m in layer_ids(i)] + [(head, table)]
    backward = [(head, table)]
    for i in reversed(range(layers)):
        if recompute:
            backward += layer_ids(i)
        backward += list(reversed(layer_ids(i)))
    backward.append((embed, table))
    return forward + backward


def peak_gathered_params(spec: ModelSpec, settings: Zero3Settings, recompute: bool, tensor_parallel: int = 1) -> int:
    """The most parameter elements gathered at once over a step (module docstring): the module running, those
    kept for reuse within ``max_reuse_distance``, and the prefetched ones (at most ``max_live_parameters`` in all)."""
    reuse, max_live, prefetch, persist, _reduce = settings.resolved(spec.hidden_size or 0)
    trace = [(mid, n) for mid, n in step_trace(spec, recompute, tensor_parallel) if n >= persist]
    # Elements passed before each position, and where each module is met next.
    before = [0]
    for _mid, n in trace:
        before.append(before[-1] + n)
    next_use: list[int | None] = [None] * len(trace)
    seen: dict[int, int] = {}
    for step in reversed(range(len(trace))):
        next_use[step] = seen.get(trace[step][0])
        seen[trace[step][0]] = step
    gathered: dict[int, int] = {}
    held = peak = 0
    for step, (mid, n) in enumerate(trace):
        if mid not in gathered:
            gathered[mid] = n
            held += n
        ahead, fetched = step + 1, 0
        while ahead < len(trace) and fetched < prefetch:
            if trace[ahead][0] not in gathered:
                fetched += trace[ahead][1]
            ahead += 1
        peak = max(peak, held + min(fetched, max(0, max_live - held)))
        # __params_to_release: the module stays gathered if the walk meets it again before passing `reuse` elements.
        again = next_use[step]
        if again is None or before[again] - before[step + 1] >= reuse:
            held -= gathered.pop(mid)
    return peak


def persistent_params(spec: ModelSpec, settings: Zero3Settings, tensor_parallel: int = 1) -> int:
    """Elements never partitioned: Linear modules below the persistence threshold (norms and biases, a few
    ``hidden`` per layer, are left out: under any threshold they are a rounding error)."""
    _reuse, _live, _prefetch, persist, _reduce = settings.resolved(spec.hidden_size or 0)
    small = [n for n in _layer_modules(spec, tensor_parallel) if n < persist]
    return sum(small) * (spec.layers or 0)


def zero3_gathered_bytes(spec: ModelSpec, settings: Zero3Settings, param_bytes: float, grad_bytes: float,
                         recompute: bool, tensor_parallel: int = 1) -> float:
    """Bytes ZeRO-3 holds beyond the partitions: the gathered parameters at their peak and the persistent ones at
    ``param_bytes`` each, one module's unreduced gradient and the reduce bucket at ``grad_bytes``."""
    _reuse, _live, _prefetch, _persist, reduce = settings.resolved(spec.hidden_size or 0)
    largest_module = max(_layer_modules(spec, tensor_parallel) + [_vocab_table(spec, tensor_parallel)])
    gathered = peak_gathered_params(spec, settings, recompute, tensor_parallel) + persistent_params(
        spec, settings, tensor_parallel)
    return gathered * param_bytes + (largest_module + reduce) * grad_bytes


def zero3_frozen_gathered_bytes(spec: ModelSpec, settings: Zero3Settings, param_bytes: float, recompute: bool,
                                tensor_parallel: int = 1) -> float:
    """Bytes ZeRO-3 holds beyond the partitions when the base is frozen (LoRA): the same gathered and persistent
    parameters as :func:`zero3_gathered_bytes` (``Init`` partitions every parameter, trained or not, and the
    coordinator fetches a module's parameters whatever their ``requires_grad``), and the reduce bucket, which
    ``DeepSpeedZeroOptimizer_Stage3._setup_for_real_optimizer`` allocates on the GPU (``torch.empty(
    self.reduce_bucket_size, dtype=self.dtype, device=current_device_name())`` when ``contiguous_gradients``,
    DeepSpeed's default) also when the optimizer is offloaded and only adapters are trained. No frozen module has
    a gradient to reduce, so none is counted beside the bucket.
    https://github.com/deepspeedai/DeepSpeed/blob/v0.13.1/deepspeed/runtime/zero/stage3.py"""
    _reuse, _live, _prefetch, _persist, reduce = settings.resolved(spec.hidden_size or 0)
    gathered = peak_gathered_params(spec, settings, recompute, tensor_parallel) + persistent_params(
        spec, settings, tensor_parallel)
    return (gathered + reduce) * param_bytes


def gathered_assumption(gathered_bytes: float, settings: Zero3Settings, hidden_size: int) -> tuple[str, str]:
    """The assumption line (text, source) for the gathered window :func:`zero3_gathered_bytes` or
    :func:`zero3_frozen_gathered_bytes` counted, with the settings as resolved for ``hidden_size``."""
    reuse, live, prefetch, persist, reduce = settings.resolved(hidden_size)
    return (_("DeepSpeed ZeRO-3 gathers each module's parameters as it runs, {gib:.2f} GiB at the peak "
              "with the reduce bucket: max reuse distance {reuse:,}, max live parameters {live:,}, "
              "prefetch bucket {prefetch:,}, persistence threshold {persist:,}, reduce bucket "
              "{reduce:,} elements").format(gib=gathered_bytes / 2**30, reuse=reuse, live=live,
                                            prefetch=prefetch, persist=persist, reduce=reduce),
            "deepspeed/runtime/zero/partitioned_param_coordinator.py, stage3.py (v0.13.1); "
            "deepspeed/runtime/zero/config.py; gpudesk.sizing.zero3_params")


def zero3_gathered_split(spec: ModelSpec, settings: Zero3Settings, param_bytes: float, grad_bytes: float,
                         recompute: bool, tensor_parallel: int = 1) -> tuple[float, float, float]:
    """:func:`zero3_gathered_bytes` split by lifetime and stream (gpudesk.sizing.zero3_stream_pools):

    - the window alive only during forward and backward: the gathered parameters at their peak (allocated on the
      all-gather stream) and one module's unreduced gradient;
    - what stays for the whole run: the persistent parameters and the ipg bucket (allocated once at init);
    - the reduce stream's flat bucket (``reduce_scatter_coalesced``'s ``torch.cat``), one reduce bucket of
      gradients, reserved in that stream's pool.

    The first two add up to :func:`zero3_gathered_bytes`."""
    _reuse, _live, _prefetch, _persist, reduce = settings.resolved(spec.hidden_size or 0)
    largest_module = max(_layer_modules(spec, tensor_parallel) + [_vocab_table(spec, tensor_parallel)])
    window = peak_gathered_params(spec, settings, recompute, tensor_parallel) * param_bytes + largest_module * grad_bytes
    resident = persistent_params(spec, settings, tensor_parallel) * param_bytes + reduce * grad_bytes
    return window, resident, reduce * grad_bytes
