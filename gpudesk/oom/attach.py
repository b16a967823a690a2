"""Pick and run a way to probe a running process: agent, ``sys.remote_exec`` (3.14+) or gdb (older CPython).

``available_methods(pid)`` lists all three with a plain reason for each one that cannot be used;
``probe_process(pid, method="auto")`` tries the agent first, then remote_exec, then gdb (the risky one: the
caller must have shown :data:`gpudesk.oom.attach_gdb.WARNING` and asked; the CLI does, ``--yes`` skips it),
and returns the probe's MemoryReport with NVML/psutil evidence merged in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

from gpudesk.oom import agent, attach_gdb, attach_remote_exec
from gpudesk.oom.errors import MethodUnavailable, PermissionDenied
from gpudesk.oom.evidence import gather_evidence, merge_into
from gpudesk.oom.probe_result import report_from_probe
from gpudesk.oom.report import MemoryReport
from gpudesk.oom.targets import TargetInfo, inspect_target
from gpudesk import i18n
from gpudesk.i18n import _

METHODS = ("agent", "remote_exec", "gdb")


@dataclass
class MethodStatus:
    """One way of probing a target: usable or not (``reason`` says why not), invasive (injects code), and the
    warning to show before running it (None when no warning is needed)."""

    name: str
    usable: bool
    reason: str | None
    invasive: bool
    warning: str | None = None


def available_methods(pid: int, *, allow_other_user: bool = False, info: TargetInfo | None = None) -> list[MethodStatus]:
    """Status of each probe method for ``pid``, in the order ``auto`` tries them.

    Raises:
        TargetNotFound: no such process.
    """
    info = info or inspect_target(pid)
    agent_why = agent.agent_available(pid)
    if agent_why is None and not info.same_user and not allow_other_user:
        agent_why = _("process {pid} belongs to another user").format(pid=pid)
    rex_why = attach_remote_exec.unavailable_reason(info, allow_other_user)
    gdb_why = attach_gdb.unavailable_reason(info, allow_other_user) if rex_why is not None else \
        _("not needed: sys.remote_exec is available")
    return [
        MethodStatus("agent", agent_why is None, agent_why, invasive=False),
        MethodStatus("remote_exec", rex_why is None, rex_why, invasive=True,
                     warning=_("The probe script will run inside the process's main thread (sys.remote_exec).")),
        MethodStatus("gdb", gdb_why is None, gdb_why, invasive=True, warning=i18n._(attach_gdb.WARNING)),
    ]


def probe_process(
    pid: int,
    method: str = "auto",
    *,
    reset_peak: bool = False,
    timeout_s: float = 10.0,
    progress: Callable[[str, float | None], None] | None = None,
    allow_other_user: bool = False,
    with_evidence: bool = True,
    nvml: ModuleType | None = None,
) -> MemoryReport:
    """Probe ``pid`` and return its MemoryReport (``status`` says "torch not imported" / "CUDA not initialised").

    Raises:
        MethodUnavailable: the chosen method (or, for "auto", every method) cannot be used; the message lists why.
        PermissionDenied, TargetNotFound, ProbeTimeout, ProbeResultError, ProbeError: see each method.
    """
    if method not in METHODS + ("auto",):
        raise MethodUnavailable(method, _("unknown method; choose one of {methods} or auto").format(
            methods=", ".join(METHODS)))
    info = inspect_target(pid)
    if not info.same_user and not allow_other_user:
        raise PermissionDenied(
            _("Process {pid} belongs to {user}, not to you; gpudesk probes only your own processes unless you "
              "elevate explicitly.").format(pid=pid, user=info.username or info.uid)
        )
    if method == "auto":
        statuses = available_methods(pid, allow_other_user=allow_other_user, info=info)
        usable = [s for s in statuses if s.usable]
        if not usable:
            reasons = "; ".join(f"{s.name}: {s.reason}" for s in statuses)
            raise MethodUnavailable("auto", _("no way to probe process {pid}: {reasons}").format(pid=pid, reasons=reasons))
        method = usable[0].name
    if progress:
        progress(_('Probing process {pid} with {method}…').format(pid=pid, method=method), 0.0)
    if method == "agent":
        raw = agent.query_agent(pid, reset_peak=reset_peak, timeout_s=timeout_s)
    elif method == "remote_exec":
        raw = attach_remote_exec.probe_with_remote_exec(info, reset_peak=reset_peak, timeout_s=timeout_s,
                                                        allow_other_user=allow_other_user, progress=progress)
    else:
        raw = attach_gdb.probe_with_gdb(info, reset_peak=reset_peak, timeout_s=timeout_s,
                                        allow_other_user=allow_other_user, progress=progress)
    report = report_from_probe(raw)
    report.parsed["probe_method"] = method
    if with_evidence:
        merge_into(report, gather_evidence(pid, nvml=nvml))
    if progress:
        progress(_("Probe finished."), 1.0)
    return report
