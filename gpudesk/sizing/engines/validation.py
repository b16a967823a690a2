"""The engine memory models against real start-up logs: every figure the engine printed, predicted from the
inputs alone.

A case (one JSON line of ``tests/fixtures/engines/startup_logs.jsonl``) is one public log (``url``), the inputs
the log shows, written down before predicting (``inputs``: how the log maps onto them): ``engine``,
``engine_version``, ``platform``, the model (catalog ``model`` id, or ``config`` path relative to the fixture
folder), ``weight_format``, the device total the engine saw (``gpu_total_gib`` as printed, else the catalog
``gpu``, with ``ecc`` true/false where the log shows the ECC state, else as the card ships), ``gpus``, ``engine_args`` as the engine spells them; and the figures it ``printed``:

- weights: ``weights_gib`` (vLLM "model weights take"), ``model_size_gib`` (llama.cpp "model size"),
  ``weights_total_gib`` (Ollama "memory.weights.total");
- KV capacity: ``kv_cache_gib``, ``kv_cache_tokens``, ``kv_cache_blocks`` (vLLM, SGLang, TensorRT-LLM),
  ``kv_required_mib`` (Ollama "memory.required.kv");
- concurrency: ``max_concurrency`` (vLLM), ``max_running_requests`` (SGLang); offload: ``layers_offload``
  (Ollama, exact);
- llama.cpp buffers: ``kv_buffer_mib`` (all devices), ``compute_buffer_mib`` (first GPU), ``gpu_model_buffer_mib``
  (all GPUs), ``cpu_model_buffer_mib``;
- information only (not scored): ``activation_gib``, ``non_torch_gib``.

A case that cannot be predicted carries ``refused`` with the reason; a launch the engine model itself refuses (an
engine on a device it does not run on, :data:`REFUSING_FIELDS`) is scored as refused with the model's reason, the
one ``estimate serve`` gives a user. A case added after the models were last
changed carries ``added_after_model: true``; :func:`summarize` scores those separately too (``held_out``), the
figure that predicts logs nobody has seen, since constants refined after reading a log score it in-sample. Tolerances: weights 3 %, KV capacity and
concurrency 5 %, llama.cpp buffers 5 %.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpudesk.i18n import _
from gpudesk.paths import bundle_root
from gpudesk.sizing.engines.device import DeviceMemory
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.shapes import ModelSpec, spec_from_hf_config

from gpudesk.units import GIB, MIB
TOLERANCE = {"weights": 0.03, "kv": 0.05, "concurrency": 0.05, "buffers": 0.05, "offload": 0.0}
#: printed figure -> (category, unit in bytes or 1 for counts)
FIGURES: dict[str, tuple[str, float]] = {
    "weights_gib": ("weights", GIB), "model_size_gib": ("weights", GIB), "weights_total_gib": ("weights", GIB),
    "kv_cache_gib": ("kv", GIB), "kv_cache_tokens": ("kv", 1), "kv_cache_blocks": ("kv", 1),
    "kv_required_mib": ("kv", MIB), "max_concurrency": ("concurrency", 1), "max_running_requests": ("concurrency", 1),
    "layers_offload": ("offload", 1), "kv_buffer_mib": ("buffers", MIB), "compute_buffer_mib": ("buffers", MIB),
    "gpu_model_buffer_mib": ("buffers", MIB), "cpu_model_buffer_mib": ("buffers", MIB),
    "activation_gib": ("info", GIB), "non_torch_gib": ("info", GIB),
}
MAX_CASES_FILE_BYTES = 4 * 1024 * 1024
#: SizingError fields that mean "the model refuses this launch" (an engine on a device it does not run on), scored
#: as a refusal with its reason rather than as an error of the set.
REFUSING_FIELDS = frozenset({"gpu"})


def fixtures_dir() -> Path:
    return bundle_root() / "tests" / "fixtures" / "engines"


def default_cases_path() -> Path:
    """The bundled set (source checkout: ``tests/fixtures/engines/startup_logs.jsonl``)."""
    return fixtures_dir() / "startup_logs.jsonl"


@dataclass(frozen=True)
class Figure:
    """One printed figure and its prediction (in the unit of its name)."""

    name: str
    category: str
    printed: float
    predicted: float | None

    @property
    def error(self) -> float | None:
        if self.predicted is None or not self.printed:
            return None
        return self.predicted / self.printed - 1

    @property
    def within(self) -> bool:
        e = self.error
        return e is not None and abs(e) <= TOLERANCE.get(self.category, 0.0)


@dataclass(frozen=True)
class LogResult:
    """One start-up log: its figures, or why it was refused."""

    case_id: str
    url: str
    engine: str
    platform: str
    figures: tuple[Figure, ...] = ()
    refused: str = ""
    error: str = ""
    added_after_model: bool = False

    def passed(self, category: str) -> bool | None:
        """True when every figure of ``category`` is within tolerance; None when the log has none."""
        figs = [f for f in self.figures if f.category == category]
        return all(f.within for f in figs) if figs else None

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.case_id, "url": self.url, "engine": self.engine, "platform": self.platform,
                "refused": self.refused, "error": self.error, "added_after_model": self.added_after_model,
                "figures": [{"name": f.name, "category": f.category, "printed": f.printed,
                             "predicted": None if f.predicted is None else round(f.predicted, 4),
                             "error": None if f.error is None else round(f.error, 4), "within": f.within}
                            for f in self.figures]}


def _spec(case: dict[str, Any], base: Path) -> ModelSpec:
    if case.get("config"):
        return spec_from_hf_config(base / str(case["config"]))
    from gpudesk.catalog import open_catalog
    from gpudesk.sizing.shapes import spec_from_catalog

    return spec_from_catalog(open_catalog().model(str(case["model"])))


def _device(case: dict[str, Any]) -> DeviceMemory:
    backend = {"ROCm": "ROCm", "Metal": "Metal", "Vulkan": "Vulkan"}.get(str(case.get("platform", "CUDA")), "CUDA")
    if case.get("gpu_total_gib"):
        return DeviceMemory(str(case.get("gpu", "GPU")), int(float(case["gpu_total_gib"]) * GIB), backend)
    from gpudesk.catalog import open_catalog
    from gpudesk.sizing.capacity import gpu_reported_total_bytes

    gpu = open_catalog().gpu(str(case["gpu"]))
    ecc = case.get("ecc")  # the ECC state the log shows; absent: as the card ships
    return DeviceMemory(gpu.name, gpu_reported_total_bytes(gpu, None if ecc is None else bool(ecc)), backend,
                        nvlink=bool(gpu.nvlink_gbps and gpu.nvlink_gbps > 0))


def predict(case: dict[str, Any], base: Path) -> dict[str, float]:
    """Every figure the models give for ``case``'s inputs (keys as in :data:`FIGURES`, in their units)."""
    from gpudesk.sizing.engines.fit import engine_fit

    spec = _spec(case, base)
    device = _device(case)
    args = [str(a) for a in case.get("engine_args", [])]
    r = engine_fit(str(case["engine"]), spec, device, args, version=case.get("engine_version"),
                   weight_format=str(case.get("weight_format", "checkpoint")), gpus=int(case.get("gpus", 1)),
                   tensor_parallel=int(case.get("tp", 0)) or None)
    m = r.per_gpu
    out: dict[str, float] = {}
    if r.engine in ("vllm", "sglang", "trtllm"):
        out.update(weights_gib=m.weights_bytes / GIB, kv_cache_gib=m.kv_cache_bytes / GIB,
                   kv_cache_tokens=r.kv_cache_tokens, kv_cache_blocks=r.kv_cache_blocks,
                   max_concurrency=r.max_concurrency, activation_gib=m.activation_bytes / GIB,
                   non_torch_gib=m.non_torch_bytes / GIB)
        if r.engine == "sglang":
            out["max_running_requests"] = r.extra["max_running_requests"]
            out["kv_cache_gib"] = m.kv_cache_bytes / GIB
    elif r.engine == "llamacpp":
        bufs = r.extra["buffers"]
        gpu_bufs, host = bufs[:-1], bufs[-1]
        out.update(model_size_gib=r.extra["model_size_bytes"] / GIB,
                   kv_buffer_mib=sum(b["kv_bytes"] for b in bufs) / MIB,
                   compute_buffer_mib=gpu_bufs[0]["compute_bytes"] / MIB if gpu_bufs else 0.0,
                   gpu_model_buffer_mib=sum(b["model_bytes"] for b in gpu_bufs) / MIB,
                   cpu_model_buffer_mib=host["model_bytes"] / MIB)
    else:
        out.update(weights_total_gib=r.extra["memory_weights_total_bytes"] / GIB,
                   kv_required_mib=r.extra["memory_required_kv_bytes"] / MIB,
                   layers_offload=r.extra["layers_offload"],
                   model_size_gib=r.extra["memory_weights_total_bytes"] / GIB)
    return out


