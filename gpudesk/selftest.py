"""``gpudesk --self-test``: a smoke test of an installed or bundled gpudesk, one line per check.

Each check exercises a feature the way the app does, on data that ships with the app (the bundled
catalog, the bundled examples and sample texts), and prints ``ok   <check>: <what it saw>`` or
``FAIL <check>: <error>``. The last line is ``gpudesk <version> self-test: N passed, M failed``; the exit status
is 0 when every check passed, 1 otherwise.

The self-test never touches the user's files: unless ``GPUDESK_DATA_DIR`` is already set it points the user data
folder at a temporary folder that is removed afterwards. The window check runs on Qt's ``offscreen`` platform
unless ``QT_QPA_PLATFORM`` is set, so it works over SSH and in CI; it is the only check that imports Qt.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from gpudesk import __version__, paths
from gpudesk.errors import GpudeskError
from gpudesk.i18n import _

WINDOW_PAINT_TIMEOUT_S = 20.0


class SelfTestError(GpudeskError):
    """A self-test check saw something wrong; the message says what and where."""


@dataclass(frozen=True)
class CheckResult:
    """Outcome of one check: its name, whether it passed, and one line of detail (or the error)."""

    name: str
    ok: bool
    detail: str

    def line(self) -> str:
        return f"{'ok  ' if self.ok else 'FAIL'} {self.name}: {self.detail}"


def check_install() -> str:
    """Bundled files are read from the install folder and user data goes elsewhere (the first-run design)."""
    root = paths.bundle_root()
    frozen = getattr(sys, "_MEIPASS", None) is not None
    catalog = paths.catalog_path()
    data = paths.data_dir()
    notices = paths.resources_dir() / "THIRD_PARTY_NOTICES.md"
    if not notices.is_file():
        raise SelfTestError(_('third-party notices missing: {notices}').format(notices=notices))
    if frozen and not catalog.resolve().is_relative_to(root.resolve()) and "GPUDESK_CATALOG" not in os.environ:
        raise SelfTestError(_('bundled catalog {catalog} is outside the bundle {root}').format(catalog=catalog, root=root))
    leaked = [p for p in os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep) if p and frozen
              and Path(p).resolve().is_relative_to(root.resolve())]
    if leaked:
        raise SelfTestError(_("programs started by gpudesk would load the bundle's private libraries "
                              "(LD_LIBRARY_PATH has {path})").format(path=leaked[0]))
    if data.resolve().is_relative_to(root.resolve()):
        raise SelfTestError(_('user data folder {data} is inside the install folder {root}').format(data=data, root=root))
    probe = data / ".selftest-write"
    probe.write_text("ok", encoding="utf-8")
    probe.unlink()
    kind = _("frozen bundle") if frozen else _("source/pip install")
    return _("{kind} at {root}; user data folder {data} is writable and outside it; notices present; child processes "
             "get the user's library path").format(kind=kind, root=root, data=data)


def check_catalog() -> str:
    """Open the bundled catalog read-only through gpudesk.catalog and run a full-text search on it."""
    from gpudesk.catalog import open_catalog

    catalog = open_catalog()
    try:
        gpus = catalog.gpus()
        hits = catalog.search_gpus("H100")
        meta = catalog.meta()
    finally:
        catalog.close()
    if not gpus:
        raise SelfTestError(_('catalog {path} lists no GPUs').format(path=catalog.path))
    if not hits:
        raise SelfTestError(_("full-text search for 'H100' found nothing in {path}").format(path=catalog.path))
    return _("{gpus} GPUs, {servers} servers, {models} models (schema {schema}, built {built}); search 'H100' -> "
             "{hits} hits; read-only from {path}").format(
                 gpus=len(gpus), servers=meta["counts"].get("servers", 0), models=meta["counts"].get("models", 0),
                 schema=meta["schema_version"], built=meta.get("build_date"), hits=len(hits), path=catalog.path)


def check_plan() -> str:
    """Plan every bundled example profile (``resources/examples/*.toml``) against the bundled catalog."""
    from gpudesk.catalog import open_catalog
    from gpudesk.planner import load_profile, plan

    profiles = sorted(paths.examples_dir().glob("*.toml"))
    if not profiles:
        raise SelfTestError(_('no example profiles (*.toml) in {examples_dir}').format(examples_dir=paths.examples_dir()))
    catalog = open_catalog()
    try:
        summaries = []
        for profile in profiles:
            requirement = load_profile(profile)
            requirement.validate()
            result = plan(requirement, catalog)
            if not result.candidates and not result.rejected:
                raise SelfTestError(_('{name}: the plan evaluated no GPU at all').format(name=profile.name))
            top = result.top
            summaries.append(f"{profile.stem}: {top.count} x {top.gpu_id}" if top is not None
                             else _('{stem}: no GPU fits').format(stem=profile.stem))
    finally:
        catalog.close()
    return _("{n} example profiles planned, best candidates ({summaries})").format(n=len(profiles),
                                                                                  summaries="; ".join(summaries))


def selftest_input(name: str) -> Path:
    """A bundled self-test input from ``resources/selftest`` (real captured texts; see its README.md)."""
    path = paths.resources_dir() / "selftest" / name
    if not path.is_file():
        raise SelfTestError(_('bundled self-test input {path} is missing').format(path=path))
    return path


def check_oom() -> str:
    """Parse the bundled PyTorch CUDA OOM message and diagnose it through gpudesk.oom.

    Expected values are the message's own: "Tried to allocate 550.00 MiB", "GPU 0".
    """
    from gpudesk.oom import diagnose, parse_text

    path = selftest_input("oom-pytorch.txt")
    report = parse_text(path.read_text(encoding="utf-8"))
    if report.framework != "pytorch":
        raise SelfTestError(_("{name}: framework read as {framework!r}, expected 'pytorch'").format(name=path.name, framework=report.framework))
    if report.requested_bytes != 550 * 1024**2 or report.device_index != 0:
        raise SelfTestError(_("{name}: read request {requested} bytes on GPU {index}, expected {expected} bytes on "
                              "GPU 0").format(name=path.name, requested=report.requested_bytes,
                                              index=report.device_index, expected=550 * 1024**2))
    diagnosis = diagnose(report)
    if diagnosis.top is None:
        raise SelfTestError(_('{name}: the diagnosis names no cause').format(name=path.name))
    probe_lines = _probe_source_lines()
    return _("{name}: PyTorch {era} message, 550 MiB requested on GPU 0; top cause '{cause}' ({confidence:.0%} "
             "confidence); probe ({lines} lines) and launch bootstrap sources compile").format(
                 name=path.name, era=report.era, cause=diagnosis.top.id, confidence=diagnosis.top.confidence,
                 lines=probe_lines)


def _probe_source_lines() -> int:
    """Compile the sources that the OOM doctor puts into a target process; returns the probe's line count.

    The probe (``probe_script``) and the launch bootstrap are read or copied from their ``__file__``, so in a
    frozen bundle they must ship as source (PyInstaller otherwise keeps modules compiled). On POSIX the probe
    is also written the way an attach does it (gpudesk.oom.injection; attaching is Linux-first).
    """
    from gpudesk.oom import launch_bootstrap, probe_script

    sources = {}
    for module in (probe_script, launch_bootstrap):
        path = Path(module.__file__ or "")  # a module without a file is not shipped as source either
        if path.suffix != ".py" or not path.is_file():
            raise SelfTestError(_('{module} ships compiled only ({path}); the OOM doctor cannot inject it').format(module=module.__name__, path=path))
        sources[module.__name__] = path.read_text(encoding="utf-8")
        compile(sources[module.__name__], str(path), "exec")
    if os.name == "posix":
        from gpudesk.oom.injection import write_probe_files

        with tempfile.TemporaryDirectory(prefix="gpudesk-selftest-probe-") as folder:
            probe, _result, stub = write_probe_files(Path(folder))
            compile(probe.read_text(encoding="utf-8"), str(probe), "exec")
            compile(stub, "<stub>", "exec")
    return sources[probe_script.__name__].count("\n")


def check_dmon() -> str:
    """Parse the bundled ``nvidia-smi dmon -s pucvmet`` capture (4 GPUs) and compare known readings.

    Expected values are the capture's own numbers: GPU 0 at 111 W and 25 % SM, 11651 MiB framebuffer used.
    """
    from gpudesk.telemetry.core import model
    from gpudesk.telemetry.formats.dmon import read_dmon_file

    path = selftest_input("dmon-pucvmet.txt")
    log = read_dmon_file(path)
    frame = log.frame
    expected = {model.POWER: 111.0, model.GPU_UTIL: 25.0, model.MEM_USED: 11651 * 1024**2}
    if frame.gpus != [0, 1, 2, 3]:
        raise SelfTestError(_('{name}: expected GPUs 0-3, read {gpus}').format(name=path.name, gpus=frame.gpus))
    for metric, want in expected.items():
        _times, values = frame.series(0, metric)
        if len(values) != 1 or values[0] != want:
            raise SelfTestError(_("{name}: GPU 0 {metric} expected {want}, read {values}").format(
                name=path.name, metric=metric, want=want, values=[float(v) for v in values]))
    return _("{name}: {rows} rows, GPUs {gpus}, {columns} dmon columns; GPU 0 at 111 W").format(
        name=path.name, rows=len(frame), gpus=frame.gpus, columns=len(log.columns))


def check_languages() -> str:
    """Every language offered besides English has both its catalogs installed: the core's gettext messages
    (``gpudesk/locale/<lang>/LC_MESSAGES/gpudesk.mo``: command line, plans, findings, causes) and the window's Qt
    translation (``resources/translations/gpudesk_<lang>.qm``). A wheel built without them still runs, in English
    only, so nothing else would notice."""
    import gettext

    from gpudesk import i18n

    checked = []
    for language in i18n.LANGUAGES:
        if language == "en":
            continue
        mo = i18n.LOCALE_DIR / language / "LC_MESSAGES" / f"{i18n.DOMAIN}.mo"
        try:
            with mo.open("rb") as handle:
                core = gettext.GNUTranslations(handle)
        except OSError as exc:
            raise SelfTestError(_("the {language} messages of the command line and reports are missing: {path} "
                                  "({error})").format(language=language, path=mo, error=exc)) from exc
        probe = "source/pip install"  # a message of this module, so the check needs no other part of the catalog
        if core.gettext(probe) == probe:
            raise SelfTestError(_("{path} does not translate the messages of gpudesk {version}").format(
                path=mo, version=__version__))
        qm = paths.resources_dir() / "translations" / f"gpudesk_{language}.qm"
        if not qm.is_file():
            raise SelfTestError(_("the {language} translation of the window is missing: {path}").format(
                language=language, path=qm))
        checked.append(language)
    return _("core messages and window translation installed for {languages}").format(languages=", ".join(checked))


def check_window() -> str:
    """Open the main window (offscreen unless QT_QPA_PLATFORM says otherwise), wait for its first paint."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from gpudesk.ui.selftest_window import open_and_paint

    return open_and_paint(WINDOW_PAINT_TIMEOUT_S)


CHECKS: list[tuple[str, Callable[[], str]]] = [
    ("install", check_install),
    ("catalog", check_catalog),
    ("plan", check_plan),
    ("oom", check_oom),
    ("dmon", check_dmon),
    ("languages", check_languages),
    ("window", check_window),
]


def run_checks(checks: list[tuple[str, Callable[[], str]]] | None = None) -> list[CheckResult]:
    """Run each check once and collect its result; a failing check never stops the ones after it."""
    results = []
    for name, func in checks if checks is not None else CHECKS:
        try:
            results.append(CheckResult(name, True, func()))
        except Exception as exc:  # noqa: BLE001 - every failure of a check is reported on its line
            results.append(CheckResult(name, False, f"{type(exc).__name__}: {exc}"))
    return results


def run_selftest(out: TextIO | None = None) -> int:
    """Run all checks with a throw-away user data folder; print one line per check; 0 if all passed."""
    if out is None:
        out = sys.stdout
        reconfigure = getattr(out, "reconfigure", None)
        if callable(reconfigure):  # a console in a legacy code page must not end the run on a non-ASCII name
            reconfigure(errors="backslashreplace")
    tmp = None
    if not os.environ.get(paths.ENV_DATA_DIR):
        tmp = tempfile.mkdtemp(prefix="gpudesk-selftest-")
        os.environ[paths.ENV_DATA_DIR] = tmp
    started = time.perf_counter()
    try:
        results = []
        for name, func in CHECKS:
            (result,) = run_checks([(name, func)])
            results.append(result)
            print(result.line(), file=out, flush=True)
    finally:
        if tmp is not None:
            del os.environ[paths.ENV_DATA_DIR]
            try:
                shutil.rmtree(tmp)
            except OSError as exc:
                print(_("gpudesk: could not remove the self-test's temporary folder {tmp}: {exc}").format(tmp=tmp, exc=exc), file=sys.stderr)
    failed = sum(not r.ok for r in results)
    elapsed = time.perf_counter() - started
    print(_("gpudesk {version} self-test: {passed} passed, {failed} failed in {elapsed_s:.1f} s").format(
        version=__version__, passed=len(results) - failed, failed=failed, elapsed_s=elapsed),
          file=out, flush=True)
    return 1 if failed else 0
