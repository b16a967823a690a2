"""The result type of every memory formula: a total with a named breakdown in bytes, and its assumptions."""

from __future__ import annotations

from dataclasses import dataclass, field

from gpudesk.i18n import _, ngettext
from gpudesk.sizing.errors import SizingError

# Component names used in breakdowns, in display order (PyTorch / ZeRO-paper terms).
COMPONENT_ORDER: tuple[str, ...] = (
    "weights",
    "master_weights",
    "gradients",
    "main_gradients",
    "ddp_gradient_buckets",
    "optimizer_states",
    "optimizer_step_temporaries",
    "paged_optimizer_states",
    "lora_adapters",
    "modules_to_save_copies",
    "activations",
    "logits",
    "kv_cache",
    "kv_cache_workspace",
    "decode_attention",
    "prefill_workspace",
    "prefill_kv_kept",
    "kernel_scratch",
    "fused_load_copy",
    "load_cast_copy",
    "zero3_engine_start_model",
    "gathered_layers",
    "eval_pass",
    "zero_gradient_buffers",
    "unsharded_parameters",
    "unsharded_gradients",
    "cuda_context",
    "driver_reserved",
    "framework_overhead",
    "fragmentation",
    "fsdp_stream_cache",
    "zero3_stream_cache",
    "eval_pass_cache",
    "loading_reserve",
)


# Not seen by PyTorch's caching allocator: the CUDA context, NCCL/cuBLAS/runtime buffers, the allocator's own cache,
# and bitsandbytes paged optimizer states (cudaMallocManaged unified memory, evicted to host under pressure;
# https://github.com/bitsandbytes-foundation/bitsandbytes/blob/main/bitsandbytes/functional.py ``get_paged``).
# ``loading_reserve``: blocks the allocator cached while the model was loaded, beyond what training reserves
# (gpudesk.sizing.loading). ``fsdp_stream_cache``: blocks FSDP's side streams keep cached (gpudesk.sizing.fsdp_step_reshard);
# ``zero3_stream_cache``: the same for DeepSpeed ZeRO-3's all-gather and reduce streams (gpudesk.sizing.zero3_stream_pools).
# ``eval_pass_cache``: training's cached blocks that an evaluation pass inside the run leaves reserved beside its own
# tensors (gpudesk.sizing.train_eval_pass).
_NOT_ALLOCATED = frozenset({"cuda_context", "framework_overhead", "fragmentation", "paged_optimizer_states",
                            "loading_reserve", "fsdp_stream_cache", "zero3_stream_cache", "driver_reserved",
                            "eval_pass_cache"})

# Parts of the device figure that the card's reported total need not hold: the driver's own framebuffer reserve,
# which ``cudaMemGetInfo``'s total already leaves out (gpudesk.sizing.driver_reserved), and bitsandbytes paged
# optimizer states, allocated with ``cudaMallocManaged`` and evicted to host RAM by the driver when the GPU runs
# short instead of failing (bitsandbytes ``functional.py`` ``get_paged``/``prefetch_tensor``; CUDA C++ Programming
# Guide, "Unified Memory Programming", oversubscription on Pascal and later).
OFF_CARD_PARTS = ("driver_reserved", "paged_optimizer_states")


def device_need_of(breakdown: dict[str, int] | dict[str, float]) -> float:
    """:attr:`MemoryEstimate.device_need_bytes` of a bare breakdown (a saved plan's, a chart bar's): its sum less
    :data:`OFF_CARD_PARTS`."""
    return sum(v for k, v in breakdown.items() if k not in OFF_CARD_PARTS)


#: The breakdown components the routed experts' model states appear in (gpudesk.sizing.train_expert_parallel).
EXPERT_PARTS = ("weights", "master_weights", "gradients", "optimizer_states")


