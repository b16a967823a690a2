"""Frozen dataclasses for catalog rows (units in the field names; None = not supported or unknown).

Throughput figures are dense (no 2:4 sparsity) from vendor datasheets; GB and GB/s are decimal as printed;
``GPU.memory_bytes`` is the physical capacity (GPU memory is binary: "80 GB" HBM is 80 GiB).
"""

from __future__ import annotations

from dataclasses import dataclass


#: The dense rate fields of :class:`GPU` and the ``precision_support`` precision each one measures.
RATE_PRECISIONS: dict[str, str] = {
    "tf32_dense_tflops": "tf32",
    "fp16_dense_tflops": "fp16",
    "bf16_dense_tflops": "bf16",
    "fp8_dense_tflops": "fp8",
    "int8_dense_tops": "int8",
    "fp4_dense_tflops": "fp4",
}


@dataclass(frozen=True)
class GPU:
    """One GPU variant (SKU). Source: the datasheet in ``source_url``; other references in ``source_refs``."""

    id: str
    name: str
    vendor: str
    architecture: str
    compute_capability: str | None
    memory_gb: float
    memory_bytes: int
    memory_type: str
    memory_bandwidth_gbps: float
    fp32_tflops: float
    tf32_dense_tflops: float | None
    fp16_dense_tflops: float | None
    bf16_dense_tflops: float | None
    fp8_dense_tflops: float | None
    int8_dense_tops: float | None
    fp4_dense_tflops: float | None
    accumulate_note: str
    tdp_w: float
    form_factor: str
    host_interface: str
    pcie_gen: int
    pcie_lanes: int
    nvlink_gbps: float
    mig_max_instances: int
    ecc: bool
    vgpu: bool
    consumer: bool
    launch_year: int
    price_usd: float | None
    price_date: str | None
    price_source: str | None
    source_url: str
    matmul_efficiency: float | None
    notes: str | None
    confidence: str
    chip: str | None = None
    source_refs: str | None = None
    matmul_efficiency_source: str | None = None
    datasheet_headline_is_sparse: str | None = None
    date_checked: str | None = None
    #: What ``price_usd`` is: ``catalog`` (the GPU row) or a ``prices`` kind (list, street, quote,
    #: market-report), filled at load by :mod:`gpudesk.catalog.prices`; None when unpriced.
    price_kind: str | None = None
    #: The lowest sourced on-demand cloud rate (USD per GPU-hour) and its provider, date and URL; None when none.
    cloud_usd_per_gpu_hour: float | None = None
    cloud_rate_source: str | None = None
    #: The one market this SKU is made for ("china" for the export-control variants), None when sold worldwide.
    market: str | None = None
    #: Devices in one package (``gpu_packages`` table): 2 for the MI250X (two GCDs) and the Ascend 910C (two dies),
    #: each its own device with ``memory_gb / devices_per_package`` of memory; 1 for every other card.
    devices_per_package: int = 1
    #: ECC as the card ships (``gpu_memory_ecc`` table): on for data-center GDDR cards (T4, A10, L4, L40S ...),
    #: whose driver then reports 1/16 less memory; False for HBM cards (ECC costs them no capacity) and cards
    #: shipped with ECC off or without it.
    ecc_default_on: bool = False
    #: Streaming multiprocessors (``gpu_streaming_multiprocessors`` table, from the vendor's architecture
    #: whitepapers): how many thread blocks of a large-tile GEMM run at once (:mod:`gpudesk.sizing.gemm_waves`);
    #: None where the catalog has no sourced count.
    sm_count: int | None = None
    #: The fewest GPUs one can buy of this SKU: the smallest sale unit (servers.sale_unit_gpus) among the catalog
    #: servers that take it (1: PCIe cards one by one; 8: an HGX board; 72: a whole GB200 NVL72 rack); None when no
    #: server takes it.
    sale_unit_gpus: int | None = None
    #: Keys of the rate fields (``fp16_dense_tflops`` ...) left empty although the GPU's architecture has that
    #: precision (``precision_support`` table): the rate is unknown (not published), not absent. Filled at load
    #: by :mod:`gpudesk.catalog.catalog`; a rate field that is None and not listed here means "not supported".
    unpublished_rates: tuple[str, ...] = ()

    @property
    def supports_fp8(self) -> bool:
        """True when the GPU has FP8 tensor/matrix cores (Ada, Hopper, Blackwell, CDNA 3)."""
        return self.fp8_dense_tflops is not None


