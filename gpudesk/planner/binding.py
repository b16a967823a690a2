"""What binds when a plan has no answer (issue 12 item 5): the constraint, named by the control that sets it, and
the smallest change to each control that gives an answer.

Training with a deadline nobody meets: the fastest fitting options are re-evaluated at larger GPU counts (the same
memory and step-time models as the plan, gpudesk.planner.train_eval) to find the smallest count that meets the
deadline; the deadline those options can meet is their time to result; the data that fits in the deadline scales
with it (time to result is linear in the samples: steps = samples x epochs / global batch).
"""

from __future__ import annotations

import math
from typing import Any

from gpudesk.i18n import N_, _
from gpudesk.planner.binding_types import BindingConstraint, PlanChange
from gpudesk.planner.candidates import PlanContext, placements
from gpudesk.units import format_duration
from gpudesk.planner.gates import server_gates
from gpudesk.planner.requirement import Requirement
from gpudesk.planner.results import Candidate, Rejected
from gpudesk.planner.train_eval import evaluate_training
from gpudesk.planner.workload import gpu_count_step

#: Labels of the Plan wizard's controls (gpudesk/ui/plan/questions.py), so the answer uses the words a user sees.
#: The ``label`` fields of the JSON keep these English texts; the sentences name the controls in the current
#: language (the same words as the window's translation).
MAX_GPUS_LABEL = N_("Largest GPU count to consider")
DEADLINE_LABEL = N_("Deadline (time to result)")
SAMPLES_LABEL = N_("Samples")
TOKENS_LABEL = N_("Tokens to train")


def _max_gpus_label() -> str:
    return _("Largest GPU count to consider")


def _deadline_label() -> str:
    return _("Deadline (time to result)")

#: Largest GPU count searched for the smallest count that meets a deadline (the upper limit of operations.max_gpus
#: in gpudesk.planner.requirement).
MAX_SEARCH_GPUS = 100_000


def _valid_count(server: Any, count: int, tensor_parallel: int) -> int | None:
    """The smallest count >= ``count`` that ``server`` chassis can hold (whole servers beyond one) and that is a
    multiple of the tensor-parallel degree; None when the chassis cannot hold it."""
    step = server.max_gpus if count > server.max_gpus else 1
    n = math.ceil(count / step) * step
    while n % tensor_parallel:
        n += step
    return n if placements(server, n) is not None else None


def _meets(ctx: PlanContext, gpu: Any, server: Any, count: int, deadline: bool = True) -> Candidate | None:
    res = evaluate_training(ctx, gpu, server, count, placements(server, count) or 1)
    if isinstance(res, Rejected) or not res.fits or (deadline and not res.meets_deadline):
        return None
    return res