def evaluate_case(case: dict[str, Any], base: Path) -> LogResult:
    cid, url = str(case.get("id", "?")), str(case.get("url", ""))
    engine, platform = str(case.get("engine", "")), str(case.get("platform", "CUDA"))
    late = bool(case.get("added_after_model", False))
    if case.get("refused"):
        return LogResult(cid, url, engine, platform, refused=str(case["refused"]), added_after_model=late)
    printed = case.get("printed") or {}
    try:
        got = predict(case, base)
    except SizingError as exc:
        if exc.field in REFUSING_FIELDS:
            # The engine model refuses these inputs, with the reason a user of ``estimate serve`` gets too.
            return LogResult(cid, url, engine, platform, refused=exc.detail or str(exc), added_after_model=late)
        return LogResult(cid, url, engine, platform, error=str(exc), added_after_model=late)
    figures = tuple(Figure(name, FIGURES[name][0], float(value), got.get(name))
                    for name, value in printed.items() if name in FIGURES)
    return LogResult(cid, url, engine, platform, figures=figures, added_after_model=late)


def load_cases(path: str | Path | None = None) -> tuple[list[dict[str, Any]], Path]:
    """The cases of ``path`` (default: the bundled set) and the folder their config paths are relative to.

    Raises:
        SizingError (field ``cases``): unreadable, too large, or a line that is not a JSON object.
    """
    p = Path(path) if path else default_cases_path()
    try:
        if p.stat().st_size > MAX_CASES_FILE_BYTES:
            raise SizingError("cases", _("{path} is larger than 4 MiB.").format(path=p))
        lines = p.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise SizingError("cases", _("cannot read {path}: {error}").format(path=p, error=exc.strerror or exc)) from exc
    cases = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            case = json.loads(line)
        except ValueError as exc:
            raise SizingError("cases", _("{path} line {n} is not JSON.").format(path=p, n=n)) from exc
        if not isinstance(case, dict):
            raise SizingError("cases", _("{path} line {n} is not a JSON object.").format(path=p, n=n))
        cases.append(case)
    return cases, p.parent


