"""The estimator checked against published measured peaks: each case, its estimate, and the summary.

A case (one JSON line of ``tests/fixtures/sizing/measured_peaks.jsonl``, of ``measured_peaks_later.jsonl``: the
rows added after the estimator was first tuned, each with the date it was ``added``, or of
``measured_peaks_fresh.jsonl``: rows mapped and committed before they were ever estimated, scored apart) describes a published run: model
config, method, precision, optimizer, batch x sequence, GPUs and sharding, recompute, loss, which statistic was
measured (allocated/active, reserved, device, weights, kv_cache) and the value with its unit and source URL. The estimate
is compared with the same statistic (:meth:`MemoryEstimate.statistic_bytes`). Every setting of a case is one a user
types (``gpudesk estimate memory`` flags, the wizard's fields): there is no correction keyed on the framework.
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpudesk.file_limits import InputFileError, display_path, read_input
from gpudesk.i18n import _
from gpudesk.json_limits import json_error_reason
from gpudesk.paths import bundle_root
from gpudesk.sizing.dtypes import CHECKPOINT_WEIGHT_FORMAT
from gpudesk.sizing.errors import ConfigFileError, SizingError
from gpudesk.sizing.memory import MemoryWorkload, estimate_memory
from gpudesk.sizing.peer_formulas import (
    accelerate_training_bytes,
    deepspeed_model_states_bytes,
)
from gpudesk.sizing.shapes import spec_from_hf_config

UNIT_BYTES: dict[str, float] = {"GiB": 2.0**30, "GB": 1e9, "MiB": 2.0**20, "MB": 1e6}
MODE_OF_METHOD = {"full": "train", "lora": "lora", "qlora": "qlora", "inference": "inference"}
WITHIN_SHARE = 0.15
MAX_CASES_FILE_BYTES = 4 * 1024 * 1024


def default_cases_path() -> Path:
    """The first bundled validation set (source checkout: ``tests/fixtures/sizing/measured_peaks.jsonl``)."""
    return bundle_root() / "tests" / "fixtures" / "sizing" / "measured_peaks.jsonl"


# Bundled sets by name: ``first`` and ``later`` are the rows the estimator was developed against; ``fresh`` and
# ``fresh-2`` rows were mapped from their sources and committed before any estimate was computed for them, and are
# never tuned on: they measure how the estimator does on runs it has not seen, and are reported apart, each on its
# own (``summary["fresh"]``, ``summary["fresh-2"]``, ``summary["fresh-3"]``). ``fresh-2`` was collected after
# ``fresh`` had been scored, ``fresh-3`` after ``fresh-2`` had been scored and the model frozen again, ``fresh-4``
# after ``fresh-3`` had been scored (``summary["fresh-4"]``), ``fresh-5`` after ``fresh-4`` had been scored and the
# model frozen again (``summary["fresh-5"]``), ``fresh-6`` after the fixes fresh-5 prompted (``summary["fresh-6"]``),
# ``fresh-7`` and ``fresh-8`` while the fixes fresh-6 prompted were written (``summary["fresh-7"]``, ``["fresh-8"]``),
# ``fresh-9`` while the fixes fresh-7/8 prompted were written (``summary["fresh-9"]``), ``fresh-10`` while the fixes
# fresh-9 prompted were written (``summary["fresh-10"]``), ``fresh-11`` and ``fresh-12`` while the fixes fresh-10
# prompted were written (``summary["fresh-11"]``, ``["fresh-12"]``), ``fresh-13`` while the fixes fresh-12
# prompted were written (``summary["fresh-13"]``), ``fresh-14`` while the fixes fresh-13 prompted were written
# (``summary["fresh-14"]``), ``fresh-15`` while the fixes fresh-14 prompted were written (``summary["fresh-15"]``),
# ``fresh-16`` and ``fresh-17`` while the fixes fresh-11..15 prompted were written (``summary["fresh-16"]``,
# ``["fresh-17"]``), ``fresh-18`` while the fixes fresh-16/17 prompted were written (``summary["fresh-18"]``),
# ``fresh-19`` while the fixes fresh-18 prompted were written (``summary["fresh-19"]``), ``fresh-20`` while the fixes
# fresh-18/19 prompted were written (``summary["fresh-20"]``), ``fresh-21`` while the fixes fresh-20 prompted were
# written (``summary["fresh-21"]``), ``fresh-22`` while the fixes fresh-21 prompted were written
# (``summary["fresh-22"]``), ``fresh-23`` while the fixes fresh-21/22 prompted were written (``summary["fresh-23"]``),
# ``fresh-24`` while the fixes fresh-21/23 prompted were written (``summary["fresh-24"]``),
# ``fresh-25`` while the fixes fresh-24 prompted were written (``summary["fresh-25"]``),
# ``fresh-26`` while the fixes fresh-25 prompted were written (``summary["fresh-26"]``),
# ``fresh-27`` while memfix21 was written (``summary["fresh-27"]``),
# ``fresh-28`` while memfix22 was written (``summary["fresh-28"]``),
# ``fresh-29`` while memfix22 was written (``summary["fresh-29"]``),
# ``fresh-30`` while memfix24 was written (``summary["fresh-30"]``),
# ``fresh-31`` while the model stood at memfix24 (no builder changed it) (``summary["fresh-31"]``),
# ``fresh-32`` while memfix25 was written (``summary["fresh-32"]``),
# ``fresh-33`` while memfix26 was written (``summary["fresh-33"]``),
# ``fresh-34`` while memfix27 and memfix28 were written (``summary["fresh-34"]``),
# ``fresh-35`` while memfix27 and memfix28 were written (``summary["fresh-35"]``),
# ``fresh-36`` while memfix27-28 were finished and before memfix29 merged (``summary["fresh-36"]``),
# ``fresh-37`` while memfix29 was written (``summary["fresh-37"]``),
# ``fresh-38`` while memfix30 was written (``summary["fresh-38"]``),
# ``fresh-39`` while memfix31 was written (``summary["fresh-39"]``),
# ``fresh-40`` while memfix31 was written (``summary["fresh-40"]``),
# ``fresh-41`` while memfix32 was written (``summary["fresh-41"]``),
# ``fresh-42`` while memfix33 was written (``summary["fresh-42"]``),
# ``fresh-43`` from repository snapshots after memfix33 was written (``summary["fresh-43"]``),
# ``fresh-44`` from repository snapshots after the last memory change (``summary["fresh-44"]``),
# ``fresh-45`` while memfix34 was written (``summary["fresh-45"]``),
# ``fresh-46`` while memfix35 was written (``summary["fresh-46"]``),
# ``fresh-47`` from repository snapshots after the last memory change (``summary["fresh-47"]``),
# ``fresh-48`` while memfix36 was written (``summary["fresh-48"]``),
# ``fresh-49`` while memfix36 and memfix37 were written (``summary["fresh-49"]``),
# ``fresh-50`` from repository snapshots and searches after the last memory change (``summary["fresh-50"]``),
# ``fresh-51`` while memfix39 was written (``summary["fresh-51"]``),
# ``fresh-52`` while memfix41 (ZeRO-3 outside zero.Init check, one phase-excess helper) and memfix42 (small HF models' fp16 training) were written (``summary["fresh-52"]``),
# ``fresh-53`` while memfix43 (ZeRO-3's flat 16-bit gradient copy at the step) was written (``summary["fresh-53"]``),
# ``fresh-54`` after memfix43 merged (the last memory change of the stop) (``summary["fresh-54"]``),
# ``fresh-55`` after memfix43 merged (the last memory change of the stop) (``summary["fresh-55"]``),
# ``fresh-56`` while memfix44 (ZeRO-1/2's flat gradient copy, not merged) and memfix45 (Muon, trained norms beside LoRA) were written (``summary["fresh-56"]``),
# ``fresh-57`` after memfix45 merged (the last memory change of the stop) (``summary["fresh-57"]``),
# ``fresh-58`` after memfix46, the last memory change of the stop (``summary["fresh-58"]``),
# ``fresh-59`` after memfix47, the last memory change of the stop (``summary["fresh-59"]``),
# ``fresh-60`` while memfix48 was written, after memfix47 (the last merged memory change) (``summary["fresh-60"]``),
# ``fresh-61`` while memfix48 was written (``summary["fresh-61"]``),
# ``fresh-62`` after memfix48, the last memory change of the stop (``summary["fresh-62"]``),
# ``fresh-63`` after memfix48 (``summary["fresh-63"]``),
# ``fresh-64`` after memfix48 (``summary["fresh-64"]``),
# ``fresh-65`` after expert TP reached LoRA, the last memory change of the stop (``summary["fresh-65"]``),
# ``fresh-66`` after it (``summary["fresh-66"]``),
# ``fresh-67`` collected at the start of the 2026-12-07 session, before memfix49 (``summary["fresh-67"]``),
# ``fresh-68`` collected at the start of the 2026-12-07 session, before memfix49 (``summary["fresh-68"]``),
# ``fresh-69`` collected while memfix50 was built, scored on it (the last memory change) (``summary["fresh-69"]``),
# ``fresh-70`` collected while memfix50 was built, scored on it (the last memory change) (``summary["fresh-70"]``),
# ``fresh-71`` collected after memfix50 (the last memory change), scored on it (``summary["fresh-71"]``),
# ``fresh-72`` collected after memfix50 (the last memory change), scored on it (``summary["fresh-72"]``),
# ``fresh-73`` collected at the start of the 2026-12-07 session, before memfix51, scored once on main (``summary["fresh-73"]``),
# ``fresh-74`` collected while memfix51 was built, scored once on it (the last memory change) (``summary["fresh-74"]``),
# ``fresh-75`` collected while memfix52 was built, scored once on it (the last memory change) (``summary["fresh-75"]``),
# ``fresh-76`` collected while memfix52 was built, scored once on it (the last memory change) (``summary["fresh-76"]``),
# ``fresh-77`` collected after memfix52 (the last memory change), scored once on it (``summary["fresh-77"]``),
# ``fresh-78`` collected while memfix54 was built, scored once on it (before memfix55) (``summary["fresh-78"]``),
# ``fresh-79`` collected while memfix54 was built, scored once on it (before memfix55) (``summary["fresh-79"]``),
# ``fresh-80`` collected while memfix54 was built, scored once on it (before memfix55) (``summary["fresh-80"]``),
# ``fresh-81`` collected while memfix55 was built, scored once on it (before memfix56) (``summary["fresh-81"]``),
# ``fresh-82`` collected while memfix56 was built, scored once on it (the last memory change) (``summary["fresh-82"]``).
CASE_SET_FILES = {"first": "measured_peaks.jsonl", "later": "measured_peaks_later.jsonl",
                  "fresh": "measured_peaks_fresh.jsonl", "fresh-2": "measured_peaks_fresh2.jsonl",
                  "fresh-3": "measured_peaks_fresh3.jsonl", "fresh-4": "measured_peaks_fresh4.jsonl",
                  "fresh-5": "measured_peaks_fresh5.jsonl", "fresh-6": "measured_peaks_fresh6.jsonl",
                  "fresh-7": "measured_peaks_fresh7.jsonl", "fresh-8": "measured_peaks_fresh8.jsonl",
                  "fresh-9": "measured_peaks_fresh9.jsonl", "fresh-10": "measured_peaks_fresh10.jsonl",
                  "fresh-11": "measured_peaks_fresh11.jsonl", "fresh-12": "measured_peaks_fresh12.jsonl",
                  "fresh-13": "measured_peaks_fresh13.jsonl", "fresh-14": "measured_peaks_fresh14.jsonl",
                  "fresh-15": "measured_peaks_fresh15.jsonl", "fresh-16": "measured_peaks_fresh16.jsonl",
                  "fresh-17": "measured_peaks_fresh17.jsonl",
                  "fresh-18": "measured_peaks_fresh18.jsonl", "fresh-19": "measured_peaks_fresh19.jsonl",
                  "fresh-20": "measured_peaks_fresh20.jsonl", "fresh-21": "measured_peaks_fresh21.jsonl",
                  "fresh-22": "measured_peaks_fresh22.jsonl", "fresh-23": "measured_peaks_fresh23.jsonl",
                  "fresh-24": "measured_peaks_fresh24.jsonl",
                  "fresh-25": "measured_peaks_fresh25.jsonl",
                  "fresh-26": "measured_peaks_fresh26.jsonl",
                  "fresh-27": "measured_peaks_fresh27.jsonl",
                  "fresh-28": "measured_peaks_fresh28.jsonl",
                  "fresh-29": "measured_peaks_fresh29.jsonl",
                  "fresh-30": "measured_peaks_fresh30.jsonl",
                  "fresh-31": "measured_peaks_fresh31.jsonl",
                  "fresh-32": "measured_peaks_fresh32.jsonl",
                  "fresh-33": "measured_peaks_fresh33.jsonl",
                  "fresh-34": "measured_peaks_fresh34.jsonl",
                  "fresh-35": "measured_peaks_fresh35.jsonl",
                  "fresh-36": "measured_peaks_fresh36.jsonl",
                  "fresh-37": "measured_peaks_fresh37.jsonl",
                  "fresh-38": "measured_peaks_fresh38.jsonl",
                  "fresh-39": "measured_peaks_fresh39.jsonl",
                  "fresh-40": "measured_peaks_fresh40.jsonl",
                  "fresh-41": "measured_peaks_fresh41.jsonl",
                  "fresh-42": "measured_peaks_fresh42.jsonl",
                  "fresh-43": "measured_peaks_fresh43.jsonl",
                  "fresh-44": "measured_peaks_fresh44.jsonl",
                  "fresh-45": "measured_peaks_fresh45.jsonl",
                  "fresh-46": "measured_peaks_fresh46.jsonl",
                  "fresh-47": "measured_peaks_fresh47.jsonl",
                  "fresh-48": "measured_peaks_fresh48.jsonl",
                  "fresh-49": "measured_peaks_fresh49.jsonl",
                  "fresh-50": "measured_peaks_fresh50.jsonl",
                  "fresh-51": "measured_peaks_fresh51.jsonl",
                  "fresh-52": "measured_peaks_fresh52.jsonl",
                  "fresh-53": "measured_peaks_fresh53.jsonl",
                  "fresh-54": "measured_peaks_fresh54.jsonl",
                  "fresh-55": "measured_peaks_fresh55.jsonl",
                  "fresh-56": "measured_peaks_fresh56.jsonl",
                  "fresh-57": "measured_peaks_fresh57.jsonl",
                  "fresh-58": "measured_peaks_fresh58.jsonl",
                  "fresh-59": "measured_peaks_fresh59.jsonl",
                  "fresh-60": "measured_peaks_fresh60.jsonl",
                  "fresh-61": "measured_peaks_fresh61.jsonl",
                  "fresh-62": "measured_peaks_fresh62.jsonl",
                  "fresh-63": "measured_peaks_fresh63.jsonl",
                  "fresh-64": "measured_peaks_fresh64.jsonl",
                  "fresh-65": "measured_peaks_fresh65.jsonl",
                  "fresh-66": "measured_peaks_fresh66.jsonl",
                  "fresh-67": "measured_peaks_fresh67.jsonl",
                  "fresh-68": "measured_peaks_fresh68.jsonl",
                  "fresh-69": "measured_peaks_fresh69.jsonl",
                  "fresh-70": "measured_peaks_fresh70.jsonl",
                  "fresh-71": "measured_peaks_fresh71.jsonl",
                  "fresh-72": "measured_peaks_fresh72.jsonl",
                  "fresh-73": "measured_peaks_fresh73.jsonl",
                  "fresh-74": "measured_peaks_fresh74.jsonl",
                  "fresh-75": "measured_peaks_fresh75.jsonl",
                  "fresh-76": "measured_peaks_fresh76.jsonl",
                  "fresh-77": "measured_peaks_fresh77.jsonl",
                  "fresh-78": "measured_peaks_fresh78.jsonl",
                  "fresh-79": "measured_peaks_fresh79.jsonl",
                  "fresh-80": "measured_peaks_fresh80.jsonl",
                  "fresh-81": "measured_peaks_fresh81.jsonl",
                  "fresh-82": "measured_peaks_fresh82.jsonl"}
HELD_OUT_SETS = frozenset({"fresh", "fresh-2", "fresh-3", "fresh-4", "fresh-5", "fresh-6", "fresh-7", "fresh-8",
                           "fresh-9", "fresh-10", "fresh-11", "fresh-12", "fresh-13",
                           "fresh-14", "fresh-15", "fresh-16", "fresh-17", "fresh-18", "fresh-19", "fresh-20",
                           "fresh-21", "fresh-22", "fresh-23", "fresh-24", "fresh-25", "fresh-26", "fresh-27", "fresh-28", "fresh-29", "fresh-30", "fresh-31", "fresh-32", "fresh-33", "fresh-34", "fresh-35", "fresh-36", "fresh-37", "fresh-38", "fresh-39", "fresh-40", "fresh-41", "fresh-42", "fresh-43", "fresh-44", "fresh-45", "fresh-46", "fresh-47", "fresh-48", "fresh-49", "fresh-50", "fresh-51", "fresh-52", "fresh-53", "fresh-54", "fresh-55", "fresh-56", "fresh-57", "fresh-58", "fresh-59", "fresh-60", "fresh-61", "fresh-62", "fresh-63", "fresh-64", "fresh-65", "fresh-66", "fresh-67", "fresh-68", "fresh-69", "fresh-70", "fresh-71", "fresh-72", "fresh-73", "fresh-74", "fresh-75", "fresh-76", "fresh-77", "fresh-78", "fresh-79", "fresh-80", "fresh-81", "fresh-82"})


def default_cases_paths() -> tuple[Path, ...]:
    """Every bundled validation set present (:data:`CASE_SET_FILES`, in that order)."""
    first = default_cases_path()
    paths = [first.with_name(name) for name in CASE_SET_FILES.values()]
    return tuple(p for p in paths if p == first or p.is_file())


def case_set_of(path: Path) -> str:
    """The set name of a cases file (:data:`CASE_SET_FILES`); a file given by the user is ``user``."""
    return next((name for name, file in CASE_SET_FILES.items() if path.name == file), "user")


@dataclass(frozen=True)
class CaseResult:
    """One published measurement and the estimate for the same statistic (bytes)."""

    case_id: str
    method: str
    gpus: int
    statistic: str
    measured_bytes: float
    estimated_bytes: float
    supported: bool
    source_url: str
    description: str
    error: str = ""
    accelerate_bytes: float | None = None
    deepspeed_bytes: float | None = None
    framework: str = ""
    added: str = ""
    case_set: str = ""

    @property
    def ratio(self) -> float:
        """estimate / measured (1.0 is exact); 0.0 when the estimate failed."""
        return self.estimated_bytes / self.measured_bytes if self.measured_bytes else 0.0

    @property
    def abs_error(self) -> float:
        """|estimate / measured - 1|."""
        return abs(self.ratio - 1.0)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.case_id, "method": self.method, "gpus": self.gpus, "statistic": self.statistic,
                "measured_bytes": int(self.measured_bytes), "estimated_bytes": int(self.estimated_bytes),
                "ratio": round(self.ratio, 4), "supported": self.supported, "source_url": self.source_url,
                "description": self.description, "error": self.error,
                "accelerate_bytes": None if self.accelerate_bytes is None else int(self.accelerate_bytes),
                "deepspeed_bytes": None if self.deepspeed_bytes is None else int(self.deepspeed_bytes),
                "framework": self.framework, "added": self.added, "set": self.case_set}


def load_cases(path: str | Path | None = None) -> list[dict[str, Any]]:
    """Read the JSON-lines validation set.

    Raises:
        ConfigFileError: the file is missing, too large or has a line that is not a JSON object.
    """
    p = Path(path) if path else default_cases_path()
    try:
        text = read_input(p, MAX_CASES_FILE_BYTES, _("the validation set")).decode("utf-8")
    except InputFileError as exc:
        raise ConfigFileError("cases", exc.user_text()) from exc
    except UnicodeDecodeError as exc:
        raise ConfigFileError("cases", _("{path} is not UTF-8 text.").format(path=display_path(p))) from exc
    cases = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ConfigFileError("cases", _("{path} line {line} is not JSON ({reason}).").format(
                path=p, line=number, reason=json_error_reason(exc))) from exc
        if not isinstance(item, dict):
            raise ConfigFileError("cases", _("{path} line {line} must be a JSON object.").format(path=p, line=number))
        _check_case_fields(item, p, number)
        cases.append(item)
    if not cases:
        raise ConfigFileError("cases", _("{path} holds no cases: write one JSON object per line.").format(path=p))
    return cases


def _check_case_fields(item: dict[str, Any], path: Path, number: int) -> None:
    """The fields every row needs to be scored (``id``, ``method``, ``config``, ``value``, ``unit``).

    Raises:
        ConfigFileError: a missing field, an unknown method or unit, or a measured value that is not a positive
            finite number.
    """
    for key in ("id", "method", "config", "value", "unit"):
        if key not in item:
            raise ConfigFileError("cases", _("{path} line {line} has no {field!r} field.").format(
                path=path, line=number, field=key))
    if item["method"] not in MODE_OF_METHOD:
        raise ConfigFileError("cases", _("{path} line {line}: method {value!r} is not one of {names}.").format(
            path=path, line=number, value=item["method"], names=", ".join(MODE_OF_METHOD)))
    if item["unit"] not in UNIT_BYTES:
        raise ConfigFileError("cases", _("{path} line {line}: unit {value!r} is not one of {names}.").format(
            path=path, line=number, value=item["unit"], names=", ".join(UNIT_BYTES)))
    value = item["value"]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (0 < value < math.inf):
        raise ConfigFileError("cases", _("{path} line {line}: value must be a positive number, got {value!r}.").format(
            path=path, line=number, value=value))


def case_global_batch(case: dict[str, Any]) -> int | None:
    """The ``--global-batch`` a user types for a case: the row's ``global_batch_size``, or, for a pipeline row
    whose micro-batch cannot be split into its pipeline micro-batches (``micro_batch_size`` not a multiple of
    ``pipeline_microbatches``), the Megatron reading of those two fields: the micro-batch is one pipeline
    micro-batch and the step runs ``pipeline_microbatches`` of them on each data-parallel rank, so the user types
    ``--batch micro_batch_size --global-batch micro_batch_size x pipeline_microbatches x DP`` (DP = GPUs / (TP x
    PP x CP)). A row the split reading fits keeps ``--batch`` / ``--pp-microbatches`` as given."""
    if case.get("global_batch_size"):
        return int(case["global_batch_size"])
    pp = int(case.get("pipeline_parallel") or 1)
    m = int(case.get("pipeline_microbatches") or 0)
    batch = int(case.get("micro_batch_size", 1))
    if pp == 1 or not m or batch % m == 0:
        return None
    model_parallel = int(case.get("tensor_parallel", 1)) * pp * int(case.get("context_parallel", 1))
    return batch * m * max(1, int(case.get("gpus", 1)) // model_parallel)


def _elements(case: dict[str, Any], name: str) -> int | None:
    """A DeepSpeed ZeRO-3 setting a row may give, in elements (None when absent: DeepSpeed's default, or Hugging
    Face's ``"auto"`` fill for the bucket sizes and the persistence threshold)."""
    return None if case.get(name) is None else int(case[name])


def case_workload(case: dict[str, Any]) -> MemoryWorkload:
    """The :class:`MemoryWorkload` a case describes, through exactly the settings ``gpudesk estimate memory``
    takes as flags (no correction keyed on the framework or the case)."""
    precision = str(case.get("precision", "bf16"))
    mode = MODE_OF_METHOD[str(case["method"])]
    targets = tuple(str(case.get("lora_targets") or "all-linear").split(","))
    return MemoryWorkload(
        mode=mode, precision=precision,
        # The row schema fills "optimizer": "adamw" into every row (training's default); an inference row's filler is
        # not a setting its source gave, so, like a user of the CLI, it gives no --optimizer.
        optimizer=str(case.get("optimizer", "adamw")) if mode != "inference" or case.get("optimizer", "adamw") != "adamw"
        else MemoryWorkload.optimizer,
        seq_len_tokens=int(case.get("seq_len_tokens", 2048)), micro_batch_size=int(case.get("micro_batch_size", 1)),
        # ``--batch`` is the micro-batch of training and the concurrent sequences of inference (the CLI sets both).
        concurrent_sequences=int(case.get("micro_batch_size", 1)),
        gpus=int(case.get("gpus", 1)), sharding=str(case.get("sharding", "ddp")), offload=str(case.get("offload", "none")),
        recompute=str(case.get("recompute", "none")), flash_attention=bool(case.get("flash_attention", True)),
        tensor_parallel=int(case.get("tensor_parallel", 1)), sequence_parallel=bool(case.get("sequence_parallel", False)),
        sp_gathered_inputs=bool(case.get("sp_gathered_inputs", False)),
        lora_rank=int(case.get("lora_rank") or 16), lora_targets=targets,
        weight_format=str(case.get("weight_format") or precision) if mode == "inference" else str(
            case.get("weight_format") or CHECKPOINT_WEIGHT_FORMAT),
        # Inference rows: "weights" rows need no context; "kv_cache" rows give the tokens the measured cache holds
        # per GPU and the engine's block granularity (vLLM 16 tokens, SGLang 1).
        context_tokens=int(case.get("context_tokens", 16)), kv_precision=str(case.get("kv_precision", "bf16")),
        paged_block_tokens=int(case.get("paged_block_tokens", 16)),
        loss=str(case.get("loss", "standard")),
        loss_vocab_chunk=int(case["loss_vocab_chunk"]) if case.get("loss_vocab_chunk") is not None else None,
        optimizer_in_backward=bool(case.get("optimizer_in_backward", False)),
        activation_offload=bool(case.get("activation_offload", False)),
        context_parallel=int(case.get("context_parallel", 1)), compiled=bool(case.get("compile", False)),
        gradient_accumulation=int(case.get("gradient_accumulation_steps", 1)) > 1,
        zero_grad_keeps_grads=bool(case.get("zero_grad_keeps_grads", False)),
        cuda_lazy_loading=bool(case.get("cuda_lazy_loading", True)),
        # as typed: 1.5 or true is refused by name (driver_reserved.check_driver_reserved_mib), as the CLI refuses it
        driver_reserved_mib=case.get("driver_reserved_mib", 0),
        cuda_major_version=int(case.get("cuda_major_version", MemoryWorkload.cuda_major_version)),
        fsdp_version=int(case.get("fsdp_version") or 2),
        fsdp1_limit_all_gathers=not bool(case.get("fsdp1_no_rate_limiter", False)),
        fsdp1_no_sync=not bool(case.get("fsdp1_sync_each_batch", False)),
        fsdp2_no_sync=str(case.get("fsdp2_no_sync", "off")),
        tp_whole_logits=bool(case.get("tp_whole_logits", False)),
        decoder_seq_len_tokens=int(case["decoder_seq_len_tokens"]) if case.get("decoder_seq_len_tokens") else None,
        tp_replicated_embedding=bool(case.get("tp_replicated_embedding", False)),
        ddp_bucket_view=bool(case.get("ddp_bucket_view", False)),
        fp32_grad_buffer=bool(case.get("fp32_grad_buffer", False)),
        main_grads_kept=bool(case.get("main_grads_kept", False)),
        unfused_gelu=bool(case.get("unfused_gelu", False)), fused_norm=bool(case.get("fused_norm", False)),
        grouped_kv_attention=bool(case.get("grouped_kv_attention", False)),
        eager_softmax=str(case.get("eager_softmax", "16bit")), fsdp_root_only=bool(case.get("fsdp_root_only", False)),
        encoder_lm_head=bool(case.get("encoder_lm_head", False)),
        kv_cache_impl=str(case.get("kv_cache_impl", "paged")),
        mla_decode_weights=str(case.get("mla_decode_weights", "up-proj")),
        prompt_logits=str(case.get("prompt_logits", "last")),
        prompt_tokens=int(case["prompt_tokens"]) if case.get("prompt_tokens") else None,
        optimizer_impl=str(case.get("optimizer_impl", "foreach")),
        kbit_fp32_upcast=bool(case.get("kbit_fp32_upcast", False)),
        kbit_embeddings_bf16=bool(case.get("kbit_embeddings_bf16", False)),
        fsdp1_mixed_flat_params=bool(case.get("fsdp1_mixed_flat_params", False)),
        lora_dropout=float(case.get("lora_dropout", 0.0)), legacy_bnb_matmul=bool(case.get("legacy_bnb_matmul", False)),
        nonreentrant_checkpoint=bool(case.get("nonreentrant_checkpoint", False)),
        lora_kernels=str(case.get("lora_kernels", "peft")),
        weight_loading=str(case.get("weight_loading", "per-tensor")),
        double_quant=bool(case.get("bnb_double_quant", True)),
        pipeline_parallel=int(case.get("pipeline_parallel") or 1),
        pipeline_schedule=str(case.get("pipeline_schedule", "1f1b")),
        pipeline_microbatches=int(case["pipeline_microbatches"]) if case.get("pipeline_microbatches") else None,
        pipeline_stages_per_rank=int(case["pipeline_stages_per_rank"]) if case.get("pipeline_stages_per_rank") else None,
        global_batch_size=case_global_batch(case),
        longest_sample_tokens=int(case["longest_sample_tokens"]) if case.get("longest_sample_tokens") else None,
        fused_qkv_load=bool(case.get("fused_qkv_load", False)),
        prefill_kv_kept=bool(case.get("prefill_kv_kept", False)),
        gptq_kernel=str(case.get("gptq_kernel", "none")),
        max_input_tokens=int(case.get("max_input_tokens", 2048)),
        decode_attention=str(case.get("decode_attention", "fused")),
        load_dtype=str(case.get("load_dtype", "weight-format")),
        tp_replicated_vocab=bool(case.get("tp_replicated_vocab", False)),
        embeddings_on_host=bool(case.get("embeddings_on_host", False)),
        base_weights=str(case.get("base_weights", "precision")),
        modules_to_save=tuple(m for m in str(case.get("modules_to_save") or "").split(",") if m),
        no_kv_cache=bool(case.get("no_kv_cache", False)),
        bnb_fp32_compute=bool(case.get("bnb_fp32_compute", False)),
        zero3_max_reuse_distance=int(case.get("zero3_max_reuse_distance", MemoryWorkload.zero3_max_reuse_distance)),
        zero3_max_live_parameters=int(case.get("zero3_max_live_parameters", MemoryWorkload.zero3_max_live_parameters)),
        zero3_prefetch_bucket=_elements(case, "zero3_prefetch_bucket"),
        zero3_persistence_threshold=_elements(case, "zero3_persistence_threshold"),
        zero3_reduce_bucket=_elements(case, "zero3_reduce_bucket"),
        zero3_defaults=str(case.get("zero3_defaults", "hf-auto")),
        zero3_outside_init=bool(case.get("zero3_outside_init", False)),
        zero2_reduce_bucket=_elements(case, "zero2_reduce_bucket"),
        recompute_layers=_elements(case, "recompute_layers"),
        expert_parallel=int(case.get("expert_parallel", 1)),
        expert_tensor_parallel=_elements(case, "expert_tensor_parallel"),
        eval_batch=int(case.get("eval_batch") or 0), eval_kv_cache=not bool(case.get("eval_no_cache", False)),
        eval_loss=str(case.get("eval_loss") or ""),
    )


def evaluate_case(case: dict[str, Any], configs_dir: Path, case_set: str = "") -> CaseResult:
    """Estimate one case; an estimator error is recorded on the result, not raised."""
    measured = float(case["value"]) * UNIT_BYTES[str(case["unit"])]
    statistic = str(case.get("statistic", "allocated"))
    estimated, error = 0.0, ""
    accelerate: float | None = None
    deepspeed: float | None = None
    try:
        spec = spec_from_hf_config(configs_dir / f"{case['config']}.config.json")
        workload = case_workload(case)
        est = estimate_memory(spec, workload)
        estimated = float(est.statistic_bytes(statistic))
        if workload.mode == "train" and workload.tensor_parallel == 1 and statistic != "weights":
            # Peers size model states of plain data-parallel training; accelerate only for one GPU.
            if workload.gpus == 1:
                accelerate = accelerate_training_bytes(spec, workload.precision)
            deepspeed = deepspeed_model_states_bytes(spec, workload.gpus, workload.sharding, workload.offload)
    except SizingError as exc:
        error = str(exc)
    except (ValueError, TypeError) as exc:  # a field of the wrong kind ("seq_len_tokens": "abc"): the row, not the model
        raise ConfigFileError("cases", _("case {case}: a field has a value of the wrong kind ({reason}).").format(
            case=case["id"], reason=exc)) from exc
    return CaseResult(case_id=str(case["id"]), method=str(case["method"]), gpus=int(case.get("gpus", 1)),
                      statistic=statistic, measured_bytes=measured, estimated_bytes=estimated,
                      supported=bool(case.get("supported", True)), source_url=str(case.get("source_url", "")),
                      description=str(case.get("description", "")), error=error,
                      accelerate_bytes=accelerate, deepspeed_bytes=deepspeed,
                      framework=str(case.get("framework", "")), added=str(case.get("added", "")),
                      case_set=case_set)


def evaluate(path: str | Path | None = None) -> list[CaseResult]:
    """Every case of the validation set with its estimate (default: every bundled set, :func:`default_cases_paths`)."""
    if path is not None and not str(path).strip():
        raise ConfigFileError("cases", _("the path of the validation set is empty; give a .jsonl file, or leave "
                                         "the option out for the bundled sets."))
    paths = (Path(path),) if path is not None else default_cases_paths()
    return [evaluate_case(c, p.parent / "configs", case_set_of(p)) for p in paths for c in load_cases(p)]


def gpu_bucket(gpus: int) -> str:
    """``1``, ``2-8`` or ``>8``."""
    return "1" if gpus <= 1 else ("2-8" if gpus <= 8 else ">8")


def _error_summary(errors: list[float]) -> dict[str, Any]:
    if not errors:
        return {"cases": 0, "within_15_share": 0.0, "within_25_share": 0.0, "median_abs_error": 0.0}
    return {"cases": len(errors), "within_15_share": sum(e <= 0.15 for e in errors) / len(errors),
            "within_25_share": sum(e <= 0.25 for e in errors) / len(errors),
            "median_abs_error": statistics.median(errors)}


def _summary(rows: list[CaseResult]) -> dict[str, Any]:
    return _error_summary([r.abs_error for r in rows])


def _peer_summary(pairs: list[tuple[float | None, float]]) -> dict[str, Any]:
    return _error_summary([abs((est or 0.0) / measured - 1.0) for est, measured in pairs if measured])


def summarize(results: list[CaseResult]) -> dict[str, Any]:
    """Share within 15 % / 25 % and median absolute error over the supported cases, overall, by method and
    by GPU count; unsupported cases are counted separately. Held-out sets (:data:`HELD_OUT_SETS`) are left out
    of every figure and each summarised on its own under its set name (overall, by method, by GPU count)."""
    held_out = {name: [r for r in results if r.case_set == name] for name in sorted(HELD_OUT_SETS)}
    results = [r for r in results if r.case_set not in HELD_OUT_SETS]
    rows = [r for r in results if r.supported and not r.error]
    out = _summary(rows)
    for name, set_rows in held_out.items():
        scored = [r for r in set_rows if r.supported and not r.error]
        out[name] = dict(_summary(scored),
                         by_method={m: _summary([r for r in scored if r.method == m])
                                    for m in sorted({r.method for r in scored})},
                         by_gpus={b: _summary([r for r in scored if gpu_bucket(r.gpus) == b])
                                  for b in ("1", "2-8", ">8")},
                         failed_cases=sum(bool(r.error) for r in set_rows if r.supported),
                         rows=len(set_rows))
    out["by_method"] = {m: _summary([r for r in rows if r.method == m]) for m in sorted({r.method for r in rows})}
    out["by_gpus"] = {b: _summary([r for r in rows if gpu_bucket(r.gpus) == b]) for b in ("1", "2-8", ">8")}
    out["peers"] = {
        "gpudesk": _summary([r for r in rows if r.deepspeed_bytes is not None]),
        "accelerate": _peer_summary([(r.accelerate_bytes, r.measured_bytes) for r in rows if r.accelerate_bytes]),
        "deepspeed": _peer_summary([(r.deepspeed_bytes, r.measured_bytes) for r in rows if r.deepspeed_bytes]),
    }
    out["added_later"] = _summary([r for r in rows if r.added])
    out["unsupported_cases"] = sum(not r.supported for r in results)
    out["failed_cases"] = sum(bool(r.error) for r in results if r.supported)
    out["sources"] = len({r.source_url.split("#")[0] for r in results})
    return out


def typical_error_for(results: list[CaseResult], method: str) -> dict[str, Any]:
    """The summary for one kind of job (``full``, ``lora``, ``qlora``, ``inference``), for the Plan's hint: over the
    same rows as :func:`summarize`'s headline (held-out sets left out), so the hint's count never exceeds it."""
    return _summary([r for r in results if r.supported and not r.error and r.method == method
                     and r.case_set not in HELD_OUT_SETS])


@dataclass(frozen=True)
class AccuracyReport:
    """Every case with its estimate and the summary of :func:`summarize`, as plain data for the CLI and the UI."""

    results: tuple[CaseResult, ...]
    summary: dict[str, Any]

    def typical_error(self, method: str) -> dict[str, Any]:
        """The summary for one kind of job (``full``, ``lora``, ``qlora``, ``inference``)."""
        return typical_error_for(list(self.results), method)


def load_accuracy(path: str | Path | None = None) -> AccuracyReport:
    """Evaluate the validation set (about 0.3 s; run it off the GUI thread).

    Raises:
        ConfigFileError: the validation set cannot be read.
    """
    results = evaluate(path)
    return AccuracyReport(results=tuple(results), summary=summarize(results))


def method_of_mode(mode: str) -> str:
    """The validation-set method for a workload mode (``train`` -> ``full``)."""
    return {"train": "full"}.get(mode, mode)
