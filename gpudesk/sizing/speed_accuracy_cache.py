"""The speed check's finished per-set summaries kept on disk, so a second "How accurate is this?" is instant.

Predicting every bundled measured run takes minutes (:mod:`gpudesk.sizing.speed_validation`). Each set's
:func:`~gpudesk.sizing.speed_validation.speed_set_class_rows` is written to ``<cache dir>/speed_accuracy/<set>.json``
with the key it was computed under, and read back only while the key is the same. The key is a SHA-256 over
everything a prediction reads: gpudesk's version, the set's fixture files, the model configurations of the
fixture folder and every ``config.json`` the set's rows name (most live under ``tests/fixtures/sizing/configs``),
every Python file of the gpudesk package outside its UI (the models and what they import), and the catalog file; a
change to any of them gives another key, so old figures are never shown. A cache file that cannot be
read or parsed is a miss (the set is predicted again and the file rewritten); a file that cannot be written is
reported to the caller, and the figures are shown all the same.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpudesk import __version__, paths
from gpudesk.i18n import _
from gpudesk.sizing import speed_validation as sv

FORMAT = 1  # the layout of a cache file; a new layout changes every key


def _hash_file(digest: Any, path: Path) -> None:
    """Feed ``path``'s name and contents (or that it is missing) to ``digest``."""
    digest.update(str(path).encode("utf-8", "surrogateescape") + b"\0")
    try:
        digest.update(path.read_bytes())
    except OSError:
        digest.update(b"\0missing\0")
    digest.update(b"\0")


def models_digest(folder: Path | None = None) -> str:
    """SHA-256 over what every set's predictions read besides the set's own files (module docstring); ``folder`` is
    the measured-run folder (default :func:`~gpudesk.sizing.speed_validation.speed_cases_dir`)."""
    digest = hashlib.sha256(f"gpudesk {__version__} cache format {FORMAT}\0".encode())
    package = paths.package_dir()
    sources = sorted(p for p in package.rglob("*.py") if "ui" not in p.relative_to(package).parts[:1])
    for path in sources:
        _hash_file(digest, path)
    if not sources:  # a frozen build keeps no .py files: its executable stands for the code
        _hash_file(digest, Path(sys.executable))
    _hash_file(digest, paths.catalog_path())
    configs = (folder or sv.speed_cases_dir()) / "configs"
    for path in sorted(configs.rglob("*")) if configs.is_dir() else []:
        if path.is_file():
            _hash_file(digest, path)
    return digest.hexdigest()


def _row_config_paths(model: str) -> list[Path]:
    """Where a row's ``model`` that names a ``config.json`` can be read from: the places the case readers look
    (:func:`gpudesk.sizing.speed_serve_cases._spec`: under ``tests/fixtures``, then the source checkout;
    :func:`gpudesk.sizing.speed_train_cases.case_model`: the source checkout). [] for a catalog model id."""
    if not model.endswith(".json"):
        return []
    path = Path(model)
    if path.is_absolute():
        return [path]
    root = paths.bundle_root()
    return [root / "tests" / "fixtures" / path, root / path]


def set_key(set_name: str, models: str, folder: Path | None = None) -> str:
    """The key of ``set_name``'s summary: ``models`` (:func:`models_digest`), the set's own fixture files in
    ``folder`` (default :func:`~gpudesk.sizing.speed_validation.speed_cases_dir`) and the model configurations its
    rows name. The one key of a set's predictions: this disk cache and the process's own
    (:func:`gpudesk.sizing.speed_validation.evaluate_speed_set`) both use it.

    Raises:
        ConfigFileError: a fixture file of the set cannot be read (:func:`gpudesk.sizing.speed_validation.read_rows`).
    """
    base = folder or sv.speed_cases_dir()
    digest = hashlib.sha256(f"{models}\0{set_name}\0".encode())
    configs: set[Path] = set()
    for name in sv.SET_FILES[set_name]:
        _hash_file(digest, base / name)
        for row in sv.read_rows(base / name):
            configs.update(_row_config_paths(str(row.get("model") or "")))
    for path in sorted(configs):
        _hash_file(digest, path)
    return digest.hexdigest()


def cache_file(set_name: str) -> Path:
    """Where ``set_name``'s summary is kept."""
    return paths.cache_dir() / "speed_accuracy" / f"{set_name}.json"


def read_cached(set_name: str, key: str) -> list[dict[str, Any]] | None:
    """The kept summary of ``set_name`` when it was computed under ``key``; None otherwise (no file, another key, a
    file that cannot be read or parsed: the caller predicts the set again and rewrites it)."""
    try:
        data = json.loads(cache_file(set_name).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("key") != key or not isinstance(data.get("rows"), list):
        return None
    rows = data["rows"]
    return rows if all(isinstance(r, dict) for r in rows) else None


def write_cached(set_name: str, key: str, rows: list[dict[str, Any]]) -> None:
    """Keep ``rows`` as ``set_name``'s summary under ``key`` (written whole: a temporary file, then renamed).

    Raises:
        OSError: the cache folder or file cannot be written.
    """
    target = cache_file(set_name)
    target.parent.mkdir(parents=True, exist_ok=True)
    # One temporary name per process and thread: the dialog's check and a CLI check in one process may write the
    # same set at once, each its own whole file.
    temporary = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        temporary.write_text(json.dumps({"key": key, "rows": rows}), encoding="utf-8")
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)


@dataclass(frozen=True)
class SpeedCheck:
    """The speed check of every bundled set: :func:`~gpudesk.sizing.speed_validation.load_speed_accuracy`'s rows,
    and why its summaries could not be kept for next time (None: kept, or nothing to keep)."""

    rows: list[dict[str, Any]]
    cache_error: str | None = None


def check_speed_sets(on_set: Callable[[str, int, int, list[dict[str, Any]]], None] | None = None,
                     should_stop: Callable[[], bool] | None = None) -> SpeedCheck | None:
    """Every bundled set's summary in :data:`~gpudesk.sizing.speed_validation.SET_FILES` order, from the cache
    where its key matches, else predicted (and kept). ``on_set(set_name, number, total, rows)`` is called as each set is done (``number`` from 1);
    ``should_stop`` is asked between rows, and once it answers true the check ends and returns None."""
    models = models_digest()
    names = list(sv.SET_FILES)
    rows: list[dict[str, Any]] = []
    cache_error: str | None = None
    for number, set_name in enumerate(names, 1):
        if should_stop is not None and should_stop():
            return None
        key = set_key(set_name, models)
        part = read_cached(set_name, key)
        if part is None:
            part = sv.speed_set_class_rows(set_name, should_stop)
            if part is None:
                return None
            try:
                write_cached(set_name, key, part)
            except OSError as exc:
                cache_error = _("cannot write {path}: {error}").format(path=cache_file(set_name).parent,
                                                                       error=exc.strerror or exc)
        rows += part
        if on_set is not None:
            on_set(set_name, number, len(names), part)
    return SpeedCheck(rows, cache_error)
