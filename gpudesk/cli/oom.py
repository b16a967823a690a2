"""``gpudesk oom diagnose|probe|methods|run``: the OOM doctor from the command line.

* ``diagnose FILE|-``: parse an OOM message / memory_summary / log and rank the causes. ``--json`` prints
  ``{"framework", "engine", "platform", "kind", "era", "parsed": {name_with_unit: value}, "parsed_labels", "oom_message_found", "missing",
  "notes", "causes": [{"id", "confidence", "evidence", "evidence_labels", "fix", ...}], "accounts": [{"gpu_index",
  "total_bytes", "terms": [{"name", "value_bytes", "status", "note"}], "flags"}], "report"}`` with
  causes best first. Exit status 1 (and "No out-of-memory message found") when the input holds no OOM
  message.
* ``probe PID``: run the probe inside a running process (agent, sys.remote_exec or gdb; asks before
  injecting code unless ``--yes``) plus NVML/psutil evidence, then diagnose.
* ``methods PID``: which probe methods can be used for PID, and why not.
* ``run -- CMD...``: start CMD with the probe preinstalled, print memory samples live, diagnose at the end;
  exits with the job's exit status.
``--save`` stores the diagnosis in the history the OOM doctor tab shows.
"""

from __future__ import annotations

import argparse
import sys
import threading

from gpudesk.cli import CliError
from gpudesk.cli.columns import display_width, ljust_display
from gpudesk.cli.json_text import dumps_json
from gpudesk.oom import Diagnosis, OomError, diagnose, diagnose_text
from gpudesk.oom.user_context import HOST_OSES, MAX_DEVICE_BYTES, UserContext
from gpudesk.units import GIB
from gpudesk.oom.account import accounts_of
from gpudesk.oom.errors import (
    LaunchError,
    MethodUnavailable,
    PermissionDenied,
    ProbeError,
    TargetNotFound,
)
from gpudesk.oom.labels import FLAG_KEYS, PYTORCH_FRAMEWORKS, id_value_name, label_for, runtime_name
from gpudesk.units import format_bytes
from gpudesk import i18n
from gpudesk.i18n import N_, _, ngettext

MAX_INPUT_BYTES = 5_000_000  # same limit as gpudesk.oom.parsers.detect.MAX_TEXT_CHARS


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("oom", help=_("diagnose GPU out-of-memory errors (texts, running processes, jobs)"))
    sub = parser.add_subparsers(dest="oom_command", metavar="ACTION", required=True)

    p_diag = sub.add_parser("diagnose", help=_("rank the causes of an OOM message, memory_summary or log file"))
    p_diag.add_argument("file", metavar="FILE", help=_("text file with the error, or - for standard input"))
    p_diag.add_argument("--json", action="store_true", help=_("print the diagnosis as JSON"))
    p_diag.add_argument("--save", action="store_true", help=_("keep it in the diagnosis history"))
    p_diag.add_argument("--os", dest="host_os", choices=HOST_OSES, default=None,
                        help=_("the operating system the job ran on (WSL and Windows have their own limits)"))
    p_diag.add_argument("--other-processes-gib", type=_gib, default=None, metavar="GIB",
                        help=_("GPU memory other processes held at the time (nvidia-smi), GiB"))
    p_diag.set_defaults(func=cmd_diagnose)

    p_probe = sub.add_parser("probe", help=_("probe a running Python process's GPU memory and diagnose it"))
    p_probe.add_argument("pid", metavar="PID", type=int)
    p_probe.add_argument("--method", choices=("auto", "agent", "remote_exec", "gdb"), default="auto",
                         help=_("how to run the probe (default: agent, then remote_exec, then gdb)"))
    p_probe.add_argument("--reset-peak", action="store_true", help=_("reset the peak statistics after reading them"))
    p_probe.add_argument("--timeout", type=_positive_seconds, default=10.0, metavar="S",
                         help=_("seconds to wait for the answer (default 10 s)"))
    p_probe.add_argument("--yes", action="store_true", help=_("do not ask before injecting code into the process"))
    p_probe.add_argument("--elevate", action="store_true", help=_("allow another user's process (needs root)"))
    p_probe.add_argument("--json", action="store_true", help=_("print the diagnosis as JSON"))
    p_probe.add_argument("--save", action="store_true", help=_("keep it in the diagnosis history"))
    p_probe.set_defaults(func=cmd_probe)

    p_meth = sub.add_parser("methods", help=_("which probe methods can be used for a process, and why not"))
    p_meth.add_argument("pid", metavar="PID", type=int)
    p_meth.add_argument("--elevate", action="store_true", help=_("consider another user's process"))
    p_meth.add_argument("--json", action="store_true")
    p_meth.set_defaults(func=cmd_methods)

    p_run = sub.add_parser("run", help=_("run a command with the probe preinstalled: gpudesk oom run -- python train.py"))
    p_run.add_argument("--interval", type=_positive_seconds, default=0.5, metavar="S",
                       help=_("sampling interval in seconds (default 0.5 s)"))
    p_run.add_argument("--record-history", action="store_true",
                       help=_("record allocation history and keep a snapshot at the OOM (slower)"))
    p_run.add_argument("--quiet", action="store_true", help=_("do not print memory samples while it runs"))
    p_run.add_argument("--json", action="store_true", help=_("print the final diagnosis as JSON"))
    p_run.add_argument("--save", action="store_true", help=_("keep it in the diagnosis history"))
    p_run.add_argument("cmd", nargs=argparse.REMAINDER, metavar="-- CMD ...")
    p_run.set_defaults(func=cmd_run)

    p_snap = sub.add_parser("snapshot", help=_("open a PyTorch memory snapshot (_dump_snapshot pickle or JSON) "
                            "and explain it offline"))
    p_snap.add_argument("file", metavar="FILE", help=_("snapshot .pickle or .json (gzip-compressed works too)"))
    p_snap.add_argument("--device", type=int, default=None, metavar="N",
                        help=_("GPU to explain (default: the one with the OOM, else the first)"))
    p_snap.add_argument("--json", action="store_true", help=_("print the analysis and diagnosis as JSON"))
    p_snap.set_defaults(func=cmd_snapshot)

    from gpudesk.cli import oom_accuracy

    oom_accuracy.add_parser(sub)


