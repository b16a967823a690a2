"""The constraint that binds a chosen option: of the limits the requirement sets (the memory safe line, the
deadline, the purchase budget, the QPS target, the latency targets), the one the option comes closest to.
The sheet puts it on page 1 next to the decision, so a reader sees what would break first. Qt-free.

Each limit is a ratio need / limit from the plan's own figures (no new estimate): per-GPU memory over the safe line,
time to result over the deadline, purchase cost (GPUs, servers, network and installation of the TCO) over the
budget, target QPS over the QPS the option sustains, TTFT and TPOT over their targets.
"""

from __future__ import annotations

from gpudesk.i18n import _
from gpudesk.planner.document import PlanOption
from gpudesk.planner.requirement import Requirement
from gpudesk.units import GIB

#: TCO lines paid at purchase (gpudesk.planner.tco.TCO_LINES), compared with operations.budget_usd.
PURCHASE_LINES = ("gpus", "hosts", "network_install")


def constraint_ratios(option: PlanOption, req: Requirement | None) -> list[tuple[float, str]]:
    """(need / limit, sentence) for every limit the requirement sets and the option has a figure for."""
    out: list[tuple[float, str]] = []
    memory, safe = option.per_gpu_memory_bytes, option.safe_line_bytes
    if memory and safe:
        out.append((memory / safe, _("memory: {used:.1f} GiB per GPU of the {limit:.1f} GiB safe line").format(
            used=memory / GIB, limit=safe / GIB)))
    if req is None:
        return out
    workload, operations = req.workload, req.operations
    time_s, deadline_s = option.time_to_result_s, workload.deadline_s
    if time_s and deadline_s:
        out.append((time_s / deadline_s, _("deadline: {used:.1f} days of the {limit:.1f} days allowed").format(
            used=time_s / 86400, limit=deadline_s / 86400)))
    budget = operations.budget_usd
    if budget and option.tco_3y_usd is not None:
        purchase = sum(option.tco_breakdown_usd.get(k) or 0.0 for k in PURCHASE_LINES)
        if purchase > 0:
            out.append((purchase / budget, _("budget: ${used:,.0f} to buy of the ${limit:,.0f} budget").format(
                used=purchase, limit=budget)))
    qps, target = option.qps_capacity, workload.target_qps
    if qps and target:
        out.append((target / qps, _("QPS: the target {target:g} req/s of the {qps:.1f} req/s it sustains").format(
            target=target, qps=qps)))
    for value, limit, name in ((option.ttft_s, workload.ttft_target_s, "TTFT"),
                               (option.tpot_s, workload.tpot_target_s, "TPOT")):
        if value and limit:
            out.append((value / limit, _("{name}: {used:.0f} ms of the {limit:.0f} ms target").format(
                name=name, used=value * 1000, limit=limit * 1000)))
    return out


def binding_constraint(option: PlanOption, req: Requirement | None) -> str | None:
    """"memory: 35.1 GiB per GPU of the 37.9 GiB safe line (93 % used)" for the tightest limit; None when the
    requirement sets no limit the option has a figure for."""
    ratios = constraint_ratios(option, req)
    if not ratios:
        return None
    ratio, text = max(ratios, key=lambda item: item[0])
    return _("{constraint} ({percent:.0f} % used)").format(constraint=text, percent=ratio * 100)