@dataclass(frozen=True)
class Link:
    """A host, GPU-GPU or network link; bandwidth per GPU/port per direction in decimal GB/s."""

    id: str
    name: str
    kind: str
    generation: str
    bandwidth_gbps_per_direction: float
    source_url: str
    notes: str | None
    date_checked: str | None = None


@dataclass(frozen=True)
class Server:
    """A chassis class. ``architectures``/``gpu_ids`` empty means any card of ``gpu_form_factor``.

    ``min_gpus`` is the smallest block a job is placed on (an NVL72 compute tray of 4); ``sale_unit`` /
    ``sale_unit_gpus`` how it is bought (``card``: one by one into a PCIe host; ``board``: an HGX/OAM board of 8;
    ``rack``: a whole NVL72 rack of 72).
    """

    id: str
    name: str
    kind: str
    min_gpus: int
    max_gpus: int
    gpu_form_factor: str
    interconnect: str
    host_link: str
    architectures: tuple[str, ...]
    power_w: float
    cooling: str
    slots: int
    rack_units: int | None
    host_price_usd: float | None
    source_url: str
    notes: str | None
    gpu_ids: tuple[str, ...] = ()
    host_price_source: str | None = None
    confidence: str | None = None
    date_checked: str | None = None
    sale_unit: str = "card"
    sale_unit_gpus: int = 1

    def gpus_bought(self, count: int) -> int:
        """GPUs a buyer pays for to run ``count`` GPUs in this chassis: whole sale units (an NVL72 rack is sold
        only whole, NVIDIA GB200 NVL72 page; an HGX board of 8; PCIe cards one by one)."""
        unit = max(1, self.sale_unit_gpus)
        return -(-count // unit) * unit

    def accepts(self, gpu: GPU) -> bool:
        """Whether ``gpu`` fits this chassis (form factor, architecture and listed GPU ids)."""
        if gpu.form_factor != self.gpu_form_factor:
            return False
        if self.gpu_ids:
            return gpu.id in self.gpu_ids
        return not self.architectures or gpu.architecture in self.architectures


@dataclass(frozen=True)
class ModelShape:
    """Architecture shape of a public model, from its config.json or paper (``source_url``).

    ``hf_repo`` is the Hugging Face repo id; ``attention_kind`` mha/gqa/mqa/mla with the MLA ranks
    (``kv_lora_rank``, ``q_lora_rank``, ``qk_rope_head_dim``); MoE: ``moe_experts`` routed experts of width
    ``moe_ffn_size`` (None: ``ffn_size``), ``moe_shared_experts``, ``moe_layers`` (None: every layer);
    ``sliding_window`` for local-attention layers and ``sliding_window_layers`` how many layers use it (empty:
    all); ``active_params`` the model card's published figure; ``checkpoint_weight_format`` the published
    checkpoint's storage format (``mxfp4``, ``fp8``; empty: 16-bit). A multimodal checkpoint's vision encoder, from
    its config's ``vision_config`` (outside ``params``): ``vision_model_type`` (``siglip_vision_model``,
    ``pixtral``), ``vision_layers``, ``vision_hidden_size``, ``vision_intermediate_size``, ``vision_patch_size``,
    ``vision_image_size``, the projector's ``vision_spatial_merge_size`` and ``vision_tokens_per_image``
    (``mm_tokens_per_image``), ``vision_output_dim`` (Llama 4's ``vision_output_dim``, Qwen3-VL's ``out_hidden_size``),
    Llama 4's ``vision_pixel_shuffle_ratio``, Qwen3-VL's ``vision_position_embeddings``, ``vision_deepstack_layers``
    and ``vision_temporal_patch_size``; the rotary tables: ``rope_linear_factor``
    (``rope_scaling`` linear ``factor``) and ``rope_local_base_freq`` (Gemma 3's unscaled local table);
    ``global_kv_heads`` and ``global_head_dim``: the KV heads and head width of the global (full-attention) layers
    where they differ from the sliding-window layers the other columns describe (Gemma 4's
    ``num_global_key_value_heads`` / ``global_head_dim``; empty: the same).
    """

    id: str
    name: str
    family: str
    kind: str
    params: int
    layers: int | None
    hidden_size: int | None
    num_attention_heads: int | None
    num_kv_heads: int | None
    ffn_size: int | None
    vocab_size: int | None
    context_length: int | None
    moe_experts: int | None
    moe_active_experts: int | None
    tied_embeddings: bool
    source_url: str
    head_dim: int | None = None
    notes: str | None = None
    date_checked: str | None = None
    hf_repo: str | None = None
    attention_kind: str | None = None
    kv_lora_rank: int | None = None
    q_lora_rank: int | None = None
    qk_rope_head_dim: int | None = None
    moe_ffn_size: int | None = None
    moe_shared_experts: int | None = None
    moe_layers: int | None = None
    sliding_window: int | None = None
    active_params: int | None = None
    sliding_window_layers: int | None = None
    checkpoint_weight_format: str | None = None
    vision_model_type: str | None = None
    vision_layers: int | None = None
    vision_hidden_size: int | None = None
    vision_intermediate_size: int | None = None
    vision_patch_size: int | None = None
    vision_image_size: int | None = None
    vision_spatial_merge_size: int | None = None
    vision_tokens_per_image: int | None = None
    vision_output_dim: int | None = None
    vision_pixel_shuffle_ratio: float | None = None
    vision_position_embeddings: int | None = None
    vision_deepstack_layers: int | None = None
    vision_temporal_patch_size: int | None = None
    rope_linear_factor: float | None = None
    rope_local_base_freq: float | None = None
    global_kv_heads: int | None = None
    global_head_dim: int | None = None
    #: The catalog model this checkpoint quantizes (``qwen3-8b`` for Qwen/Qwen3-8B-FP8: the same architecture, its
    #: weights stored in ``checkpoint_weight_format``); None for an original checkpoint.
    base_model: str | None = None


@dataclass(frozen=True)
class PrecisionSupport:
    """Whether an architecture has hardware support for a precision, and the minimum software to use it."""

    architecture: str
    precision: str
    supported: bool
    min_cuda: str | None
    min_driver: str | None
    min_pytorch: str | None
    notes: str | None
    source_url: str | None = None
    date_checked: str | None = None


@dataclass(frozen=True)
class CudaArchSupport:
    """Which CUDA release first supported an SM version and which dropped it."""

    architecture: str
    sm: str
    first_cuda: str
    dropped_in_cuda: str | None
    pytorch_last_wheel_note: str | None
    notes: str | None
    source_url: str | None = None
    date_checked: str | None = None


@dataclass(frozen=True)
class Scenario:
    """A row of the source article's quick-reference table, corrected per the errata (catalog.md §4)."""

    id: str
    name: str
    article_memory_gb: str
    corrected_memory_gb: str
    recommended: str
    reason: str
    alternative: str
    erratum: str | None
    profile: str | None
    article_recommended: str | None = None
    article_reason: str | None = None
    article_alternative: str | None = None
    source: str | None = None


PURCHASE_KINDS = ("list", "street", "quote", "market-report")
CLOUD_KINDS = ("cloud-on-demand", "cloud-committed", "cloud-spot")


@dataclass(frozen=True)
class Price:
    """One dated, sourced price of a GPU or a server (catalog ``prices`` table).

    ``kind``: ``list`` (vendor list price / MSRP), ``street`` (retail), ``quote`` (a published quote),
    ``market-report`` (analyst or press figure), or a cloud rate ``cloud-on-demand`` / ``cloud-committed`` /
    ``cloud-spot``. ``unit``: ``per-gpu`` or ``per-system`` for purchases, ``per-gpu-hour`` for cloud rates.
    A range in the source is ``price_low_usd``..``price_high_usd`` with ``price_usd`` its midpoint.
    """

    id: str
    item_kind: str
    item_id: str
    kind: str
    unit: str
    price_usd: float
    price_date: str
    source_url: str
    price_low_usd: float | None = None
    price_high_usd: float | None = None
    provider: str | None = None
    date_checked: str | None = None
    notes: str | None = None

    @property
    def is_cloud(self) -> bool:
        """True for an hourly cloud rate."""
        return self.kind in CLOUD_KINDS


@dataclass(frozen=True)
class SoftwareStack:
    """The vendor software stack of a non-CUDA architecture (catalog ``software_stacks`` table, issue 32).

    ``frameworks`` are the lower-case framework names with a backend on it (matched against a requirement's
    ``software.framework``); the text fields are what a buyer must know: the PyTorch backend, the minimum stack
    version, which attention kernels exist and which serving engines support the part.
    """

    architecture: str
    vendor: str
    stack: str
    pytorch_backend: str
    frameworks: tuple[str, ...]
    min_stack_version: str | None
    flash_attention: str
    serving_engines: str
    source_url: str
    date_checked: str
    notes: str | None = None
