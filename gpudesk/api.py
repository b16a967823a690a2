"""The public, Qt-free API for scripting gpudesk: ``from gpudesk.api import ...``.

Every name here is the same function or class the CLI and the window call (each use case lives once, in its core
package); this module only gathers them under one stable import path, listed exactly in ``__all__``. Importing it
loads no Qt (tests/test_api.py). docs/api.md documents each name with an example that CI runs.

Units are in the names: bytes, seconds, watts; ``None`` is a value that is not known, never 0. Every error raised
on purpose is a :class:`GpudeskError` (``message``, ``field``, ``detail``, ``remedy``; ``user_text()`` joins them).

Use cases and their names:

- Catalog: ``open_catalog`` -> :class:`Catalog` (``find_gpu``, ``gpus``, ``find_model``, ``servers``, ``links``).
- Model shape: ``resolve_model(ModelMemory(model=... | params=... | config_path=...), catalog)`` ->
  :class:`ModelSpec`.
- Memory: ``estimate_memory(spec, MemoryWorkload(...))`` -> :class:`MemoryEstimate`; ``fit(need_bytes,
  gpu.memory_bytes, gpu.memory_type)`` -> :class:`Fit` against the safe line.
- Speed: ``train_speed(spec, gpu_rates(gpu), TrainSetup(...))`` -> :class:`TrainSpeed`;
  ``serve_speed(spec, gpu, ServeLoad(...))`` -> :class:`ServeSpeed`.
- Serving engine fit: ``engine_fit(engine, spec, catalog_device(gpu), ["name=value", ...])`` -> :class:`EngineFit`.
- Plan: ``load_profile(path, catalog)`` -> :class:`Requirement`; ``plan_document(req, catalog)`` ->
  :class:`PlanDocument` (docs/plan-document.md; ``to_json()`` / ``PlanDocument.from_json()``);
  ``plan_to_markdown(doc)`` the configuration sheet.
- OOM doctor: ``diagnose_text(text)`` = ``diagnose(parse_text(text))`` -> :class:`Diagnosis`.
- Monitor logs: ``frame_and_devices_from_file(path, gpu=None)`` -> (frame, devices, log read);
  ``analyze(frame, devices)`` -> :class:`Analysis` (statistics, findings, summary); ``demo_path()`` a real capture.
- Files shipped with gpudesk: ``examples_dir()`` (example profiles), ``resources_dir()``.
- Language of messages: ``set_language("zh_CN" | "en" | None)``.
"""

from __future__ import annotations

from gpudesk.catalog import GPU, AmbiguousItemError, Catalog, CatalogError, UnknownItemError, open_catalog
from gpudesk.errors import GpudeskError
from gpudesk.i18n import set_language
from gpudesk.oom import Cause, Diagnosis, MemoryReport, OomError, OomInputError, diagnose, diagnose_text, parse_text
from gpudesk.paths import examples_dir, resources_dir
from gpudesk.planner import ModelMemory, PlanInputError, PlannerError, Requirement, load_profile, resolve_model
from gpudesk.planner.document import PlanDocument
from gpudesk.planner.mixed import plan_document
from gpudesk.planner.sheet_markdown import plan_to_markdown
from gpudesk.sizing import (
    Fit,
    MemoryEstimate,
    MemoryWorkload,
    ModelSpec,
    ShapeError,
    SizingError,
    estimate_memory,
    fit,
)
from gpudesk.sizing.engines.common import EngineFit
from gpudesk.sizing.engines.device import catalog_device
from gpudesk.sizing.engines.fit import engine_fit
from gpudesk.sizing.serve_load import ServeLoad
from gpudesk.sizing.speed_serve import ServeSpeed, serve_speed
from gpudesk.sizing.speed_train import TrainSetup, TrainSpeed, train_speed
from gpudesk.sizing.speed_train_cases import gpu_rates
from gpudesk.telemetry.rules.analysis import Analysis, analyze
from gpudesk.telemetry.formats.dmon_import import demo_path, frame_and_devices_from_file
from gpudesk.telemetry.core.model import TelemetryError
from gpudesk.telemetry.rules.base import Finding

__all__ = [
    # catalog
    "GPU",
    "AmbiguousItemError",
    "Catalog",
    "CatalogError",
    "UnknownItemError",
    "open_catalog",
    # model shape, memory, speed, serving engine fit
    "EngineFit",
    "Fit",
    "MemoryEstimate",
    "MemoryWorkload",
    "ModelMemory",
    "ModelSpec",
    "ServeLoad",
    "ServeSpeed",
    "ShapeError",
    "SizingError",
    "TrainSetup",
    "TrainSpeed",
    "catalog_device",
    "engine_fit",
    "estimate_memory",
    "fit",
    "gpu_rates",
    "resolve_model",
    "serve_speed",
    "train_speed",
    # plan
    "PlanDocument",
    "PlanInputError",
    "PlannerError",
    "Requirement",
    "load_profile",
    "plan_document",
    "plan_to_markdown",
    # OOM doctor
    "Cause",
    "Diagnosis",
    "MemoryReport",
    "OomError",
    "OomInputError",
    "diagnose",
    "diagnose_text",
    "parse_text",
    # monitor logs
    "Analysis",
    "Finding",
    "TelemetryError",
    "analyze",
    "demo_path",
    "frame_and_devices_from_file",
    # shared
    "GpudeskError",
    "examples_dir",
    "resources_dir",
    "set_language",
]
