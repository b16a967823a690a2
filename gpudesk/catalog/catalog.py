"""Read-only access to the bundled catalog (``gpudesk/catalog/catalog.db``, built by ``db/build_catalog.py``).

The file is opened with SQLite URI ``mode=ro``; all rows (a few hundred) are read into frozen dataclasses
at open, so lookups are in-memory and the object can be shared between threads. Only the full-text search
goes back to SQLite (FTS5 index ``gpus_fts`` over name, vendor, architecture, chip and notes), under a lock.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sqlite3
import threading
from pathlib import Path
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from gpudesk import paths
from gpudesk.catalog.errors import CatalogError, UnknownItemError
from gpudesk.catalog.matching import Named, find_item, kind_name
from gpudesk.catalog.prices import cloud_rate, purchase_price
from gpudesk.i18n import N_, _
from gpudesk.catalog.records import (
    GPU,
    CudaArchSupport,
    Link,
    ModelShape,
    RATE_PRECISIONS,
    PrecisionSupport,
    Price,
    Scenario,
    SoftwareStack,
    Server,
)

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

SCHEMA_VERSION = 1
REBUILD_HINT = N_("Reinstall gpudesk, or in a source checkout run `make catalog` (python db/build_catalog.py).")


def _rebuild_hint() -> str:
    """:data:`REBUILD_HINT` in the current language."""
    return _("Reinstall gpudesk, or in a source checkout run `make catalog` (python db/build_catalog.py).")

D = TypeVar("D", bound="DataclassInstance")
N = TypeVar("N", bound=Named)

_TABLES: dict[str, type[DataclassInstance]] = {
    "gpus": GPU,
    "links": Link,
    "servers": Server,
    "models": ModelShape,
    "precision_support": PrecisionSupport,
    "cuda_arch_support": CudaArchSupport,
    "scenarios": Scenario,
    "prices": Price,
    "software_stacks": SoftwareStack,
}
_FTS_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


def _loader(cls: type[D], columns: list[str]) -> Callable[[tuple[Any, ...]], D]:
    """A function row -> ``cls`` record: 0/1 -> bool, ';'-separated text -> tuple, extra columns ignored."""
    plan = []
    for f in dataclasses.fields(cls):
        if f.name not in columns:
            continue
        kind = "bool" if f.type in ("bool", bool) else "tuple" if str(f.type).startswith("tuple") else ""
        plan.append((f.name, columns.index(f.name), kind))

    def load(row: tuple[Any, ...]) -> D:
        values: dict[str, Any] = {}
        for name, position, kind in plan:
            value = row[position]
            if kind == "bool":
                value = bool(value)
            elif kind == "tuple":
                value = tuple(v for v in (value or "").split(";") if v)
            values[name] = value
        return cls(**values)

    return load


def _markets(conn: sqlite3.Connection) -> dict[str, str]:
    """gpu id -> the one market it is made for (``gpu_markets`` table); {} for a catalog built before the table."""
    try:
        return {r[0]: r[1] for r in conn.execute("SELECT gpu_id, market FROM gpu_markets ORDER BY rowid")}
    except sqlite3.OperationalError:
        return {}


def _packages(conn: sqlite3.Connection) -> dict[str, int]:
    """gpu id -> devices per package (``gpu_packages`` table); {} for a catalog built before the table."""
    try:
        return {r[0]: int(r[1]) for r in conn.execute("SELECT gpu_id, devices FROM gpu_packages ORDER BY rowid")}
    except sqlite3.OperationalError:
        return {}


def _ecc_default_on(conn: sqlite3.Connection) -> set[str]:
    """ids of the GPUs that ship with ECC on (``gpu_memory_ecc`` table); empty for a catalog built before it."""
    try:
        return {r[0] for r in conn.execute("SELECT gpu_id FROM gpu_memory_ecc WHERE ecc_default_on = 1")}
    except sqlite3.OperationalError:
        return set()


def _sm_counts(conn: sqlite3.Connection) -> dict[str, int]:
    """gpu id -> streaming multiprocessors (``gpu_streaming_multiprocessors`` table); {} for a catalog built before
    the table."""
    try:
        return {r[0]: int(r[1]) for r in conn.execute("SELECT gpu_id, sm_count FROM gpu_streaming_multiprocessors")}
    except sqlite3.OperationalError:
        return {}


def _priced(gpu: GPU, prices: Sequence[Price], markets: dict[str, str], packages: dict[str, int] | None = None) -> GPU:
    """``gpu`` with the one catalog price every screen shows (:mod:`gpudesk.catalog.prices`), its cloud rate, its
    market and its devices per package."""
    bought = purchase_price(gpu.id, gpu.price_usd, gpu.price_date, gpu.price_source, prices)
    rate = cloud_rate(gpu.id, prices)
    rate_source = None
    if rate is not None:
        rate_source = "; ".join(p for p in (rate.kind, rate.provider, rate.date, rate.source_url) if p)
    return dataclasses.replace(
        gpu,
        price_usd=bought.price_usd if bought else None,
        price_date=bought.date if bought else gpu.price_date,
        price_source=bought.source if bought else gpu.price_source,  # unpriced: the row says why
        price_kind=bought.kind if bought else None,
        cloud_usd_per_gpu_hour=rate.usd_per_gpu_hour if rate else None,
        cloud_rate_source=rate_source,
        market=markets.get(gpu.id),
        devices_per_package=(packages or {}).get(gpu.id, 1),
    )


def _with_unpublished_rates(gpu: GPU, supported: set[tuple[str, str]]) -> GPU:
    """``gpu`` with the empty rate fields whose precision its architecture has (``precision_support``, from the
    vendors' architecture whitepapers and datasheets): those rates are unknown (not published for this SKU, as
    the A10G's tensor rates), not absent. A field stays "not supported" only where the architecture lacks it."""
    unpublished = tuple(key for key, precision in RATE_PRECISIONS.items()
                        if getattr(gpu, key) is None and (gpu.architecture, precision) in supported)
    return dataclasses.replace(gpu, unpublished_rates=unpublished) if unpublished else gpu


def _sold_in(gpu: GPU, servers: Sequence[Server]) -> GPU:
    """``gpu`` with the fewest GPUs one can buy (the smallest sale unit of the servers that take it), the figure
    the planner prices an option by."""
    units = [s.sale_unit_gpus for s in servers if s.accepts(gpu)]
    return dataclasses.replace(gpu, sale_unit_gpus=min(units) if units else None)


def _load_tables(conn: sqlite3.Connection) -> dict[str, list[Any]]:
    """Every table of ``conn`` as records, the GPUs with their price, market, sale unit and unpublished rates;
    ``meta`` (one dict, key -> value) and ``sources`` (one dict per row)."""
    data: dict[str, list[Any]] = {}
    for table, cls in _TABLES.items():
        cursor = conn.execute(f"SELECT * FROM {table} ORDER BY rowid")
        load = _loader(cls, [d[0] for d in cursor.description])
        data[table] = [load(tuple(r)) for r in cursor.fetchall()]
    markets, packages, ecc_on, sms = _markets(conn), _packages(conn), _ecc_default_on(conn), _sm_counts(conn)
    data["gpus"] = [dataclasses.replace(_priced(g, data["prices"], markets, packages), ecc_default_on=g.id in ecc_on,
                                        sm_count=sms.get(g.id)) for g in data["gpus"]]
    data["gpus"] = [_sold_in(g, data["servers"]) for g in data["gpus"]]
    supported = {(p.architecture, p.precision) for p in data["precision_support"] if p.supported}
    data["gpus"] = [_with_unpublished_rates(g, supported) for g in data["gpus"]]
    data["meta"] = [{r["key"]: r["value"] for r in conn.execute("SELECT key, value FROM meta")}]
    data["sources"] = [dict(r) for r in conn.execute("SELECT * FROM sources ORDER BY rowid")]
    return data


# The loaded tables of each catalog file as it is on disk: (resolved path, inode, size, modification and change
# time in ns) -> tables. Loading them (pricing every GPU) takes ~35 ms, and the sizing code opens the catalog once per
# lookup: predicting the bundled measured runs opened it ~6,000 times. A rebuilt file has another key, so it is read
# again; the records are frozen dataclasses and every Catalog gets its own lists, so sharing them changes nothing.
_TABLES_CACHE: dict[tuple[str, int, int, int, int], dict[str, list[Any]]] = {}
_TABLES_CACHE_LOCK = threading.Lock()


def _file_key(target: Path) -> tuple[str, int, int, int, int] | None:
    """The cache key of the catalog file (None when it cannot be read: then it is not cached)."""
    try:
        stat = target.stat()
    except OSError:
        return None
    return str(target.resolve()), stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns


def _cached_tables(conn: sqlite3.Connection, target: Path) -> dict[str, list[Any]]:
    """:func:`_load_tables` of ``conn``, loaded once per state of the file ``target`` (see ``_TABLES_CACHE``)."""
    key = _file_key(target)
    if key is None:
        return _load_tables(conn)
    with _TABLES_CACHE_LOCK:
        found = _TABLES_CACHE.get(key)
    if found is None:
        found = _load_tables(conn)
        with _TABLES_CACHE_LOCK:
            _TABLES_CACHE.clear()  # one file state at a time: an older state is never asked for again
            _TABLES_CACHE[key] = found
    return found


class Catalog:
    """The bundled catalog. Create it with :func:`open_catalog`.

    All list methods return items in catalog order (the CSV order, grouped by generation).
    """

    def __init__(self, conn: sqlite3.Connection, path: Path, tables: dict[str, list[Any]] | None = None):
        self.path = path
        self._conn = conn
        self._lock = threading.Lock()
        # Each catalog gets its own lists (of frozen records), so nothing one catalog does reaches another.
        self._data: dict[str, list[Any]] = {name: list(rows) for name, rows in (tables or _load_tables(conn)).items()}
        self._gpus: list[GPU] = self._data["gpus"]
        self._links: list[Link] = self._data["links"]
        self._servers: list[Server] = self._data["servers"]
        self._models: list[ModelShape] = self._data["models"]
        self._gpu_by_id = {g.id: g for g in self._gpus}
        self._meta: dict[str, Any] = dict(self._data.pop("meta")[0])
        self._sources: list[dict[str, Any]] = [dict(r) for r in self._data.pop("sources")]

    # GPUs ---------------------------------------------------------------------------------------------
    def gpus(self) -> list[GPU]:
        """Every GPU variant."""
        return list(self._data["gpus"])

    def gpu(self, gpu_id: str) -> GPU:
        """The GPU with this exact id. Raises UnknownItemError."""
        try:
            return self._gpu_by_id[gpu_id]
        except KeyError:
            raise UnknownItemError(
                _("No GPU with id {gpu_id!r}. Run `gpudesk catalog list` to see the ids.").format(gpu_id=gpu_id)
            ) from None

    def find_gpu(self, query: str) -> GPU:
        """A GPU by id or unique case-insensitive name fragment ("a100 80gb sxm", "4090").

        Raises:
            UnknownItemError: nothing matches.
            AmbiguousItemError: several match (``.matches`` lists them).
        """
        return find_item(self._gpus, query, "GPU", _("run `gpudesk catalog list` to see them"))

    def search_gpus(self, text: str) -> list[GPU]:
        """Full-text search over name, vendor, architecture, chip and notes, best match first.

        Every word must match the start of a word in the index ("hop" finds Hopper). Empty text gives all GPUs.
        """
        tokens = _FTS_TOKEN.findall(text or "")
        if not tokens:
            return self.gpus()
        query = " ".join(f'"{t}"*' for t in tokens)
        with self._lock:
            try:
                rows = self._conn.execute(
                    "SELECT g.id FROM gpus_fts JOIN gpus g ON g.rowid = gpus_fts.rowid "
                    "WHERE gpus_fts MATCH ? ORDER BY rank",
                    [query],
                ).fetchall()
            except sqlite3.Error as exc:
                raise CatalogError(_("Full-text search for {text!r} failed: {reason}. {hint}").format(
                    text=text, reason=exc, hint=_rebuild_hint())) from exc
        return [self._gpu_by_id[r[0]] for r in rows]

    # Other tables ---------------------------------------------------------------------------------------
    def links(self) -> list[Link]:
        """PCIe, NVLink/scale-up fabrics and network links."""
        return list(self._data["links"])

    def link(self, link_id: str) -> Link:
        """The link with this id ("pcie4-x16", "nvlink4", "ib-ndr"). Raises UnknownItemError."""
        return self._by_id(self._links, link_id, "link")

    def servers(self) -> list[Server]:
        """Workstation, 2U/4U PCIe and 8-GPU baseboard chassis classes."""
        return list(self._data["servers"])

    def server(self, server_id: str) -> Server:
        """The server class with this id. Raises UnknownItemError."""
        return self._by_id(self._servers, server_id, "server")

    def models(self) -> list[ModelShape]:
        """Public model shapes."""
        return list(self._data["models"])

    def model(self, model_id: str) -> ModelShape:
        """The model with this exact id ("llama-2-7b"). Raises UnknownItemError."""
        return self._by_id(self._models, model_id, "model")

    def find_model(self, query: str) -> ModelShape:
        """A model by id, Hugging Face repo id ("meta-llama/Llama-3.1-8B") or unique name fragment ("llama 3.1 8b").
        Raises UnknownItemError/AmbiguousItemError."""
        wanted = (query or "").strip().lower()
        for shape in self._models:
            if shape.hf_repo and shape.hf_repo.lower() == wanted:
                return shape
        return find_item(self._models, query, "model", _("the Catalog lists the model ids"))

    def precision_support(self) -> list[PrecisionSupport]:
        """Hardware precision support per architecture, with minimum CUDA/driver/PyTorch versions."""
        return list(self._data["precision_support"])

    def cuda_arch_support(self) -> list[CudaArchSupport]:
        """Which CUDA versions added and dropped which SM versions."""
        return list(self._data["cuda_arch_support"])

    def software_stacks(self) -> list[SoftwareStack]:
        """Vendor software stacks of the non-CUDA architectures (CANN, ROCm, Intel Gaudi software, NeuWare)."""
        return list(self._data["software_stacks"])

    def prices(self, item_id: str | None = None) -> list[Price]:
        """Dated, sourced prices (purchase and cloud), all of them or those of one GPU / server id."""
        rows = self._data["prices"]
        return [p for p in rows if item_id is None or p.item_id == item_id]

    def scenarios(self) -> list[Scenario]:
        """The article's quick-reference scenarios, corrected per the errata."""
        return list(self._data["scenarios"])

    def meta(self) -> dict[str, Any]:
        """Build facts: ``build_date`` (latest date checked), ``schema_version`` (int), ``sources_sha256``,
        ``counts`` (table -> rows), ``units``, ``path`` and ``sources`` (list of dicts: id, name, publisher,
        url, licence, used_for, attribution, date_checked)."""
        meta: dict[str, Any] = dict(self._meta)
        meta["schema_version"] = int(meta.get("schema_version", 0))
        meta["counts"] = json.loads(meta.get("counts", "{}"))
        meta["sources"] = [dict(s) for s in self._sources]
        meta["path"] = str(self.path)
        return meta

    def close(self) -> None:
        """Close the SQLite connection (search_gpus then fails; the loaded lists stay usable)."""
        with self._lock:
            self._conn.close()

    def _by_id(self, items: Sequence[N], item_id: str, kind: str) -> N:
        for item in items:
            if item.id == item_id:
                return item
        ids = ", ".join(i.id for i in items)
        raise UnknownItemError(_("No {kind} with id {item_id!r}. Known {kind} ids: {ids}.").format(
            kind=kind_name(kind), item_id=item_id, ids=ids))


def open_catalog(path: str | Path | None = None) -> Catalog:
    """Open the bundled catalog read-only and load it.

    Args:
        path: the database file; defaults to :func:`gpudesk.paths.catalog_path` (``GPUDESK_CATALOG``
            overrides it).

    Raises:
        CatalogError: the file is missing, is not a SQLite database, is damaged, or has another schema
            version. The message says how to get a good catalog back.
    """
    target = Path(path) if path is not None else paths.catalog_path()
    if not target.is_file():
        raise CatalogError(_("The GPU catalog {path} is missing. {hint}").format(path=target, hint=_rebuild_hint()))
    uri = target.resolve().as_uri() + "?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
    except sqlite3.Error as exc:
        raise CatalogError(_("Cannot open the GPU catalog {path}: {reason}. {hint}").format(
            path=target, reason=exc, hint=_rebuild_hint())) from exc
    conn.row_factory = sqlite3.Row
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA_VERSION:
            raise CatalogError(_(
                "The GPU catalog {path} has schema version {version}, but this gpudesk reads version {expected}. "
                "{hint}").format(path=target, version=version, expected=SCHEMA_VERSION, hint=_rebuild_hint()))
        return Catalog(conn, target, _cached_tables(conn, target))
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise CatalogError(_("The GPU catalog {path} is damaged or not a catalog ({reason}). {hint}").format(
            path=target, reason=exc, hint=_rebuild_hint())) from exc
    except (CatalogError, TypeError, KeyError, ValueError) as exc:
        conn.close()
        if isinstance(exc, CatalogError):
            raise
        raise CatalogError(_("The GPU catalog {path} does not match this gpudesk ({reason}). {hint}").format(
            path=target, reason=exc, hint=_rebuild_hint())) from exc