@dataclass(frozen=True)
class ExpertShare:
    """The routed experts one GPU holds under expert parallelism, and the part of the breakdown that is theirs.

    ``experts_per_layer``: routed experts of each MoE layer; ``expert_parallel``: the GPUs of a pipeline stage they
    are spread over, each holding ``experts_per_layer / expert_parallel`` whole experts (Megatron-Core
    ``num_local_experts``); ``expert_data_parallel``: the ranks the experts' master weights and optimizer states
    shard over; ``part_bytes``: for each of :data:`EXPERT_PARTS`, the routed experts' model states on one GPU
    (already in the breakdown: this names the split, it adds nothing; the gradients at their full size, which the
    breakdown's peak may hold only in part); ``source``: where the split comes from."""

    experts_per_layer: int
    expert_parallel: int
    expert_data_parallel: int
    part_bytes: dict[str, int]
    source: str = ""

    @property
    def experts_per_gpu(self) -> int:
        """Whole routed experts of each MoE layer on one GPU."""
        return self.experts_per_layer // max(1, self.expert_parallel)

    def headline(self) -> str:
        """"Routed experts: 16 of 128 per GPU (expert parallel 8)"."""
        return _("Routed experts: {held} of {experts} per GPU (expert parallel {ep})").format(
            held=self.experts_per_gpu, experts=self.experts_per_layer, ep=self.expert_parallel)

    def detail(self) -> str:
        """Their model states on the GPU and the ranks those shard over."""
        from gpudesk.units import format_gib

        b = self.part_bytes
        return ngettext(
            "the routed experts' model states on each GPU: weights {weights}, FP32 master weights {master}, "
            "gradients {gradients} (all of them alive), optimizer states {optimizer}; their master weights and "
            "optimizer states are sharded over {dp} expert-data-parallel GPU",
            "the routed experts' model states on each GPU: weights {weights}, FP32 master weights {master}, "
            "gradients {gradients} (all of them alive), optimizer states {optimizer}; their master weights and "
            "optimizer states are sharded over {dp} expert-data-parallel GPUs", self.expert_data_parallel).format(
                     weights=format_gib(b.get("weights", 0)), master=format_gib(b.get("master_weights", 0)),
                     gradients=format_gib(b.get("gradients", 0)), optimizer=format_gib(b.get("optimizer_states", 0)),
                     dp=self.expert_data_parallel)

    def assumption(self) -> tuple[str, str]:
        """The split as one (assumption, source) pair: the headline and the detail."""
        return (_("{headline}: {detail}").format(headline=self.headline(), detail=self.detail()), self.source)

    def to_dict(self) -> dict[str, object]:
        """JSON shape (ids in English): counts and ``part_bytes``."""
        return {"expert_parallel": self.expert_parallel, "experts_per_layer": self.experts_per_layer,
                "experts_per_gpu": self.experts_per_gpu, "expert_data_parallel": self.expert_data_parallel,
                "part_bytes": dict(self.part_bytes)}


