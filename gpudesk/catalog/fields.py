"""The GPU spec fields as shown to people: label, unit and how to print a value (CLI and UI share this).

Values stay in catalog units (decimal GB, GB/s, dense TFLOPS/TOPS, W). ``None`` prints as "N/A" plus the
field's reason (``none_text``), never as 0; a rate the GPU's architecture has but nobody published (listed in
``GPU.unpublished_rates``) reads :data:`UNPUBLISHED_RATE_TEXT` instead, so unknown and absent read differently.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpudesk.catalog.records import GPU
from gpudesk.i18n import N_

#: Why a rate cell is empty when the architecture has the precision but no figure is published for the SKU.
UNPUBLISHED_RATE_TEXT = N_("unknown: not published for this GPU")


@dataclass(frozen=True)
class Field:
    """One displayed GPU attribute.

    Attributes:
        key: the ``GPU`` attribute name (also the JSON key).
        label: English label without unit.
        unit: unit text shown after numbers ("GB/s"), or "" for none.
        kind: "text", "number", "int", "bool", "url" or "money".
        none_text: why the value may be missing, shown after "N/A".
        digits: decimals for numbers (trailing zeros are dropped).
        zero_text: text shown instead of a 0 that means "has none" (NVLink on a PCIe-only card), or None.
        none_is_value: an empty value is itself an answer (no market restriction = "sold worldwide"), so
            ``none_text`` is shown alone, not as "N/A (reason)".
    """

    key: str
    label: str
    unit: str = ""
    kind: str = "text"
    none_text: str = "unknown"
    digits: int = 1
    zero_text: str | None = None
    none_is_value: bool = False

    def value(self, gpu: GPU) -> Any:
        return getattr(gpu, self.key)

    def none_reason(self, gpu: GPU | None = None) -> str:
        """English reason an empty value of ``gpu`` is empty: unknown for an unpublished rate, else ``none_text``."""
        if gpu is not None and self.key in gpu.unpublished_rates:
            return UNPUBLISHED_RATE_TEXT
        return self.none_text

    def format(self, value: Any, with_unit: bool = True) -> str:
        """Human text for ``value``; "N/A (reason)" for None."""
        if value is None:
            return self.none_text if self.none_is_value else f"N/A ({self.none_text})"
        if self.kind == "bool":
            return "yes" if value else "no"
        if self.zero_text is not None and value == 0:
            return self.zero_text
        if self.kind in ("number", "int", "money"):
            if self.kind == "money":
                text = f"{value:,.0f}"
            elif self.kind == "int" or float(value).is_integer():
                text = f"{int(value):,}" if abs(value) >= 10000 else str(int(value))
            else:
                text = f"{value:.{self.digits}f}".rstrip("0").rstrip(".")
            return f"{text} {self.unit}".strip() if with_unit else text
        return str(value)

    def header(self) -> str:
        """Label with the unit in parentheses, for table headers."""
        return f"{self.label} ({self.unit})" if self.unit else self.label


SPEC_FIELDS: tuple[Field, ...] = (
    Field("name", N_("Name")),
    Field("id", N_("Id")),
    Field("vendor", N_("Vendor")),
    Field("architecture", N_("Architecture")),
    Field("chip", N_("Chip")),
    Field("compute_capability", N_("Compute capability"), none_text=N_("not an NVIDIA GPU")),
    # The datasheet's "80 GB" of GPU memory is binary, 80 GiB (the catalog's memory_bytes = memory_gb x 2^30,
    # db/build script): labelled GiB, as every planner and estimator figure is. The planner's per-GPU capacity is
    # less (what the driver and the CUDA context leave usable, e.g. 79.18 GiB of an H100's 80).
    Field("memory_gb", N_("Memory"), "GiB", "number"),
    Field("memory_type", N_("Memory type")),
    Field("memory_bandwidth_gbps", N_("Memory bandwidth"), "GB/s", "number"),
    Field("fp32_tflops", N_("FP32"), "TFLOPS", "number"),
    Field("tf32_dense_tflops", N_("TF32 dense"), "TFLOPS", "number", N_("no TF32 tensor cores")),
    Field("fp16_dense_tflops", N_("FP16 dense"), "TFLOPS", "number", N_("no FP16 tensor cores")),
    Field("bf16_dense_tflops", N_("BF16 dense"), "TFLOPS", "number", N_("no BF16 support")),
    Field("fp8_dense_tflops", N_("FP8 dense"), "TFLOPS", "number", N_("no FP8 support")),
    Field("int8_dense_tops", N_("INT8 dense"), "TOPS", "number", N_("no INT8 tensor cores")),
    Field("fp4_dense_tflops", N_("FP4 dense"), "TFLOPS", "number", N_("no FP4 support")),
    Field("accumulate_note", N_("Tensor rate basis")),
    Field("matmul_efficiency", N_("Measured matmul efficiency"), "of BF16 peak", "number", N_("no public measurement"), 3),
    Field("tdp_w", N_("TDP"), "W", "number"),
    Field("form_factor", N_("Form factor")),
    Field("host_interface", N_("Host interface")),
    Field("nvlink_gbps", N_("NVLink / fabric (bidirectional)"), "GB/s", "number", zero_text=N_("none (PCIe only)")),
    Field("mig_max_instances", N_("MIG max instances"), kind="int"),
    Field("ecc", N_("ECC"), kind="bool"),
    Field("vgpu", N_("vGPU / SR-IOV"), kind="bool"),
    Field("consumer", N_("Consumer (GeForce)"), kind="bool"),
    Field("launch_year", N_("Launch year"), kind="int"),
    Field("price_usd", N_("Price"), "USD", "money", N_("no dated public price")),
    Field("price_kind", N_("Price kind"), none_text=N_("no dated public price")),
    Field("price_date", N_("Price date"), none_text=N_("no dated public price")),
    Field("price_source", N_("Price source"), none_text=N_("none")),
    Field("sale_unit_gpus", N_("Smallest purchase (GPUs)"), kind="int", none_text=N_("no catalog server takes it")),
    Field("cloud_usd_per_gpu_hour", N_("Cloud rate (on demand)"), "USD/GPU-hour", "number", N_("no sourced cloud rate"), 2),
    Field("cloud_rate_source", N_("Cloud rate source"), none_text=N_("none")),
    Field("market", N_("Made for market"), none_text=N_("sold worldwide"), none_is_value=True),
    Field("devices_per_package", N_("Devices per package (each die its own device)"), kind="int"),
    Field("confidence", N_("Confidence")),
    Field("date_checked", N_("Date checked")),
    Field("source_url", N_("Spec source"), kind="url"),
    Field("notes", N_("Notes"), none_text=N_("none")),
)

FIELDS_BY_KEY = {f.key: f for f in SPEC_FIELDS}

# Keys of the CLI's JSON output (units in the names), in order.
JSON_KEYS: tuple[str, ...] = (
    "id",
    "name",
    "vendor",
    "architecture",
    "memory_gb",
    "memory_bandwidth_gbps",
    "fp32_tflops",
    "tf32_dense_tflops",
    "fp16_dense_tflops",
    "bf16_dense_tflops",
    "fp8_dense_tflops",
    "int8_dense_tops",
    "tdp_w",
    "host_interface",
    "nvlink_gbps",
    "mig_max_instances",
    "ecc",
    "launch_year",
    "price_usd",
    "price_kind",
    "price_date",
    "cloud_usd_per_gpu_hour",
    "market",
    "source_url",
)

# Extra keys in ``gpudesk catalog show --json``.
DETAIL_JSON_KEYS: tuple[str, ...] = (
    "compute_capability",
    "memory_bytes",
    "memory_type",
    "fp4_dense_tflops",
    "accumulate_note",
    "form_factor",
    "pcie_gen",
    "pcie_lanes",
    "vgpu",
    "consumer",
    "price_source",
    "cloud_rate_source",
    "matmul_efficiency",
    "matmul_efficiency_source",
    "confidence",
    "date_checked",
    "notes",
    "unpublished_rates",  # the rate keys whose null means "not published", not "not supported"
)


def gpu_json(gpu: GPU, detailed: bool = False) -> dict[str, Any]:
    """The GPU as a JSON-ready dict with unit-bearing keys (:data:`JSON_KEYS`, plus details if asked)."""
    keys = JSON_KEYS + (DETAIL_JSON_KEYS if detailed else ())
    return {k: getattr(gpu, k) for k in keys}


def differing_keys(gpus: list[GPU], keys: tuple[str, ...] | None = None) -> set[str]:
    """Field keys whose values are not all equal across ``gpus`` (for highlighting comparisons).

    An empty rate that is unknown (the GPU's architecture has it, nobody published it: ``unpublished_rates``)
    differs from one that is absent (the GPU lacks it): the A10G's unknown FP16 tensor rate vs a card without one.
    """
    keys = keys or tuple(f.key for f in SPEC_FIELDS)
    return {k for k in keys if len({_compared_value(g, k) for g in gpus}) > 1}


def _compared_value(gpu: GPU, key: str) -> str:
    """``repr`` of the value, with an unpublished rate's None told apart from an absent one's."""
    value = getattr(gpu, key)
    return "<unknown>" if value is None and key in gpu.unpublished_rates else repr(value)