def smallest_count_meeting_deadline(ctx: PlanContext, gpu: Any, server: Any, start: int,
                                    deadline: bool = True) -> Candidate | None:
    """The fewest GPUs of ``gpu`` in ``server`` chassis, above ``start``, that fit and (with ``deadline``) meet the
    deadline (doubling, then bisection on the counts the chassis can hold); None when no count up to
    MAX_SEARCH_GPUS does."""
    tp = gpu_count_step(ctx.req)  # tensor parallel (x expert parallel): every count is a multiple of it
    low, found = start, None
    n = start
    while n < MAX_SEARCH_GPUS:
        n = min(MAX_SEARCH_GPUS, n * 2)
        count = _valid_count(server, n, tp)
        if count is None or count > MAX_SEARCH_GPUS:
            break
        found = _meets(ctx, gpu, server, count, deadline)
        if found is not None:
            break
        low = count
    if found is None:
        return None
    high = found.count
    while True:
        mid = _valid_count(server, (low + high) // 2 + 1, tp)
        if mid is None or mid >= high:
            return found
        hit = _meets(ctx, gpu, server, mid, deadline)
        if hit is not None:
            found, high = hit, mid
        else:
            low = mid


def deadline_binding(ctx: PlanContext, req: Requirement, closest: list[Candidate]) -> BindingConstraint | None:
    """When no candidate meets the training deadline: what binds and the smallest changes that give an answer."""
    deadline = req.workload.deadline_s
    best = closest[0] if closest else None
    time_s = best.time_to_result_s if best is not None else None
    if not deadline or best is None or time_s is None:
        return None
    max_gpus = req.operations.max_gpus
    text = _('The deadline binds with the GPU-count limit: within "{max_gpus_label}" = {max_gpus} (operations.max_gpus), '
             'the fastest option that fits, {label}, needs {time} against the "{deadline_label}" of {deadline} '
             '(workload.deadline_s).').format(max_gpus_label=_max_gpus_label(), max_gpus=max_gpus, label=best.label,
                                               time=format_duration(time_s), deadline_label=_deadline_label(),
                                               deadline=format_duration(deadline))
    changes: list[PlanChange] = []
    gpus = {g.id: g for g in ctx.gpus}
    servers = {s.id: s for s in ctx.servers}
    scaled: Candidate | None = None
    for c in closest:
        gpu, server = gpus.get(c.gpu_id), servers.get(c.server_id)
        if gpu is None or server is None:
            continue
        hit = smallest_count_meeting_deadline(ctx, gpu, server, c.count)
        if hit is not None and (scaled is None or hit.count < scaled.count):
            scaled = hit
    if scaled is not None and scaled.time_to_result_s is not None:
        changes.append(PlanChange(
            "operations.max_gpus", MAX_GPUS_LABEL, float(max_gpus), float(scaled.count),
            _('Smallest change of GPUs: raise "{max_gpus_label}" to {count:,}: {label} would finish in {time} (same '
              'memory and step-time models).').format(max_gpus_label=_max_gpus_label(), count=scaled.count,
                                                      label=scaled.label, time=format_duration(scaled.time_to_result_s))))
    else:
        changes.append(PlanChange(
            "operations.max_gpus", MAX_GPUS_LABEL, float(max_gpus), float(MAX_SEARCH_GPUS),
            _("No GPU count up to {max_search:,} of the closest options meets the deadline: communication or the data "
              "path caps the speed-up, so change the deadline or the data instead.").format(max_search=MAX_SEARCH_GPUS)))
    changes.append(PlanChange(
        "workload.deadline_s", DEADLINE_LABEL, float(deadline), math.ceil(time_s / 3600) * 3600.0,
        _('Smallest change of deadline with {max_gpus} GPUs: set "{deadline_label}" to {deadline} ({label}).').format(
            max_gpus=max_gpus, deadline_label=_deadline_label(), deadline=format_duration(math.ceil(time_s / 3600) * 3600.0),
            label=best.label)))
    share = deadline / time_s
    tokens = req.workload.tokens_to_train
    samples = req.data.sample_count
    if tokens:
        changes.append(PlanChange(
            "workload.tokens_to_train", TOKENS_LABEL, float(tokens), math.floor(tokens * share),
            _('Smallest change of data with {max_gpus} GPUs: train on at most {at_most:.3g} tokens ("{tokens_label}", '
              '{share:.2%} of {tokens:.3g}).').format(max_gpus=max_gpus, at_most=tokens * share,
                                                      tokens_label=_("Tokens to train"), share=share, tokens=tokens)))
    elif samples:
        changes.append(PlanChange(
            "data.sample_count", SAMPLES_LABEL, float(samples), float(math.floor(samples * share)),
            _('Smallest change of data with {max_gpus} GPUs: train on at most {at_most:,} samples ("{samples_label}", '
              '{share:.2%} of {samples:,}).').format(max_gpus=max_gpus, at_most=math.floor(samples * share),
                                                     samples_label=_("Samples"), share=share, samples=samples)))
    return BindingConstraint("workload.deadline_s", DEADLINE_LABEL, text, changes)


def over_gpu_limit_options(ctx: PlanContext, open_gpus: list[tuple[Any, list[Any]]]
                           ) -> tuple[list[Rejected], list[Candidate]]:
    """Training options ruled out by the GPU-count limit alone: for each GPU that passed every gate (``open_gpus``:
    ``(gpu, servers)``), the fewest GPUs above ``operations.max_gpus`` that fit under the safe line and meet the
    deadline (or, when no count up to MAX_SEARCH_GPUS meets it, that fit). Returns one Rejected per GPU (flagged
    ``over_gpu_limit``, with the count it needs) and the matching Candidates, fewest GPUs first."""
    max_gpus = ctx.req.operations.max_gpus
    has_deadline = bool(ctx.req.workload.deadline_s)
    rejected: list[Rejected] = []
    options: list[Candidate] = []
    for gpu, servers in open_gpus:
        best: Candidate | None = None
        for server in servers:
            hit = smallest_count_meeting_deadline(ctx, gpu, server, max_gpus, has_deadline) if has_deadline else None
            if hit is None:
                hit = smallest_count_meeting_deadline(ctx, gpu, server, max_gpus, False)
            if hit is not None and server_gates(server, gpu, hit.count, hit.servers, ctx.req):
                continue  # power, cooling or the existing server rule it out at any larger count too
            if hit is not None and (best is None or (not best.meets_deadline and hit.meets_deadline)
                                    or (best.meets_deadline == hit.meets_deadline and hit.count < best.count)):
                best = hit
        if best is None:
            continue
        if has_deadline and best.meets_deadline:
            reason = _("would fit and meet the deadline with {count:,} GPUs, above the GPU-count limit of "
                       "{max_gpus}").format(count=best.count, max_gpus=max_gpus)
        else:
            reason = _("would fit under the safe line with {count:,} GPUs, above the GPU-count limit of "
                       "{max_gpus}").format(count=best.count, max_gpus=max_gpus)
        rejected.append(Rejected(gpu.id, gpu.name, best.count, best.server_id, best.interconnect, [reason],
                                 over_gpu_limit=True))
        options.append(best)
    options.sort(key=lambda c: (not c.meets_deadline, c.count, c.time_to_result_s or math.inf))
    rejected.sort(key=lambda r: r.count)
    return rejected, options


def gpu_limit_binding(rejected: list[Rejected], max_gpus: int, inference: bool = True,
                      nearest: Candidate | None = None, deadline_s: float | None = None) -> BindingConstraint | None:
    """When the GPU-count limit is what rules every option out: the control and the fewest GPUs any rejected
    option needs (``inference``: the QPS and latency targets are the other levers)."""
    over = [r for r in rejected if r.count > max_gpus and r.over_gpu_limit]
    if not over:
        return None
    smallest = min(over, key=lambda r: r.count)
    option = f"{smallest.count:,} x {smallest.gpu_name}" + (f" ({smallest.server_id})" if smallest.server_id else "")
    text = _('The GPU-count limit binds: "{max_gpus_label}" is {max_gpus} (operations.max_gpus), and the smallest option '
             'needs {count:,} x {gpu}.').format(max_gpus_label=_max_gpus_label(), max_gpus=max_gpus,
                                                count=smallest.count, gpu=smallest.gpu_name)
    if inference:
        advice = _('Raise "{max_gpus_label}" to {count:,} for an answer ({option}), or lower the QPS target / relax '
                   'the latency targets.').format(max_gpus_label=_max_gpus_label(), count=smallest.count, option=option)
    else:
        advice = _('Raise "{max_gpus_label}" to {count:,} for an answer: {option}.').format(
            max_gpus_label=_max_gpus_label(), count=smallest.count, option=option)
    changes = [PlanChange("operations.max_gpus", MAX_GPUS_LABEL, float(max_gpus), float(smallest.count), advice)]
    if (deadline_s and nearest is not None and not nearest.meets_deadline and nearest.time_to_result_s is not None):
        # No count up to MAX_SEARCH_GPUS of any option meets the deadline (over_gpu_limit_options tried them all):
        # the deadline binds as well.
        deadline = math.ceil(nearest.time_to_result_s / 3600) * 3600.0
        changes.append(PlanChange(
            "workload.deadline_s", DEADLINE_LABEL, float(deadline_s), deadline,
            _('The deadline binds as well: no GPU count up to {max_search:,} meets it; {label} needs {time}, so with it set '
              '"{deadline_label}" to {deadline}, or train on less data.').format(
                max_search=MAX_SEARCH_GPUS, label=nearest.label, time=format_duration(nearest.time_to_result_s),
                deadline_label=_deadline_label(), deadline=format_duration(deadline))))
    return BindingConstraint("operations.max_gpus", MAX_GPUS_LABEL, text, changes)