@dataclass(frozen=True)
class MemoryEstimate:
    """Device memory one GPU needs, in bytes.

    Attributes:
        breakdown: component name -> bytes (ints >= 0), in :data:`COMPONENT_ORDER` order. Names:
            ``weights`` (the copy the forward pass reads, e.g. bf16), ``master_weights`` (fp32 copy kept by
            mixed-precision optimizers), ``gradients``, ``main_gradients`` (fp32 main gradients an optimizer keeps
            between steps, :mod:`gpudesk.sizing.main_grads_kept`), ``ddp_gradient_buckets`` (PyTorch DDP's flat all-reduce buckets, a second copy of
            the gradients unless ``gradient_as_bucket_view``; with ``main_grads_kept`` the flat copy made for the
            all-reduce when that moment is the peak), ``optimizer_states`` (Adam m and v, or momentum),
            ``lora_adapters`` (adapter weights + their grads and states), ``modules_to_save_copies`` (PEFT's trained
            full copies, the same), ``activations`` (saved for backward),
            ``logits`` (output logits + loss buffers), ``kv_cache``, ``prefill_workspace`` (transient inference
            activations), ``decode_attention`` (a decode step's whole-context K/V copies on the math SDPA backend), ``gathered_layers`` (ZeRO-3/FSDP all-gathered layer parameters and grads),
            ``unsharded_parameters`` / ``unsharded_gradients`` (FSDP with pipeline parallelism: the stage's
            gathered parameters and its gradients accumulated over the micro-batches),
            ``cuda_context``, ``driver_reserved`` (the driver's own framebuffer reserve, typed by the user: in
            the device figure only, :mod:`gpudesk.sizing.driver_reserved`),
            ``framework_overhead`` (NCCL, cuBLAS/cuDNN workspaces), ``fragmentation``
            (allocator headroom), ``loading_reserve`` (blocks cached while loading the model beyond what training
            reserves: the reserved peak is max(loading, training)), ``fsdp_stream_cache`` (blocks the
            caching allocator keeps for FSDP's all-gather and reduce-scatter streams beside the default stream's,
            reserved but not allocated at the peak; :mod:`gpudesk.sizing.fsdp_step_reshard`),
            ``zero3_engine_start_model`` (DeepSpeed's engine start over a model built outside ``zero.Init``: the
            whole model on every GPU beyond training's allocated peak, :mod:`gpudesk.sizing.zero3_outside_init`).
        gpus: number of GPUs the job is spread over; the breakdown is per GPU.
        gpu_allocated_bytes: each GPU's allocated peak where the GPUs hold different shares and every one is
            sized (an inference layer split, :mod:`gpudesk.sizing.layer_split`); empty otherwise.
        uneven_gpus: the GPUs hold different shares and only the fullest is sized (pipeline-parallel training):
            no sum over the GPUs can be given.
        assumptions: (assumption, source) pairs, e.g. ("18 bytes/param mixed-precision Adam",
            "Megatron-LM theoretical_memory_usage.py").
        experts: under expert parallelism, the routed experts this GPU holds and their bytes in the breakdown
            (:class:`ExpertShare`); None otherwise.
    """

    breakdown: dict[str, int]
    gpus: int = 1
    assumptions: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    gpu_allocated_bytes: tuple[int, ...] = ()
    uneven_gpus: bool = False
    experts: ExpertShare | None = None

    @property
    def total_bytes(self) -> int:
        """Sum of the breakdown, bytes per GPU."""
        return sum(self.breakdown.values())

    @property
    def allocated_bytes(self) -> int:
        """Tensors alive at the peak (``torch.cuda.max_memory_allocated``): the total less the allocator cache,
        the CUDA context and the framework's non-PyTorch buffers."""
        return sum(v for k, v in self.breakdown.items() if k not in _NOT_ALLOCATED)

    @property
    def reserved_bytes(self) -> int:
        """What the caching allocator holds (``torch.cuda.max_memory_reserved``): allocated + its cache/fragments
        (https://pytorch.org/docs/stable/notes/cuda.html#memory-management)."""
        return (self.allocated_bytes + self.breakdown.get("fragmentation", 0) + self.breakdown.get("loading_reserve", 0)
                + self.breakdown.get("fsdp_stream_cache", 0) + self.breakdown.get("zero3_stream_cache", 0)
                + self.breakdown.get("eval_pass_cache", 0))

    @property
    def allocated_sum_bytes(self) -> int | None:
        """The allocated peaks of all the job's GPUs added up (the figure a benchmark prints when it sums
        ``torch.cuda.max_memory_allocated(device)`` over its devices, e.g. AutoAWQ ``examples/benchmark.py`` at
        d54bf0ef or Qwen's ``speed_benchmark_transformers.py``); each GPU's own peak, wherever in the run it
        falls. None where only the fullest GPU is sized (:attr:`uneven_gpus`)."""
        if self.gpu_allocated_bytes:
            return sum(self.gpu_allocated_bytes)
        return None if self.uneven_gpus else self.allocated_bytes * self.gpus

    @property
    def device_bytes(self) -> int:
        """What nvidia-smi / NVML shows for the process: reserved + CUDA context + NCCL/cuBLAS/runtime buffers."""
        return self.total_bytes

    def statistic_bytes(self, statistic: str) -> int:
        """Bytes for a named statistic: ``allocated``/``active``, ``reserved``, ``device``, or one component that
        serving engines log on its own: ``weights`` (vLLM "Model loading took"), ``kv_cache`` (vLLM "Available KV
        cache memory", SGLang "KV Cache is allocated"); ``allocated_sum``, the allocated peaks summed over the
        job's GPUs (:attr:`allocated_sum_bytes`).

        Raises:
            SizingError: ``allocated_sum`` of an estimate that sizes only its fullest GPU.
        """
        if statistic == "allocated_sum":
            total = self.allocated_sum_bytes
            if total is None:
                raise SizingError("statistic", _("the GPUs of a pipeline-parallel training run hold different "
                                                 "shares and only the fullest is sized: no sum over the GPUs."))
            return total
        return {"allocated": self.allocated_bytes, "active": self.allocated_bytes, "reserved": self.reserved_bytes,
                "device": self.device_bytes, "weights": self.component("weights"),
                "kv_cache": self.component("kv_cache")}[statistic]

    @property
    def paged_bytes(self) -> int:
        """Bytes in CUDA unified memory (bitsandbytes paged optimizer states): in the total, outside the allocator;
        the driver evicts them to host RAM when the GPU runs short instead of failing."""
        return self.breakdown.get("paged_optimizer_states", 0)

    @property
    def device_need_bytes(self) -> int:
        """The memory the job needs ON THE CARD, per GPU: what must fit in the card's reported total
        (:func:`gpudesk.sizing.capacity.reported_total_bytes`) and so what every fit, headroom and "memory per GPU"
        figure uses. The total less the driver's reserve (already outside ``cudaMemGetInfo``'s total,
        :mod:`gpudesk.sizing.driver_reserved`) less the paged optimizer states (:attr:`paged_bytes`: CUDA unified
        memory, evicted to host RAM when the GPU runs short; bitsandbytes ``functional.py`` ``get_paged``)."""
        return int(device_need_of(self.breakdown))

    def component(self, name: str) -> int:
        """Bytes of one component (0 when the component does not apply to this estimate)."""
        return self.breakdown.get(name, 0)

    def to_dict(self) -> dict[str, object]:
        """JSON shape: ``{"total_bytes": int, "breakdown_bytes": {name: int}, "gpus": int, "assumptions": [...]}``,
        with ``"experts"`` (:meth:`ExpertShare.to_dict`) under expert parallelism."""
        return {
            "total_bytes": self.total_bytes,
            "allocated_bytes": self.allocated_bytes,
            "allocated_sum_bytes": self.allocated_sum_bytes,
            "reserved_bytes": self.reserved_bytes,
            "device_bytes": self.device_bytes,
            "paged_unified_memory_bytes": self.paged_bytes,
            "device_need_bytes": self.device_need_bytes,
            "breakdown_bytes": dict(self.breakdown),
            "gpus": self.gpus,
            "assumptions": [{"assumption": a, "source": s} for a, s in self.assumptions],
            **({"experts": self.experts.to_dict()} if self.experts else {}),
        }


