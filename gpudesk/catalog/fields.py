"""The GPU spec fields as shown to people: label, unit and how to print a value (CLI and UI share this).

Values stay in catalog units (decimal GB, GB/s, dense TFLOPS/TOPS, W). ``None`` prints as "N/A" plus the
field's reason (``none_text``), never as 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpudesk.catalog.records import GPU


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
    """

    key: str
    label: str
    unit: str = ""
    kind: str = "text"
    none_text: str = "unknown"
    digits: int = 1
    zero_text: str | None = None

    def value(self, gpu: GPU) -> Any:
        return getattr(gpu, self.key)

    def format(self, value: Any, with_unit: bool = True) -> str:
        """Human text for ``value``; "N/A (reason)" for None."""
        if value is None:
            return f"N/A ({self.none_text})"
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
    Field("name", "Name"),
    Field("id", "Id"),
    Field("vendor", "Vendor"),
    Field("architecture", "Architecture"),
    Field("chip", "Chip"),
    Field("compute_capability", "Compute capability", none_text="not an NVIDIA GPU"),
    Field("memory_gb", "Memory", "GB", "number"),
    Field("memory_type", "Memory type"),
    Field("memory_bandwidth_gbps", "Memory bandwidth", "GB/s", "number"),
    Field("fp32_tflops", "FP32", "TFLOPS", "number"),
    Field("tf32_dense_tflops", "TF32 dense", "TFLOPS", "number", "no TF32 tensor cores"),
    Field("fp16_dense_tflops", "FP16 dense", "TFLOPS", "number", "no FP16 tensor cores"),
    Field("bf16_dense_tflops", "BF16 dense", "TFLOPS", "number", "no BF16 support"),
    Field("fp8_dense_tflops", "FP8 dense", "TFLOPS", "number", "no FP8 support"),
    Field("int8_dense_tops", "INT8 dense", "TOPS", "number", "no INT8 tensor cores"),
    Field("fp4_dense_tflops", "FP4 dense", "TFLOPS", "number", "no FP4 support"),
    Field("accumulate_note", "Tensor rate basis"),
    Field("matmul_efficiency", "Measured matmul efficiency", "of BF16 peak", "number", "no public measurement", 3),
    Field("tdp_w", "TDP", "W", "number"),
    Field("form_factor", "Form factor"),
    Field("host_interface", "Host interface"),
    Field("nvlink_gbps", "NVLink / fabric (bidirectional)", "GB/s", "number", zero_text="none (PCIe only)"),
    Field("mig_max_instances", "MIG max instances", kind="int"),
    Field("ecc", "ECC", kind="bool"),
    Field("vgpu", "vGPU / SR-IOV", kind="bool"),
    Field("consumer", "Consumer (GeForce)", kind="bool"),
    Field("launch_year", "Launch year", kind="int"),
    Field("price_usd", "Price", "USD", "money", "no dated public price"),
    Field("price_kind", "Price kind", none_text="no dated public price"),
    Field("price_date", "Price date", none_text="no dated public price"),
    Field("price_source", "Price source", none_text="none"),
    Field("cloud_usd_per_gpu_hour", "Cloud rate (on demand)", "USD/GPU-hour", "number", "no sourced cloud rate", 2),
    Field("cloud_rate_source", "Cloud rate source", none_text="none"),
    Field("market", "Made for market", none_text="sold worldwide"),
    Field("confidence", "Confidence"),
    Field("date_checked", "Date checked"),
    Field("source_url", "Spec source", kind="url"),
    Field("notes", "Notes", none_text="none"),
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
)


def gpu_json(gpu: GPU, detailed: bool = False) -> dict[str, Any]:
    """The GPU as a JSON-ready dict with unit-bearing keys (:data:`JSON_KEYS`, plus details if asked)."""
    keys = JSON_KEYS + (DETAIL_JSON_KEYS if detailed else ())
    return {k: getattr(gpu, k) for k in keys}


def differing_keys(gpus: list[GPU], keys: tuple[str, ...] | None = None) -> set[str]:
    """Field keys whose values are not all equal across ``gpus`` (for highlighting comparisons)."""
    keys = keys or tuple(f.key for f in SPEC_FIELDS)
    return {k for k in keys if len({repr(getattr(g, k)) for g in gpus}) > 1}