def _positive_seconds(text: str) -> float:
    """argparse type: a positive, finite number of seconds (a bad value is a usage error, exit status 2)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(_('expected a number of seconds, got {text!r}').format(text=text)) from None
    if not (0 < value < float("inf")):
        raise argparse.ArgumentTypeError(_('must be a positive number of seconds, got {text}').format(text=text))
    return value


def _gib(text: str) -> int:
    """argparse type: a non-negative, finite number of GiB, returned in bytes."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(_('expected a number of GiB, got {text!r}').format(text=text)) from None
    if not (0 <= value <= MAX_DEVICE_BYTES / GIB):
        raise argparse.ArgumentTypeError(_('must be between 0 and {limit:.0f} GiB, got {text}').format(
            limit=MAX_DEVICE_BYTES / GIB, text=text))
    return int(value * GIB)


def _read_input(name: str) -> bytes:
    if name == "-":
        data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
    else:
        from gpudesk.file_limits import InputFileError, display_path, open_input

        shown = display_path(name)
        try:  # a regular file only (a FIFO or /dev/zero is refused); its size is judged below, with advice
            with open_input(name, MAX_INPUT_BYTES, _("the log"), check_size=False) as fh:
                data = fh.read(MAX_INPUT_BYTES + 1)
        except InputFileError as exc:
            cause = exc.__cause__
            if isinstance(cause, FileNotFoundError):
                raise CliError(_('{name}: no such file').format(name=shown)) from exc
            if isinstance(cause, PermissionError):
                raise CliError(_('{name}: permission denied').format(name=shown)) from exc
            raise CliError.from_error(exc) from exc
        except OSError as exc:
            raise CliError(_("Cannot read {what} {path}: {reason}.").format(
                what=_("the log"), path=shown, reason=exc.strerror or exc)) from exc
    if len(data) > MAX_INPUT_BYTES:
        raise CliError(_("{name}: larger than {limit_mb} MB; pass the part around the error, e.g. `tail -n 2000 "
                         "FILE | gpudesk oom diagnose -`").format(name=name, limit_mb=MAX_INPUT_BYTES // 1_000_000))
    return data


def _save(diagnosis: Diagnosis, target: str) -> int:
    from gpudesk.store import StoreError, open_store
    from gpudesk.oom.history import save_diagnosis

    try:
        return save_diagnosis(open_store(), diagnosis, target=target)
    except StoreError as exc:
        raise CliError(_('could not save the diagnosis: {exc}').format(exc=exc), status=1) from exc


def _value(key: str, value) -> str:
    """Display text of an evidence / parsed value; the key's suffix gives the unit."""
    named = id_value_name(key, value)  # a cause / check id: its name, never the raw id
    if named is not None:
        return named
    if isinstance(value, list):
        if key.endswith("_shape"):
            return "[" + ", ".join(str(item) for item in value) + "]"
        return ", ".join(_value(key, item) for item in value) or _("none")
    if isinstance(value, bool) or (key in FLAG_KEYS and value in (0, 1)):
        return _("yes") if value else _("no")
    if not isinstance(value, (int, float)):
        return str(value)
    if key.endswith("_bytes_per_s"):
        return f"{format_bytes(int(value))}/s"
    if key.endswith("_bytes"):
        text = format_bytes(int(value))
        # Translators: {size} is a size such as "550.00 MiB", {count} the same size in bytes ("576,716,800").
        return text if abs(value) < 1024 else _("{size} ({count} bytes)").format(size=text, count=f"{int(value):,}")
    if key.endswith("_ratio") and key not in ("imbalance_ratio", "gpu_memory_utilization_ratio"):
        return f"{value:.1%}"
    if key.endswith("_ratio"):
        return f"{value:g}"
    if key.endswith("_s"):
        return f"{value * 1000:.2f} ms" if value < 1 else f"{value:.2f} s"
    if key.endswith("_tokens"):
        # Translators: {count} is a number of tokens such as "2,048".
        return _("{count} tokens").format(count=f"{int(value):,}")
    if isinstance(value, float):
        return f"{value:g}"
    if key in ("pid", "rank") or key.endswith(("_index", "_pids", "_pid")):
        return str(value)
    return f"{value:,}"


_PLATFORM_NAMES = {"cuda": "NVIDIA CUDA", "rocm": "AMD ROCm (HIP)", "mps": "Apple MPS", "xpu": "Intel XPU",
                   "tpu": "Google TPU", "metal": "Apple Metal", "vulkan": "Vulkan", "directml": "DirectML",
                   "npu": "Huawei Ascend NPU", "hpu": "Intel Gaudi HPU (Habana)", "cpu": "CPU (host memory)"}


def _runner(r) -> str | None:
    """The engine or runtime the text names beside its framework (PyTorch is the "Framework:" line already)."""
    runtime = getattr(r, "runtime", None)
    return r.engine or (runtime if runtime != "pytorch" else None)


def _framework_name(r) -> str:
    """The "Framework:" line's name: the framework read, else the engine or runtime the text names (TensorRT-LLM's
    block manager says nothing of the framework under it, but the runtime is known: not "unknown" beside it)."""
    if r.framework == "unknown" and _runner(r):
        return runtime_name(_runner(r))
    return runtime_name(r.framework)


def _recognised(r) -> str | None:
    """"Recognised: vLLM on AMD ROCm (HIP)" — the engine and platform the text names; "Platform: NVIDIA CUDA" for a
    platform alone (not a framework, so beside "Framework: unknown" it says where, not what); None when neither."""
    runner = _runner(r)
    engine = runtime_name(runner) if runner else None
    platform = _PLATFORM_NAMES.get(r.platform, r.platform) if r.platform else None
    if engine and platform:
        return _("Recognised: {engine} on {platform}").format(engine=engine, platform=platform)
    if engine:
        return _("Recognised: {engine_or_platform}").format(engine_or_platform=engine)
    if platform:
        return _("Platform: {platform}").format(platform=platform)
    return None


_HOST_OS_NAMES = {"linux": "Linux", "windows": "Windows", "wsl": "WSL2", "macos": "macOS"}


def _host_os_line(r) -> str | None:
    """"Operating system: WSL2 (given)" — the OS the rules used and where it came from; None when unknown."""
    host_os = getattr(r, "host_os", None)
    if not host_os:
        return None
    name = _HOST_OS_NAMES.get(host_os, host_os)
    if getattr(r, "host_os_given", False):
        return _("Operating system: {os} (given)").format(os=name)
    return _("Operating system: {os} (from the text)").format(os=name)


# The account's English ids (gpudesk.oom.account) as a reader sees them.
_TERM_NAMES = {"allocated": N_("allocated"), "cached": N_("cached"), "non_pytorch": N_("non pytorch"),
               "outside_allocator": N_("outside allocator"), "other_processes": N_("other processes"),
               "unattributed": N_("unattributed"), "free": N_("free")}
_TERM_STATUS = {"measured": N_("measured"), "given": N_("given"), "derived": N_("derived"), "unknown": N_("unknown")}
_LIMIT_NAMES = {"total capacity": N_("total capacity"), "MPS high-watermark limit": N_("MPS high-watermark limit")}


def _print_accounts(r, out) -> None:
    """The memory account of each GPU: total = the terms below, each measured / derived / unknown."""
    for acc in accounts_of(r):
        known = [t for t in acc.terms if t.value_bytes is not None]
        if acc.total_bytes is None and not known:
            continue
        limit = i18n._(_LIMIT_NAMES.get(acc.limit_name, acc.limit_name))
        total = format_bytes(acc.total_bytes)
        status = i18n._(_TERM_STATUS.get(acc.total_status, acc.total_status))
        if acc.gpu_index is not None:
            print(_("Memory account of GPU {index}: {limit} {total} ({status})").format(
                index=acc.gpu_index, limit=limit, total=total, status=status), file=out)
        else:
            print(_("Memory account of the GPU: {limit} {total} ({status})").format(
                limit=limit, total=total, status=status), file=out)
        names = dict(_TERM_NAMES)
        if r.framework not in PYTORCH_FRAMEWORKS:
            names["non_pytorch"] = N_("this process, outside its allocator")  # CUDA.jl, TensorFlow, JAX ... : not PyTorch's
        _rows([(i18n._(names.get(t.name, t.name)),
                f"{format_bytes(t.value_bytes)}  [{i18n._(_TERM_STATUS.get(t.status, t.status))}] {t.note}")
               for t in acc.terms], "  ", out)
        for flag in acc.flags:
            print("  " + _("Flag: {flag}").format(flag=flag), file=out)


def _rows(items: list[tuple[str, str]], indent: str, out) -> None:
    # Terminal columns, not characters: a CJK label takes two columns a character.
    width = min(56, max((display_width(label) for label, _text in items), default=0))
    for label, text in items:
        print(f"{indent}{ljust_display(label, width)}  {text}", file=out)


def _process_line(r) -> str | None:
    """"Process 123: Python 3.11.7, torch 2.13.0, host memory (RSS) 315.54 MiB, 2 DataLoader workers" for
    probed / launched / observed processes; None for text."""
    if r.pid is None:
        return None
    parts = []
    if r.python_version:
        parts.append(f"Python {r.python_version}")
    if r.torch_version:
        parts.append(f"torch {r.torch_version}")
    elif r.torch_imported is False:
        parts.append(_("torch not imported"))
    if r.host_rss_samples:
        t_last, rss_last = r.host_rss_samples[-1]
        if len(r.host_rss_samples) > 1:
            t_first, rss_first = r.host_rss_samples[0]
            delta = rss_last - rss_first
            rss = _("host memory (RSS) {rss} ({sign}{delta} over {window_s:.1f} s, {n} samples)").format(
                rss=format_bytes(rss_last), sign="+" if delta >= 0 else "−", delta=format_bytes(abs(delta)),
                window_s=t_last - t_first, n=len(r.host_rss_samples))
        else:
            rss = _("host memory (RSS) {rss}").format(rss=format_bytes(rss_last))
        parts.append(rss)
    if r.workers:
        states = sorted({w.status for w in r.workers if w.status})
        parts.append(_("{n} child process(es) ({states})").format(n=len(r.workers), states=", ".join(states))
                     if states else _("{n} child process(es)").format(n=len(r.workers)))
    return _("Process {pid}: {details}").format(pid=r.pid, details=", ".join(parts) if parts else _("no details"))


def print_no_oom(diagnosis: Diagnosis, source: str, out=None) -> None:
    """What the CLI prints when the input holds no out-of-memory message: nothing was diagnosed."""
    out = out or sys.stdout
    r = diagnosis.report
    if r.framework != "unknown":
        line = _("No out-of-memory message found in {source} ({n} characters; it looks like {framework} output): "
                 "nothing was diagnosed.")
    else:
        line = _("No out-of-memory message found in {source} ({n} characters): nothing was diagnosed.")
    print(line.format(source=source, n=len(r.text or ""), framework=runtime_name(r.framework)), file=out)
    recognised = _recognised(r)
    if recognised:
        print(recognised, file=out)
    cause = diagnosis.top
    if cause is not None:
        print(_("Try: {fix}").format(fix=cause.fix), file=out)
        for extra in cause.more_fixes:
            print(_("Also: {fix}").format(fix=extra.removeprefix("Or ").removeprefix("or ")), file=out)


def print_diagnosis(diagnosis: Diagnosis, out=None) -> None:
    """Human-readable diagnosis: what was read, what is missing, causes best first (labels, values with units)."""
    out = out or sys.stdout
    r = diagnosis.report
    if r.source == "text" and r.era:
        head = _("Framework: {framework}   message: {kind}   era: {era}").format(framework=_framework_name(r), kind=r.kind,
                                                                                era=r.era)
    elif r.source == "text":
        head = _("Framework: {framework}   message: {kind}").format(framework=_framework_name(r), kind=r.kind)
    else:
        head = _("Framework: {framework}   source: {source}").format(framework=_framework_name(r), source=r.source)
    print(head, file=out)
    recognised = _recognised(r)
    if recognised:
        print(recognised, file=out)
    host_os = _host_os_line(r)
    if host_os:
        print(host_os, file=out)
    if r.status:
        print(_("Status: {status}").format(status=r.status), file=out)
    process = _process_line(r)
    if process:
        print(process, file=out)
    if r.parsed:
        print(_("Read:"), file=out)
        rows = [(label_for(key, r.framework), _value(key, value)) for key, value in r.parsed.items()
                if not key.startswith("process_")]
        procs = [(label_for(key), _value(key, value)) for key, value in r.parsed.items() if key.startswith("process_")]
        if len(procs) > 5:  # sibling ranks (returnn#1469 lists 15): show a few, the rest are in --json
            procs = procs[:3] + [(_("… and {n} more processes").format(n=len(procs) - 3), _("(all in --json)"))]
        _rows(rows + procs, "  ", out)
    _print_accounts(r, out)
    if r.missing:
        print(_("Missing: {missing}").format(missing="; ".join(i18n._(m) for m in r.missing)), file=out)
    for note in r.notes:
        print(_("Note: {note}").format(note=note), file=out)
    if not diagnosis.causes:
        if r.torch_imported is False or r.cuda_initialized is False:
            print(_("Nothing to diagnose yet: the process has no allocator figures (see Status)."), file=out)
        elif not r.devices and not r.samples:
            print(_("Nothing to diagnose: no GPU memory figures were collected (see the notes)."), file=out)
        else:
            print(_("No cause found: the figures look normal."), file=out)
    for n, cause in enumerate(diagnosis.causes, 1):
        print("\n" + _("{n}. {title} [{id}]  confidence {confidence:.0%}").format(
            n=n, title=cause.title, id=cause.id, confidence=cause.confidence), file=out)
        if cause.explanation:
            print(f"   {cause.explanation}", file=out)
        if cause.evidence:
            print("   " + _("Evidence:"), file=out)
            _rows([(label, _value(key, value)) for key, label, value in cause.evidence_items()], "     ", out)
        print("   " + _("Fix: {fix}").format(fix=cause.fix), file=out)
        for extra in cause.more_fixes:
            print("   " + _("Also: {fix}").format(fix=extra), file=out)
        for check in cause.checks:
            print("   " + _("Check: {check}").format(check=check), file=out)
        computed = [e for e in cause.sizing if e.saved_bytes is not None]
        for eff in computed:
            saves = format_bytes(eff.saved_bytes)
            print("   " + (_("Sizing: {fix}: saves {saved} ({note})").format(fix=eff.fix, saved=saves, note=eff.note)
                           if eff.note else _("Sizing: {fix}: saves {saved}").format(fix=eff.fix, saved=saves)),
                  file=out)
        unknown = [e for e in cause.sizing if e.saved_bytes is None]
        notes = {e.note for e in unknown}
        if unknown and len(notes) == 1 and not computed:
            print("   " + _("Sizing: savings of the fixes above not computed. {note}").format(note=notes.pop()),
                  file=out)
        else:
            for eff in unknown:
                print("   " + (_("Sizing: {fix}: saving N/A ({note})").format(fix=eff.fix, note=eff.note) if eff.note
                               else _("Sizing: {fix}: saving N/A").format(fix=eff.fix)), file=out)


def _emit(diagnosis: Diagnosis, as_json: bool, source: str | None = None) -> None:
    if as_json:
        sys.stdout.write(dumps_json(diagnosis.to_dict()))
        sys.stdout.write("\n")
    elif not diagnosis.found_oom:
        print_no_oom(diagnosis, source or _("the input"))
    else:
        print_diagnosis(diagnosis)


def cmd_diagnose(args) -> int:
    """Exit status 0 when an OOM message was read (even partly), 1 when the input holds none."""
    data = _read_input(args.file)
    try:
        context = UserContext(host_os=args.host_os, other_processes_bytes=args.other_processes_gib)
        diagnosis = diagnose_text(data, context=context)
    except OomError as exc:
        raise CliError(_("{flag}: {problem}").format(flag=args.file, problem=exc.user_text())) from exc
    source = "standard input" if args.file == "-" else args.file
    _emit(diagnosis, args.json, _("standard input") if args.file == "-" else args.file)
    if args.save:
        _save(diagnosis, source)
    return 0 if diagnosis.found_oom else 1


def _confirm(pid: int, method: str, warning: str | None, assume_yes: bool) -> None:
    if assume_yes or method == "agent":
        return
    text = _('Run the gpudesk probe inside process {pid} using {method}?').format(pid=pid, method=method)
    if warning:
        text = f"{warning}\n{text}"
    if not sys.stdin.isatty():
        raise CliError(_('{text}\nInjecting code needs confirmation: rerun with --yes to allow it.').format(text=text))
    answer = input(f"{text} [y/N] ").strip().lower()
    if answer not in ("y", "yes"):
        raise CliError(_("Cancelled; nothing was run in the process."), status=1)


def _progress(message: str, fraction) -> None:
    print(message, file=sys.stderr)


def cmd_probe(args) -> int:
    from gpudesk.oom.attach import available_methods, probe_process

    try:
        statuses = {s.name: s for s in available_methods(args.pid, allow_other_user=args.elevate)}
        method = args.method
        if method == "auto":
            usable = [s for s in statuses.values() if s.usable]
            if not usable:
                reasons = "\n".join(f"  {s.name}: {s.reason}" for s in statuses.values())
                raise CliError(_("no way to probe process {pid}:").format(pid=args.pid) + "\n" + reasons, status=1)
            method = usable[0].name
        elif not statuses[method].usable:
            raise CliError(_('{method} cannot be used for process {pid}: {reason}').format(method=method, pid=args.pid, reason=statuses[method].reason), status=1)
        _confirm(args.pid, method, statuses[method].warning, args.yes)
        report = probe_process(args.pid, method, reset_peak=args.reset_peak, timeout_s=args.timeout,
                               allow_other_user=args.elevate, progress=None if args.json else _progress)
    except (TargetNotFound, PermissionDenied, MethodUnavailable) as exc:
        raise CliError.from_error(exc, status=1) from exc
    except ProbeError as exc:
        raise CliError.from_error(exc, status=1) from exc
    diagnosis = diagnose(report)
    _emit(diagnosis, args.json)
    if args.save:
        _save(diagnosis, f"PID {args.pid}")
    return 0


def cmd_methods(args) -> int:
    from gpudesk.oom.attach import available_methods

    try:
        statuses = available_methods(args.pid, allow_other_user=args.elevate)
    except TargetNotFound as exc:
        raise CliError.from_error(exc, status=1) from exc
    if args.json:
        sys.stdout.write(dumps_json([s.__dict__ for s in statuses]))
        sys.stdout.write("\n")
        return 0
    for s in statuses:
        state = _("usable") if s.usable else _("unavailable")
        print(f"{s.name:12} {state}: {s.reason}" if s.reason else f"{s.name:12} {state}")
    return 0


def cmd_run(args) -> int:
    from gpudesk.oom.launch import launch_job

    cmd = list(args.cmd)
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    if not cmd:
        raise CliError(_("no command given: gpudesk oom run -- python train.py ..."))
    stop = threading.Event()

    def on_sample(s) -> None:
        if not args.quiet and not args.json:
            print("[gpudesk]", _("t={t_s:7.1f}s pid {pid} GPU {index}: allocated {allocated}, reserved "
                                   "{reserved}").format(t_s=s.t_s, pid=s.pid, index=s.device_index,
                                                        allocated=format_bytes(s.allocated_bytes),
                                                        reserved=format_bytes(s.reserved_bytes)), file=sys.stderr)

    def on_output(line: str) -> None:
        (sys.stderr if args.json else sys.stdout).write(line)

    try:
        result = launch_job(cmd, interval_s=args.interval, on_sample=on_sample, on_output=on_output,
                            progress=lambda m, f: print(f"[gpudesk] {m}", file=sys.stderr), stop=stop,
                            record_history=args.record_history)
    except LaunchError as exc:
        raise CliError.from_error(exc, status=127) from exc
    except KeyboardInterrupt:
        stop.set()
        raise CliError(_("interrupted"), status=130) from None
    if not args.json:
        print("\n[gpudesk]", _("job exited with status {returncode}").format(returncode=result.returncode),
              file=sys.stderr)
        for path in result.snapshot_paths:
            print("[gpudesk]", _("snapshot at the OOM: {path} (explain it with: gpudesk oom snapshot {path})").format(
                path=path),
                  file=sys.stderr)
    _emit(result.diagnosis, args.json)
    if args.save:
        _save(result.diagnosis, " ".join(cmd))
    return result.returncode if result.returncode is not None and result.returncode >= 0 else 1


def cmd_snapshot(args) -> int:
    """``gpudesk oom snapshot FILE``: summary, memory account, explanation and ranked causes of a snapshot."""
    from gpudesk.oom.snapshot.account import diagnose_snapshot
    from gpudesk.oom.snapshot.analysis import analyse
    from gpudesk.oom.snapshot.errors import SnapshotError
    from gpudesk.oom.snapshot.export import analysis_to_dict
    from gpudesk.oom.snapshot.reader import load_snapshot

    try:
        analysis = analyse(load_snapshot(args.file))
    except SnapshotError as exc:
        raise CliError.from_error(exc, status=1) from exc
    dev = analysis.device(args.device)
    if args.device is not None and dev is None:
        raise CliError(_("{file}: no GPU {device} in this snapshot (it has {devices})").format(
            file=args.file, device=args.device, devices=", ".join(map(str, analysis.snapshot.devices)) or _("none")))
    diagnosis = diagnose_snapshot(analysis, args.device)
    if args.json:
        out = analysis_to_dict(analysis, args.device)
        out["diagnosis"] = diagnosis.to_dict()
        sys.stdout.write(dumps_json(out))
        sys.stdout.write("\n")
        return 0
    snap = analysis.snapshot
    # "; " between the parts: a comma-separated GPU list followed by "7,923 trace events" would run together
    gpus = ", ".join(map(str, snap.devices)) or _("none")
    print(ngettext("Snapshot: {name} ({size}); layout {layout}; GPU {gpus}; {events:,} trace events",
                   "Snapshot: {name} ({size}); layout {layout}; GPUs {gpus}; {events:,} trace events",
                   len(snap.devices)).format(name=snap.source_name, size=format_bytes(snap.file_size_bytes),
                                             layout=snap.format_version, gpus=gpus, events=snap.event_count))
    if dev is None:
        print(_("Nothing to explain: the snapshot holds no segments and no trace events."))
        return 0
    print()
    for line in dev.explanation:
        print(line)
    if dev.top_frames:
        print()
        print(_("Top frames by bytes alive at the peak:"))
        _rows([(_("{size} in {count}").format(size=format_bytes(g.bytes), count=g.count),
                f"{g.label or _('(no stack)')} [{g.category}]")
               for g in dev.top_frames[:10]], "  ", sys.stdout)
    known = {k: v for k, v in dev.composition_bytes.items() if v}
    if known:
        print(_("Peak composition: {parts}").format(
            parts=", ".join(f"{k.replace('_', ' ')} {format_bytes(v)}" for k, v in known.items())))
    print()
    print_diagnosis(diagnosis)
    return 0