def evaluate(path: str | Path | None = None) -> list[LogResult]:
    cases, base = load_cases(path)
    return [evaluate_case(c, base) for c in cases]


@dataclass(frozen=True)
class CategoryScore:
    logs: int
    within: int

    @property
    def share(self) -> float:
        return self.within / self.logs if self.logs else 0.0


@dataclass(frozen=True)
class Summary:
    logs: int
    predicted: int
    refused: int
    errors: int
    by_engine: dict[str, int] = field(default_factory=dict)
    categories: dict[str, CategoryScore] = field(default_factory=dict)
    held_out: Summary | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {"logs": self.logs, "predicted": self.predicted, "refused": self.refused, "errors": self.errors,
               "by_engine": self.by_engine,
               "categories": {k: {"logs": v.logs, "within": v.within, "share": round(v.share, 4),
                                  "tolerance": TOLERANCE[k]} for k, v in self.categories.items()}}
        if self.held_out is not None:
            out["held_out"] = self.held_out.to_dict()
        return out


def summarize(results: list[LogResult]) -> Summary:
    """Per category: logs with a figure of it and those whose figures are all within tolerance; ``held_out``:
    the same over the logs added after the models were last changed (None when there are none)."""
    late = [r for r in results if r.added_after_model]
    summary = _summarize(results)
    if late:
        summary = Summary(summary.logs, summary.predicted, summary.refused, summary.errors, summary.by_engine,
                          summary.categories, _summarize(late))
    return summary


def _summarize(results: list[LogResult]) -> Summary:
    cats: dict[str, CategoryScore] = {}
    for cat in TOLERANCE:
        flags = [r.passed(cat) for r in results if not r.refused and not r.error]
        scored = [f for f in flags if f is not None]
        cats[cat] = CategoryScore(len(scored), sum(1 for f in scored if f))
    engines: dict[str, int] = {}
    for r in results:
        engines[r.engine] = engines.get(r.engine, 0) + 1
    return Summary(len(results), sum(1 for r in results if not r.refused and not r.error),
                   sum(1 for r in results if r.refused), sum(1 for r in results if r.error), engines, cats)
