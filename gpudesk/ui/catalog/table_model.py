"""Qt model of the catalog's GPUs: one row per GPU, a column per spec, user price overrides applied.

Roles: DisplayRole is the formatted text (units are in the header), SORT_ROLE the raw number or text
(None sorts after every value in both directions), ToolTipRole explains N/A cells and overridden prices,
GPU_ROLE the ``GPU`` object.
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QCoreApplication, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont

from gpudesk.ui.translate_marks import QT_TRANSLATE_NOOP
from gpudesk.catalog import GPU
from gpudesk.catalog.fields import FIELDS_BY_KEY, Field

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
GPU_ROLE = Qt.ItemDataRole.UserRole + 2

TABLE_COLUMNS: tuple[str, ...] = (
    "name",
    "vendor",
    "architecture",
    "memory_gb",
    "memory_bandwidth_gbps",
    "fp32_tflops",
    "bf16_dense_tflops",
    "fp8_dense_tflops",
    "int8_dense_tops",
    "tdp_w",
    "form_factor",
    "nvlink_gbps",
    "mig_max_instances",
    "launch_year",
    "price_usd",
    "cloud_usd_per_gpu_hour",
    "market",
)


# Shorter column headers for the table (the full label is the header tooltip).
SHORT_LABELS: dict[str, str] = {
    "memory_bandwidth_gbps": QT_TRANSLATE_NOOP("CatalogFields", "Bandwidth"),
    "bf16_dense_tflops": QT_TRANSLATE_NOOP("CatalogFields", "BF16"),
    "fp8_dense_tflops": QT_TRANSLATE_NOOP("CatalogFields", "FP8"),
    "int8_dense_tops": QT_TRANSLATE_NOOP("CatalogFields", "INT8"),
    "fp32_tflops": QT_TRANSLATE_NOOP("CatalogFields", "FP32"),
    "nvlink_gbps": QT_TRANSLATE_NOOP("CatalogFields", "NVLink"),
    "mig_max_instances": QT_TRANSLATE_NOOP("CatalogFields", "MIG"),
    "launch_year": QT_TRANSLATE_NOOP("CatalogFields", "Year"),
    "architecture": QT_TRANSLATE_NOOP("CatalogFields", "Arch."),
    "form_factor": QT_TRANSLATE_NOOP("CatalogFields", "Form"),
    "cloud_usd_per_gpu_hour": QT_TRANSLATE_NOOP("CatalogFields", "Cloud"),
    "market": QT_TRANSLATE_NOOP("CatalogFields", "Market"),
}


# The English labels, N/A reasons and "has none" texts of gpudesk.catalog.fields.SPEC_FIELDS (a Qt-free
# layer), marked here so that lupdate extracts them; field_label(), none_reason() and display_value()
# translate them in the "CatalogFields" context. tests/ui/test_translations.py checks the list is complete.
FIELD_TEXTS: tuple[str, ...] = (
    QT_TRANSLATE_NOOP("CatalogFields", "Name"),
    QT_TRANSLATE_NOOP("CatalogFields", "unknown"),
    QT_TRANSLATE_NOOP("CatalogFields", "Id"),
    QT_TRANSLATE_NOOP("CatalogFields", "Vendor"),
    QT_TRANSLATE_NOOP("CatalogFields", "Architecture"),
    QT_TRANSLATE_NOOP("CatalogFields", "Chip"),
    QT_TRANSLATE_NOOP("CatalogFields", "Compute capability"),
    QT_TRANSLATE_NOOP("CatalogFields", "not an NVIDIA GPU"),
    QT_TRANSLATE_NOOP("CatalogFields", "Memory"),
    QT_TRANSLATE_NOOP("CatalogFields", "Memory type"),
    QT_TRANSLATE_NOOP("CatalogFields", "Memory bandwidth"),
    QT_TRANSLATE_NOOP("CatalogFields", "Devices per package (each die its own device)"),
    QT_TRANSLATE_NOOP("CatalogFields", "Smallest purchase (GPUs)"),
    QT_TRANSLATE_NOOP("CatalogFields", "no catalog server takes it"),
    QT_TRANSLATE_NOOP("CatalogFields", "FP32"),
    QT_TRANSLATE_NOOP("CatalogFields", "TF32 dense"),
    QT_TRANSLATE_NOOP("CatalogFields", "no TF32 tensor cores"),
    QT_TRANSLATE_NOOP("CatalogFields", "FP16 dense"),
    QT_TRANSLATE_NOOP("CatalogFields", "no FP16 tensor cores"),
    QT_TRANSLATE_NOOP("CatalogFields", "BF16 dense"),
    QT_TRANSLATE_NOOP("CatalogFields", "no BF16 support"),
    QT_TRANSLATE_NOOP("CatalogFields", "FP8 dense"),
    QT_TRANSLATE_NOOP("CatalogFields", "no FP8 support"),
    QT_TRANSLATE_NOOP("CatalogFields", "INT8 dense"),
    QT_TRANSLATE_NOOP("CatalogFields", "no INT8 tensor cores"),
    QT_TRANSLATE_NOOP("CatalogFields", "FP4 dense"),
    QT_TRANSLATE_NOOP("CatalogFields", "no FP4 support"),
    QT_TRANSLATE_NOOP("CatalogFields", "unknown: not published for this GPU"),
    QT_TRANSLATE_NOOP("CatalogFields", "Tensor rate basis"),
    QT_TRANSLATE_NOOP("CatalogFields", "Measured matmul efficiency"),
    QT_TRANSLATE_NOOP("CatalogFields", "no public measurement"),
    QT_TRANSLATE_NOOP("CatalogFields", "TDP"),
    QT_TRANSLATE_NOOP("CatalogFields", "Form factor"),
    QT_TRANSLATE_NOOP("CatalogFields", "Host interface"),
    QT_TRANSLATE_NOOP("CatalogFields", "NVLink / fabric (bidirectional)"),
    QT_TRANSLATE_NOOP("CatalogFields", "none (PCIe only)"),
    QT_TRANSLATE_NOOP("CatalogFields", "MIG max instances"),
    QT_TRANSLATE_NOOP("CatalogFields", "ECC"),
    QT_TRANSLATE_NOOP("CatalogFields", "vGPU / SR-IOV"),
    QT_TRANSLATE_NOOP("CatalogFields", "Consumer (GeForce)"),
    QT_TRANSLATE_NOOP("CatalogFields", "Launch year"),
    QT_TRANSLATE_NOOP("CatalogFields", "Price"),
    QT_TRANSLATE_NOOP("CatalogFields", "no dated public price"),
    QT_TRANSLATE_NOOP("CatalogFields", "Price date"),
    QT_TRANSLATE_NOOP("CatalogFields", "Price source"),
    QT_TRANSLATE_NOOP("CatalogFields", "Price kind"),
    QT_TRANSLATE_NOOP("CatalogFields", "Cloud rate (on demand)"),
    QT_TRANSLATE_NOOP("CatalogFields", "no sourced cloud rate"),
    QT_TRANSLATE_NOOP("CatalogFields", "Cloud rate source"),
    QT_TRANSLATE_NOOP("CatalogFields", "Made for market"),
    QT_TRANSLATE_NOOP("CatalogFields", "sold worldwide"),
    QT_TRANSLATE_NOOP("CatalogFields", "none"),
    QT_TRANSLATE_NOOP("CatalogFields", "Confidence"),
    QT_TRANSLATE_NOOP("CatalogFields", "Date checked"),
    QT_TRANSLATE_NOOP("CatalogFields", "Spec source"),
    QT_TRANSLATE_NOOP("CatalogFields", "Notes"),
)


def field_label(field: Field) -> str:
    """Translated label of a catalog field."""
    return QCoreApplication.translate("CatalogFields", field.label)


def field_header(field: Field) -> str:
    """Translated label with its unit, for headers."""
    label = field_label(field)
    return f"{label} ({field.unit})" if field.unit else label


def none_reason(field: Field, gpu: GPU | None = None) -> str:
    """Translated reason the value is empty: unknown (a rate ``gpu``'s architecture has, not published) or absent."""
    return QCoreApplication.translate("CatalogFields", field.none_reason(gpu))


def display_value(field: Field, value, with_unit: bool = True, gpu: GPU | None = None) -> str:
    """Translated display text: "N/A (reason)" for None (the reason of ``gpu``'s cell), yes/no for flags, else the
    number with its unit."""
    if value is None:
        if field.none_is_value:  # "sold worldwide" is the answer, not a reason for a missing one
            return none_reason(field, gpu)
        return QCoreApplication.translate("CatalogFields", "N/A ({0})").format(none_reason(field, gpu))
    if field.kind == "bool":
        return QCoreApplication.translate("CatalogFields", "yes") if value else QCoreApplication.translate("CatalogFields", "no")
    if field.zero_text is not None and value == 0:
        return QCoreApplication.translate("CatalogFields", field.zero_text)
    return field.format(value, with_unit=with_unit)


class GpuTableModel(QAbstractTableModel):
    """The GPU list; ``set_overrides`` applies the user's prices (gpu_id -> {price_usd, note, updated_at})."""

    def __init__(self, gpus: list[GPU], parent=None):
        super().__init__(parent)
        self._gpus = list(gpus)
        self._fields = [FIELDS_BY_KEY[k] for k in TABLE_COLUMNS]
        self._overrides: dict[str, dict] = {}
        self._italic = QFont()
        self._italic.setItalic(True)

    # Qt model API ---------------------------------------------------------------------------------------
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self._gpus)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self._fields)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self._fields):
            return None
        field = self._fields[section]
        if role == Qt.ItemDataRole.DisplayRole:
            short = SHORT_LABELS.get(field.key)
            if short is None:
                return field_header(field)
            label = QCoreApplication.translate("CatalogFields", short)
            return f"{label} ({field.unit})" if field.unit else label
        if role == Qt.ItemDataRole.ToolTipRole:
            if field.key.endswith(("_tflops", "_tops")):
                return self.tr("{0}: dense throughput from the datasheet (no 2:4 sparsity).").format(field_header(field))
            if field.key == "memory_gb":  # qa51 D13: the catalog's capacity beside the planner's usable figure
                return self.tr("{0}: the memory on the card; the datasheet's GB are GiB here (80 GB of HBM is 80 GiB). "
                               "The planner plans against what is usable after the driver's and CUDA context's share "
                               "(79.18 GiB of an H100's 80).").format(field_header(field))
            if field.key != "price_usd":
                return field_header(field)
            if field.key == "price_usd":
                return self.tr("Catalog price with its date, or your own price where you set one (in italics).")
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        gpu = self._gpus[index.row()]
        field = self._fields[index.column()]
        if role == GPU_ROLE:
            return gpu
        value = self.value(gpu, field.key)
        if role == Qt.ItemDataRole.DisplayRole:
            if value is None and field.none_is_value:  # "sold worldwide": the empty value is the answer
                return none_reason(field, gpu)
            if value is None:  # an unpublished rate reads "unknown", an absent one "N/A" (the tooltip says why)
                unknown = field.key in gpu.unpublished_rates
                return QCoreApplication.translate("CatalogFields", "unknown" if unknown else "N/A")
            return display_value(field, value, with_unit=False)
        if role == SORT_ROLE:
            return value
        if role == Qt.ItemDataRole.TextAlignmentRole and field.kind in ("number", "int", "money"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(gpu, field, value)
        if role == Qt.ItemDataRole.FontRole and field.key == "price_usd" and gpu.id in self._overrides:
            return self._italic
        return None

    # gpudesk API -----------------------------------------------------------------------------------------
    def gpu_at(self, row: int) -> GPU:
        return self._gpus[row]

    def row_of(self, gpu_id: str) -> int:
        """Source row of ``gpu_id``, or -1."""
        for row, gpu in enumerate(self._gpus):
            if gpu.id == gpu_id:
                return row
        return -1

    def fields(self) -> list[Field]:
        return list(self._fields)

    def value(self, gpu: GPU, key: str):
        """The shown value: the catalog value, except where the user set a price: then ``price_usd`` is that
        price and ``price_date`` / ``price_source`` say when and that it is theirs (so an export never pairs
        the user's figure with the catalog's date and source)."""
        own = self._overrides.get(gpu.id)
        if own is not None:
            if key == "price_usd":
                return own["price_usd"]
            if key == "price_date":
                return str(own.get("updated_at") or "")[:10] or None
            if key == "price_source":
                note = str(own.get("note") or "").strip()
                text = self.tr("Your own price (gpudesk user database)")
                return f"{text}: {note}" if note else text
        return getattr(gpu, key)

    def override(self, gpu_id: str) -> dict | None:
        return self._overrides.get(gpu_id)

    def set_overrides(self, overrides: dict[str, dict]) -> None:
        self._overrides = dict(overrides)
        column = list(TABLE_COLUMNS).index("price_usd")
        if self._gpus:
            self.dataChanged.emit(self.index(0, column), self.index(len(self._gpus) - 1, column))

    def _tooltip(self, gpu: GPU, field: Field, value) -> str | None:
        if field.key == "name":  # the column elides long names in the middle: the whole name on hover
            return gpu.name
        if field.key == "price_usd":
            own = self._overrides.get(gpu.id)
            if own is not None:
                return self.tr("Your price, set {0}. Catalog: {1}").format(
                    own.get("updated_at", ""), display_value(field, gpu.price_usd)
                )
            if gpu.price_usd is not None:
                return self.tr("{0} price, {1}; source: {2}").format(gpu.price_kind or "", gpu.price_date or "",
                                                                     gpu.price_source or "")
        if field.key == "cloud_usd_per_gpu_hour" and gpu.cloud_rate_source:
            return self.tr("Lowest on-demand rate in the catalog: {0}").format(gpu.cloud_rate_source)
        if value is None:
            return none_reason(field, gpu)
        if field.key.endswith(("_tflops", "_tops")) and gpu.consumer:
            return gpu.accumulate_note
        return None