def add_phase_excess(parts: dict[str, float], part: str, phase_bytes: float,
                     beside: frozenset[str] = frozenset()) -> float:
    """Add ``part`` to ``parts`` in place: what a phase of its own (loading, a cast, an engine's start) holds beyond
    the allocated peak that ``parts`` already describes, so that the allocated peak is the larger of the two.

    ``phase_bytes`` is the phase's allocated peak less the parts named in ``beside`` (parts the phase holds as the run
    does, e.g. the ``weights`` a load leaves in place); the run's side is the allocated parts (not
    :data:`_NOT_ALLOCATED`) less the same ``beside``. Returns the part added: ``max(0, phase - run)``, nothing added
    when it is 0. Call it before :func:`gpudesk.sizing.overheads.add_overheads` (overheads are not the run's tensors).
    """
    run = sum(v for k, v in parts.items() if k not in _NOT_ALLOCATED and k not in beside)
    extra = max(0.0, phase_bytes - run)
    if extra:
        parts[part] = extra
    return extra


def ordered_breakdown(parts: dict[str, float]) -> dict[str, int]:
    """Round each part up to whole bytes, drop zero parts, and order by :data:`COMPONENT_ORDER`."""
    out: dict[str, int] = {}
    for name in COMPONENT_ORDER:
        value = parts.get(name)
        if value:
            out[name] = int(-(-value // 1))
    for name, value in parts.items():
        if name not in out and value:
            out[name] = int(-(-value // 1))
    return out
