"""Rank the causes of an OOM: run every rule in :mod:`gpudesk.oom.rules` on a report, best first.

For a genuine shortage with a known model and workload (the Plan tab's ``ModelSpec`` and
``MemoryWorkload``), the effect of each sizing fix (micro-batch, checkpointing, sharding, precision) is
computed with :func:`gpudesk.sizing.memory.estimate_memory` and attached to the cause as ``sizing``.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from gpudesk.oom import engine_advice, framework_fixes, literal_scan
from gpudesk.oom.engine_sizing import engine_sizing_effects
from gpudesk.oom.cause import Cause, Diagnosis, SizingEffect
from gpudesk.oom.parsers import condense, parse_text
from gpudesk.oom.rules import RULES, Facts
from gpudesk.oom.report import MemoryReport
from gpudesk.oom import user_context
from gpudesk.oom.user_context import UserContext
from gpudesk import i18n
from gpudesk.i18n import N_, _


def diagnose(report: MemoryReport, *, spec: Any = None, workload: Any = None) -> Diagnosis:
    """Ranked causes for ``report`` (highest confidence first; ties keep rule order).

    Args:
        report: from parse_text, a probe, a launch or the evidence collector.
        spec, workload: optional ``gpudesk.sizing.shapes.ModelSpec`` and ``gpudesk.sizing.memory.MemoryWorkload``
            of the job; with them a genuine shortage gets computed savings per fix.

    Returns a Diagnosis; a report with nothing to go on gets no causes (text input gets ``unparseable``).
    """
    start = time.perf_counter()
    literal_scan.install()  # modules loaded since the last call (gpudesk.oom.literal_scan)
    full_text = report.text
    if report.source == "text" and full_text:
        # The rules scan a long log without the middle of its repeated lines (gpudesk.oom.parsers.condense); the
        # report keeps the whole text.
        report.text = condense.repeated_lines(full_text)
    try:
        causes = _ranked(report, spec, workload)
    finally:
        report.text = full_text
        literal_scan.forget()
    return Diagnosis(report=report, causes=causes, elapsed_s=time.perf_counter() - start)


def _ranked(report: MemoryReport, spec: Any, workload: Any) -> list[Cause]:
    """Every rule's causes for ``report``, best first, with the engine's own fixes and the sizing effects."""
    facts = Facts.of(report)
    causes: list[Cause] = []
    for rule in RULES:
        found = rule.check(facts)
        if isinstance(found, list):
            causes.extend(found)  # a rule that ranks a set (gpudesk.oom.rules.signature)
        elif found is not None:
            causes.append(found)
    if any(c.id != "unparseable" for c in causes):
        causes = [c for c in causes if c.id != "unparseable"]  # other evidence in the text explains it
    order = {id(c): i for i, c in enumerate(causes)}
    causes.sort(key=lambda c: (-c.confidence, order[id(c)]))
    if report.source == "text" and report.kind != "unknown" and not causes:
        causes.append(_partial(report))
    engine_advice.apply(report, causes)
    for cause in causes:
        if cause.id == "genuine_shortage":
            # A serving engine's fixes are its own knobs (context, layers offloaded, KV-cache type, batch).
            engine = engine_sizing_effects(report)
            if engine is not None:
                cause.sizing = engine
            elif engine_advice.training_fixes_apply(report):  # training-sizing fixes only where they apply
                cause.sizing = sizing_effects(facts, spec, workload)
        elif cause.id == "kv_cache_budget" and spec is not None:
            kv_sizing(cause, report, spec, workload)
        cause.refresh_labels(report.framework)
    return causes


def diagnose_text(text: str | bytes, *, context: UserContext | None = None, **kwargs: Any) -> Diagnosis:
    """``diagnose(parse_text(text))`` with what the user gave beside the text (host OS, other processes' memory:
    :mod:`gpudesk.oom.user_context`). Raises OomInputError for empty or binary input or a bad context value."""
    return diagnose(user_context.apply(parse_text(text), context), **kwargs)


def _partial(report: MemoryReport) -> Cause:
    return Cause(
        id="unparseable",
        title=_("Not enough of the message to tell the cause"),
        confidence=0.3,
        evidence={"missing": list(report.missing), **{k: v for k, v in report.parsed.items()}},
        explanation=_("The message was recognised ({kind}) but the clauses needed to rank causes are missing: "
                      "{missing}.").format(kind=report.kind, missing=", ".join(i18n._(m) for m in report.missing)),
        fix=_("Paste the complete message, or probe the running process (gpudesk oom probe PID)"),
    )


_FIXES = (
    (N_("Halve the micro-batch (gradient accumulation keeps the effective batch)"), "micro_batch"),
    (N_("Full activation checkpointing"), "recompute"),
    (N_("Shard weights, gradients and optimizer state (ZeRO-3 / FSDP)"), "sharding"),
    (N_("bf16 mixed precision instead of fp32"), "precision"),
)


def sizing_effects(facts: Facts, spec: Any, workload: Any) -> list[SizingEffect]:
    """Savings of each sizing fix for this job, bytes per GPU; ``saved_bytes`` None when not computable. The fixes
    are named in the report's framework's terms (:func:`gpudesk.oom.framework_fixes.sizing_fixes`)."""
    fixes = framework_fixes.sizing_fixes(facts.report, _FIXES)
    if spec is None or workload is None:
        return [SizingEffect(fix=i18n._(name), saved_bytes=None,
                             note=_("Give the model and workload (Plan tab) to compute the saving."))
                for name, _kind in fixes]
    from gpudesk.sizing.errors import SizingError
    from gpudesk.sizing.memory import estimate_memory

    try:
        base = estimate_memory(spec, workload).total_bytes
    except SizingError as exc:
        return [SizingEffect(fix=i18n._(name), saved_bytes=None, note=_('Sizing failed: {exc}').format(exc=exc)) for name, _kind in fixes]
    shortfall = max(0, -(facts.margin or 0))
    out = []
    for name, kind in fixes:
        change: dict[str, Any] = {}
        if kind == "micro_batch":
            if workload.micro_batch_size <= 1:
                out.append(SizingEffect(fix=i18n._(name), saved_bytes=None, note=_("The micro-batch is already 1.")))
                continue
            change = {"micro_batch_size": max(1, workload.micro_batch_size // 2)}
        elif kind == "recompute":
            change = {"recompute": "full"}
        elif kind == "sharding":
            if workload.gpus <= 1:
                out.append(SizingEffect(fix=i18n._(name), saved_bytes=None, note=_("Needs more than one GPU.")))
                continue
            change = {"sharding": "zero3"}
        elif kind == "precision":
            if workload.precision != "fp32":
                out.append(SizingEffect(fix=i18n._(name), saved_bytes=None, note=_("Already {precision}.").format(precision=workload.precision)))
                continue
            change = {"precision": "bf16"}
        try:
            variant = estimate_memory(spec, dataclasses.replace(workload, **change)).total_bytes
        except SizingError as exc:
            out.append(SizingEffect(fix=i18n._(name), saved_bytes=None, note=_('Sizing failed: {exc}').format(exc=exc)))
            continue
        saved = max(0, base - variant)
        if variant > base:
            note = _('does not save memory for this job: the estimate rises from {base} to {variant} bytes per GPU').format(base=base, variant=variant)
        else:
            note = (_("estimate {base} → {variant} bytes per GPU — enough to cover the shortfall")
                    if shortfall and saved >= shortfall else
                    _("estimate {base} → {variant} bytes per GPU")).format(base=base, variant=variant)
        out.append(SizingEffect(fix=i18n._(name), saved_bytes=saved, note=note))
    out.sort(key=lambda e: -(e.saved_bytes or -1))
    return out


def kv_sizing(cause: Cause, report: MemoryReport, spec: Any, workload: Any) -> None:
    """Bytes behind a KV-cache budget cause: per token on one GPU (``2 · layers · kv_heads_per_gpu · head_dim ·
    bytes``; vLLM logs its token capacity per tensor-parallel rank, and each rank keeps ``max(1, kv_heads // tp)``
    heads: gpudesk.sizing.memory_inference.kv_token_bytes_all_layers), the cache's size, what max_model_len needs,
    and what an fp8 KV cache would save. Adds to ``cause.evidence`` / ``cause.sizing``; nothing when the model has
    no transformer shape."""
    from gpudesk.sizing.errors import SizingError
    from gpudesk.sizing.memory_inference import kv_token_bytes_all_layers

    precision = getattr(workload, "kv_precision", "bf16") if workload is not None else "bf16"
    tp = int(getattr(workload, "tensor_parallel", 1) or 1) if workload is not None else 1
    try:
        per_token = kv_token_bytes_all_layers(spec, precision, tp)
        per_token_fp8 = kv_token_bytes_all_layers(spec, "fp8", tp)
    except SizingError as exc:
        cause.sizing.append(SizingEffect(fix=_("KV cache sizing"), saved_bytes=None, note=_('Sizing failed: {exc}').format(exc=exc)))
        return
    cause.evidence["kv_bytes_per_token"] = int(per_token)
    need = report.max_model_len_tokens
    if report.kv_cache_tokens is not None:
        cause.evidence["kv_cache_bytes"] = int(report.kv_cache_tokens * per_token)
    if need is not None:
        cause.evidence["kv_needed_for_max_model_len_bytes"] = int(need * per_token)
        if report.kv_cache_tokens is not None:
            cause.evidence["kv_missing_bytes"] = int(max(0, need - report.kv_cache_tokens) * per_token)
        if per_token_fp8 < per_token:
            cause.sizing.append(SizingEffect(
                fix=_("Store the KV cache in fp8 (--kv-cache-dtype fp8)"),
                saved_bytes=int(need * (per_token - per_token_fp8)),
                note=_("{per_token} → {per_token_fp8} bytes per token; the same memory holds twice the tokens").format(
                    per_token=int(per_token), per_token_fp8=int(per_token_fp8)),
            ))
