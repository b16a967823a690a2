"""Import a dmon log as a recording session, with the PCIe link (and memory capacity) taken from the GPU
model the user picks in the catalog - a dmon log carries neither. That assumption is stored with the session
(``gpu_model``, ``link_assumption``, and ``pcie_link_source = "catalog:<id>"`` per GPU) so the UI can show it
next to every PCIe share.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from gpudesk.store.sqlite_lib import Database

from gpudesk.file_limits import display_path
from gpudesk.i18n import _
from gpudesk.progress import Progress
from gpudesk.telemetry.formats.dmon import DmonError
from gpudesk.telemetry.formats.log_formats import LogRead, read_log_file, read_log_text
from gpudesk.telemetry.core.model import DeviceInfo, History, TelemetryError
from gpudesk.nvml.pcie import describe_link
from gpudesk.telemetry.recording.recorder import Recorder


def resolve_gpu_model(query: str, catalog: Any = None) -> Any:
    """The catalog GPU for a model name or id (e.g. "a100 80gb pcie").

    Raises:
        TelemetryError: the catalog cannot be opened, or the name matches none or several GPUs (listed).
    """
    from gpudesk.catalog import AmbiguousItemError, CatalogError, UnknownItemError, open_catalog

    try:
        cat = catalog if catalog is not None else open_catalog()
        return cat.find_gpu(query)
    except (AmbiguousItemError, UnknownItemError) as exc:
        # the catalog's own message: the matches, or "Did you mean ...?" and how to list the GPUs
        raise TelemetryError(_("GPU model: {problem}").format(problem=exc.message), field=query, detail=exc.detail,
                             remedy=exc.remedy) from exc
    except CatalogError as exc:
        raise TelemetryError(_("Cannot open the GPU catalog: {problem}").format(problem=exc.message), detail=exc.detail,
                             remedy=exc.remedy) from exc


def devices_for_model(gpu_indices: list[int], gpu: Any | None, pcie_gen: int | None = None,
                      pcie_width: int | None = None) -> list[DeviceInfo]:
    """DeviceInfo per GPU of a dmon log, assuming every GPU is the catalog model ``gpu`` (or unknown).

    The link is an assumption: ``pcie_link_source`` is "catalog:<id>" when it is the model's datasheet link,
    "user" when the user gave another generation and width (``pcie_gen``, ``pcie_width``: a x16 card in a x8 slot).
    """
    out = []
    for i in gpu_indices:
        if gpu is None:
            out.append(DeviceInfo(i, reasons={"pcie_gen_max": _("dmon logs carry no PCIe link; pick the GPU model")}))
            continue
        out.append(DeviceInfo(
            index=i, name=gpu.name, memory_total_bytes=gpu.memory_bytes, pcie_gen_max=gpu.pcie_gen,
            pcie_width_max_lanes=gpu.pcie_lanes, pcie_link_source=f"catalog:{gpu.id}",
            power_limit_w=float(gpu.tdp_w) if getattr(gpu, "tdp_w", None) else None,
        ))
    if pcie_gen and pcie_width and (gpu is None or (pcie_gen, pcie_width) != (gpu.pcie_gen, gpu.pcie_lanes)):
        out = [replace(d, pcie_gen_max=pcie_gen, pcie_width_max_lanes=pcie_width, pcie_link_source="user")
               for d in out]
    return out


def link_assumption_text(gpu: Any | None) -> str:
    if gpu is None:
        return "PCIe link unknown (no GPU model picked): PCIe shares cannot be computed"
    return f"assumed from the catalog model {gpu.name}: " + describe_link(gpu.pcie_gen, gpu.pcie_lanes, f"catalog:{gpu.id}")


def log_devices(read: LogRead, gpu: Any | None, pcie_gen: int | None = None,
                pcie_width: int | None = None) -> list[DeviceInfo]:
    """DeviceInfo per GPU row of a log: the catalog model's link and memory (when picked; ``pcie_gen`` and
    ``pcie_width`` when the user gave the link) with the names and UUIDs the log itself carries (MIG instances of a
    dcgmi log, the GPUs of a CSV)."""
    out = devices_for_model(read.frame.gpus or [0], gpu, pcie_gen, pcie_width)
    own = {d.index: d for d in read.devices}
    for d in out:
        mine = own.get(d.index)
        if mine is None:
            continue
        d.uuid = mine.uuid or d.uuid
        d.pci_bus_id = mine.pci_bus_id or d.pci_bus_id
        if mine.name and (gpu is None or mine.name.startswith("MIG")):
            d.name = mine.name
    return out


def require_samples(log: LogRead, source: str) -> None:
    """The one guard against a log without samples, for every way a log is opened (import, analyze, the Monitor
    tab, standard input). ``source`` names the file (or "standard input") as the user knows it.

    Raises:
        DmonError: the tool said it cannot run on that GPU ("Not supported": older GeForce drivers), or no line of
            the log held a sample; its ``remedy`` says what to do.
    """
    if not log.empty:
        return
    if log.unsupported:
        raise DmonError(
            _("{source}: nvidia-smi dmon could not run on that machine ({problems}); the log holds no samples.").format(
                source=source, problems=" / ".join(log.errors) or _("Not supported on the device(s)")),
            field=source,
            remedy=_("Older GeForce drivers do not support dmon: record with NVML instead (gpudesk monitor record, "
                     "or Record in the Monitor tab)."))
    raise DmonError(_("{source}: no samples could be read.").format(source=source), field=source,
                    detail=" / ".join(log.errors or log.notes) or None,
                    remedy=_("Open the output of 'nvidia-smi dmon', 'dcgmi dmon' or 'nvidia-smi --query-gpu ... "
                             "--format=csv' with at least one sample line."))


def log_basis(log: LogRead) -> str:
    """How a parsed log's times read: as printed (date and time), time of day (time only), or seconds from the
    first row (no time column); see :mod:`gpudesk.telemetry.core.timebase`."""
    from gpudesk.telemetry.core import timebase

    span = log.frame.span
    return timebase.time_basis(*(span or (None, None)), as_printed=True, has_time=log.has_time)


@dataclass
class ImportResult:
    session_id: int
    log: LogRead
    devices: list[DeviceInfo]
    rows: int


def import_dmon_log(
    path: str | Path,
    *,
    db: Database | None = None,
    gpu_model: str | None = None,
    catalog: Any = None,
    name: str | None = None,
    notes: str = "",
    interval_s: float = 1.0,
    progress: Progress | None = None,
) -> ImportResult:
    """Parse ``path`` and store it as a session; returns the session id, the parse result and the devices.

    Raises:
        DmonError: not dmon output, or dmon reported it cannot run on that GPU ("Not supported").
        TelemetryError: the GPU model is unknown/ambiguous, or the catalog cannot be opened.
    """
    gpu = resolve_gpu_model(gpu_model, catalog) if gpu_model else None
    file_name = display_path(Path(path).name)  # a name that is not UTF-8 is stored and shown as \xNN
    _frame, devices, log = frame_and_devices_from_file(path, gpu, interval_s)
    recorder = Recorder(db)
    try:
        notes_all = "\n".join(filter(None, [notes, *log.notes]))
        source_kind = log.format.name.lower().replace("_", "-")
        recorder.start(devices, source=f"{source_kind}-file:{file_name}", interval_s=interval_s,
                       notes=display_path(notes_all), name=display_path(name) if name else file_name,
                       gpu_model=gpu.id if gpu else None, link_assumption=link_assumption_text(gpu))
        try:
            rows = recorder.write_frame(log.frame, progress=progress)
        except BaseException:  # Ctrl+C or a failed write: no half import is left in the store
            recorder.discard()
            raise
        sid = recorder.stop()
    finally:
        if db is None:
            recorder.close()
    assert sid is not None
    return ImportResult(sid, log, devices, rows)


def frame_and_devices_from_file(path: str | Path, gpu: Any | None = None, interval_s: float = 1.0, *,
                                pcie_gen: int | None = None, pcie_width: int | None = None,
                                ) -> tuple[History, list[DeviceInfo], LogRead]:
    """Open a log file of any format gpudesk reads (:mod:`gpudesk.telemetry.formats.log_formats`) for analysis without
    storing it: the one path by which ``gpudesk monitor analyze/import/report`` and the Monitor tab open a log.

    Raises:
        LogFormatError: unreadable, or of a known format that cannot be parsed.
        DmonError: it holds no samples (:func:`require_samples`).
    """
    log = read_log_file(path, interval_s=interval_s)
    require_samples(log, display_path(Path(path).name))
    return log.frame, log_devices(log, gpu, pcie_gen, pcie_width), log


def frame_and_devices_from_text(text: str, gpu: Any | None = None, interval_s: float = 1.0, *,
                                source: str | None = None) -> tuple[History, list[DeviceInfo], LogRead]:
    """Parse log text of any format gpudesk reads (e.g. read from standard input) for analysis without storing it.

    Raises:
        LogFormatError: the text is of a known format but cannot be read.
        DmonError: it holds no samples (:func:`require_samples`).
    """
    log = read_log_text(text, interval_s=interval_s)
    require_samples(log, source or _("standard input"))
    return log.frame, log_devices(log, gpu), log


# The bundled demo: a generated 5-minute, 4-GPU training run in nvidia-smi dmon format, written deterministically
# by tools/make_demo_recording.py (details and why it is generated: resources/demo/SOURCE.md).
DEMO_FILE = "demo-training-dmon.txt"
DEMO_GPUS = 4  # checked against the file by the tests
DEMO_ROUNDS = 300  # 1 s samples: 5 minutes


def demo_path() -> Path:
    """The bundled demo capture (a real public dmon log; see resources/demo/SOURCE.md)."""
    from gpudesk.paths import resources_dir

    return resources_dir() / "demo" / DEMO_FILE


def demo_note(rounds: int, gpus: int) -> str:
    """The note :func:`load_demo` adds to the demo's notes (in the current language), so that a caller that says what
    the demo is in its own title can leave this one out."""
    return _("Demo: a generated example, not a real capture: {rounds} one-second samples of a {gpus}-GPU training "
             "run in nvidia-smi dmon format, with an input stall and one GPU that overheats.").format(
        rounds=rounds, gpus=gpus)


def load_demo() -> tuple[History, list[DeviceInfo], LogRead]:
    """The demo capture parsed for showing or replay: (frame, devices, log). Its notes say, in one sentence for
    users, what the demo is and where it comes from.

    Raises:
        DmonError: the demo file is missing from this installation.
    """
    path = demo_path()
    if not path.exists():
        raise DmonError(_("The demo recording is missing ({path}).").format(path=path), field=str(path),
                        remedy=_("Reinstall gpudesk."))
    frame, devices, log = frame_and_devices_from_file(path)
    gpus, rounds = len(frame.gpus), len(frame)
    note = demo_note(rounds, gpus)
    for notes in {id(frame.notes): frame.notes, id(log.notes): log.notes}.values():  # often one list
        notes.append(note)
    return frame, devices, log
