"""The speed models checked against published measured runs: per row predicted/measured, per class summaries.

Reads ``tests/fixtures/speed/{train_runs,serve_runs,later_runs,fresh_train_runs,fresh_serve_runs}.jsonl`` and the
second, third and fourth fresh batches ``fresh2_{train,serve}_runs.jsonl``, ``fresh3_{train,serve}_runs.jsonl`` and
``fresh4_{train,serve}_runs.jsonl`` (a missing
file is an empty set; the format is that folder's README). Training rows go through
:func:`gpudesk.sizing.speed_train_cases.predict_train_case`, serving rows through
:func:`gpudesk.sizing.speed_serve_cases.predict_serve_case`. A row either gets a ratio predicted / measured or is
listed with the reason it cannot be answered. Classes: kind, vendor, pipeline parallel, expert parallel / MoE,
FP8, engine; each with its share within 20 % and 50 %, median absolute error and geometric-mean ratio. The later
set (rows collected after the model was written) and the fresh sets (rows collected after it was frozen; fresh2 after
a second freeze, fresh3 after a third, fresh4 after a fourth, and so on to fresh124) are summarised on their own.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpudesk.i18n import _
from gpudesk.json_limits import json_error_reason
from gpudesk.paths import bundle_root
from gpudesk.sizing.errors import ConfigFileError, SizingError

SET_FILES = {"dev": ("train_runs.jsonl", "serve_runs.jsonl"), "later": ("later_runs.jsonl",), "fresh": ("fresh_train_runs.jsonl", "fresh_serve_runs.jsonl"), "fresh2": ("fresh2_train_runs.jsonl", "fresh2_serve_runs.jsonl"), "fresh3": ("fresh3_train_runs.jsonl", "fresh3_serve_runs.jsonl"), "fresh4": ("fresh4_train_runs.jsonl", "fresh4_serve_runs.jsonl"), "fresh5": ("fresh5_train_runs.jsonl", "fresh5_serve_runs.jsonl"), "fresh6": ("fresh6_train_runs.jsonl", "fresh6_serve_runs.jsonl"), "fresh7": ("fresh7_train_runs.jsonl", "fresh7_serve_runs.jsonl"), "fresh8": ("fresh8_train_runs.jsonl", "fresh8_serve_runs.jsonl"), "fresh9": ("fresh9_train_runs.jsonl", "fresh9_serve_runs.jsonl"), "fresh10": ("fresh10_train_runs.jsonl", "fresh10_serve_runs.jsonl"), "fresh11": ("fresh11_train_runs.jsonl", "fresh11_serve_runs.jsonl"), "fresh12": ("fresh12_train_runs.jsonl", "fresh12_serve_runs.jsonl"), "fresh13": ("fresh13_train_runs.jsonl", "fresh13_serve_runs.jsonl"), "fresh14": ("fresh14_train_runs.jsonl", "fresh14_serve_runs.jsonl"), "fresh15": ("fresh15_train_runs.jsonl", "fresh15_serve_runs.jsonl"), "fresh16": ("fresh16_train_runs.jsonl", "fresh16_serve_runs.jsonl"), "fresh17": ("fresh17_train_runs.jsonl", "fresh17_serve_runs.jsonl"), "fresh18": ("fresh18_train_runs.jsonl", "fresh18_serve_runs.jsonl"), "fresh19": ("fresh19_train_runs.jsonl", "fresh19_serve_runs.jsonl"), "fresh20": ("fresh20_train_runs.jsonl", "fresh20_serve_runs.jsonl"), "fresh21": ("fresh21_train_runs.jsonl", "fresh21_serve_runs.jsonl"), "fresh22": ("fresh22_train_runs.jsonl", "fresh22_serve_runs.jsonl"), "fresh23": ("fresh23_train_runs.jsonl", "fresh23_serve_runs.jsonl"), "fresh24": ("fresh24_train_runs.jsonl", "fresh24_serve_runs.jsonl"), "fresh25": ("fresh25_train_runs.jsonl", "fresh25_serve_runs.jsonl"), "fresh26": ("fresh26_train_runs.jsonl", "fresh26_serve_runs.jsonl"), "fresh27": ("fresh27_train_runs.jsonl", "fresh27_serve_runs.jsonl"), "fresh28": ("fresh28_train_runs.jsonl", "fresh28_serve_runs.jsonl"), "fresh29": ("fresh29_train_runs.jsonl", "fresh29_serve_runs.jsonl"), "fresh30": ("fresh30_train_runs.jsonl", "fresh30_serve_runs.jsonl"), "fresh31": ("fresh31_train_runs.jsonl", "fresh31_serve_runs.jsonl"), "fresh32": ("fresh32_train_runs.jsonl", "fresh32_serve_runs.jsonl"), "fresh33": ("fresh33_train_runs.jsonl", "fresh33_serve_runs.jsonl"), "fresh34": ("fresh34_train_runs.jsonl", "fresh34_serve_runs.jsonl"), "fresh35": ("fresh35_train_runs.jsonl", "fresh35_serve_runs.jsonl"), "fresh36": ("fresh36_train_runs.jsonl", "fresh36_serve_runs.jsonl"), "fresh37": ("fresh37_train_runs.jsonl", "fresh37_serve_runs.jsonl"), "fresh38": ("fresh38_train_runs.jsonl", "fresh38_serve_runs.jsonl"), "fresh39": ("fresh39_train_runs.jsonl", "fresh39_serve_runs.jsonl"), "fresh40": ("fresh40_train_runs.jsonl", "fresh40_serve_runs.jsonl"), "fresh41": ("fresh41_train_runs.jsonl", "fresh41_serve_runs.jsonl"), "fresh42": ("fresh42_train_runs.jsonl", "fresh42_serve_runs.jsonl"), "fresh43": ("fresh43_train_runs.jsonl", "fresh43_serve_runs.jsonl"), "fresh44": ("fresh44_train_runs.jsonl", "fresh44_serve_runs.jsonl"), "fresh45": ("fresh45_train_runs.jsonl", "fresh45_serve_runs.jsonl"), "fresh46": ("fresh46_train_runs.jsonl", "fresh46_serve_runs.jsonl"), "fresh47": ("fresh47_train_runs.jsonl", "fresh47_serve_runs.jsonl"), "fresh48": ("fresh48_train_runs.jsonl", "fresh48_serve_runs.jsonl"), "fresh49": ("fresh49_train_runs.jsonl", "fresh49_serve_runs.jsonl"), "fresh50": ("fresh50_train_runs.jsonl", "fresh50_serve_runs.jsonl"), "fresh51": ("fresh51_train_runs.jsonl", "fresh51_serve_runs.jsonl"), "fresh52": ("fresh52_train_runs.jsonl", "fresh52_serve_runs.jsonl"), "fresh53": ("fresh53_train_runs.jsonl", "fresh53_serve_runs.jsonl"), "fresh54": ("fresh54_train_runs.jsonl", "fresh54_serve_runs.jsonl"), "fresh55": ("fresh55_train_runs.jsonl", "fresh55_serve_runs.jsonl"), "fresh56": ("fresh56_train_runs.jsonl", "fresh56_serve_runs.jsonl"), "fresh57": ("fresh57_train_runs.jsonl", "fresh57_serve_runs.jsonl"), "fresh58": ("fresh58_train_runs.jsonl", "fresh58_serve_runs.jsonl"), "fresh59": ("fresh59_train_runs.jsonl", "fresh59_serve_runs.jsonl"), "fresh60": ("fresh60_train_runs.jsonl", "fresh60_serve_runs.jsonl"), "fresh61": ("fresh61_train_runs.jsonl", "fresh61_serve_runs.jsonl"), "fresh62": ("fresh62_train_runs.jsonl", "fresh62_serve_runs.jsonl"), "fresh63": ("fresh63_train_runs.jsonl", "fresh63_serve_runs.jsonl"), "fresh64": ("fresh64_train_runs.jsonl", "fresh64_serve_runs.jsonl"), "fresh65": ("fresh65_train_runs.jsonl", "fresh65_serve_runs.jsonl"), "fresh66": ("fresh66_train_runs.jsonl", "fresh66_serve_runs.jsonl"), "fresh67": ("fresh67_train_runs.jsonl", "fresh67_serve_runs.jsonl"), "fresh68": ("fresh68_train_runs.jsonl", "fresh68_serve_runs.jsonl"), "fresh69": ("fresh69_train_runs.jsonl", "fresh69_serve_runs.jsonl"), "fresh70": ("fresh70_train_runs.jsonl", "fresh70_serve_runs.jsonl"), "fresh71": ("fresh71_train_runs.jsonl", "fresh71_serve_runs.jsonl"), "fresh72": ("fresh72_train_runs.jsonl", "fresh72_serve_runs.jsonl"), "fresh73": ("fresh73_train_runs.jsonl", "fresh73_serve_runs.jsonl"), "fresh74": ("fresh74_train_runs.jsonl", "fresh74_serve_runs.jsonl"), "fresh75": ("fresh75_train_runs.jsonl", "fresh75_serve_runs.jsonl"), "fresh76": ("fresh76_train_runs.jsonl", "fresh76_serve_runs.jsonl"), "fresh77": ("fresh77_train_runs.jsonl", "fresh77_serve_runs.jsonl"), "fresh78": ("fresh78_train_runs.jsonl", "fresh78_serve_runs.jsonl"), "fresh79": ("fresh79_train_runs.jsonl", "fresh79_serve_runs.jsonl"), "fresh80": ("fresh80_train_runs.jsonl", "fresh80_serve_runs.jsonl"), "fresh81": ("fresh81_train_runs.jsonl", "fresh81_serve_runs.jsonl"), "fresh82": ("fresh82_train_runs.jsonl", "fresh82_serve_runs.jsonl"), "fresh83": ("fresh83_train_runs.jsonl", "fresh83_serve_runs.jsonl"), "fresh84": ("fresh84_train_runs.jsonl", "fresh84_serve_runs.jsonl"), "fresh85": ("fresh85_train_runs.jsonl", "fresh85_serve_runs.jsonl"), "fresh86": ("fresh86_train_runs.jsonl", "fresh86_serve_runs.jsonl"), "fresh87": ("fresh87_train_runs.jsonl", "fresh87_serve_runs.jsonl"), "fresh88": ("fresh88_train_runs.jsonl", "fresh88_serve_runs.jsonl"), "fresh89": ("fresh89_train_runs.jsonl", "fresh89_serve_runs.jsonl"), "fresh90": ("fresh90_train_runs.jsonl", "fresh90_serve_runs.jsonl"), "fresh91": ("fresh91_train_runs.jsonl", "fresh91_serve_runs.jsonl"), "fresh92": ("fresh92_train_runs.jsonl", "fresh92_serve_runs.jsonl"), "fresh93": ("fresh93_train_runs.jsonl", "fresh93_serve_runs.jsonl"), "fresh94": ("fresh94_train_runs.jsonl", "fresh94_serve_runs.jsonl"), "fresh95": ("fresh95_train_runs.jsonl", "fresh95_serve_runs.jsonl"), "fresh96": ("fresh96_train_runs.jsonl", "fresh96_serve_runs.jsonl"), "fresh97": ("fresh97_train_runs.jsonl", "fresh97_serve_runs.jsonl"), "fresh98": ("fresh98_train_runs.jsonl", "fresh98_serve_runs.jsonl"), "fresh99": ("fresh99_train_runs.jsonl", "fresh99_serve_runs.jsonl"), "fresh100": ("fresh100_train_runs.jsonl", "fresh100_serve_runs.jsonl"), "fresh101": ("fresh101_train_runs.jsonl", "fresh101_serve_runs.jsonl"), "fresh102": ("fresh102_train_runs.jsonl", "fresh102_serve_runs.jsonl"), "fresh103": ("fresh103_train_runs.jsonl", "fresh103_serve_runs.jsonl"), "fresh104": ("fresh104_train_runs.jsonl", "fresh104_serve_runs.jsonl"), "fresh105": ("fresh105_train_runs.jsonl", "fresh105_serve_runs.jsonl"), "fresh106": ("fresh106_train_runs.jsonl", "fresh106_serve_runs.jsonl"), "fresh107": ("fresh107_train_runs.jsonl", "fresh107_serve_runs.jsonl"), "fresh108": ("fresh108_train_runs.jsonl", "fresh108_serve_runs.jsonl"), "fresh109": ("fresh109_train_runs.jsonl", "fresh109_serve_runs.jsonl"), "fresh110": ("fresh110_train_runs.jsonl", "fresh110_serve_runs.jsonl"), "fresh111": ("fresh111_train_runs.jsonl", "fresh111_serve_runs.jsonl"), "fresh112": ("fresh112_train_runs.jsonl", "fresh112_serve_runs.jsonl"), "fresh113": ("fresh113_train_runs.jsonl", "fresh113_serve_runs.jsonl"), "fresh114": ("fresh114_train_runs.jsonl", "fresh114_serve_runs.jsonl"), "fresh115": ("fresh115_train_runs.jsonl", "fresh115_serve_runs.jsonl"), "fresh116": ("fresh116_train_runs.jsonl", "fresh116_serve_runs.jsonl"), "fresh117": ("fresh117_train_runs.jsonl", "fresh117_serve_runs.jsonl"), "fresh118": ("fresh118_train_runs.jsonl", "fresh118_serve_runs.jsonl"), "fresh119": ("fresh119_train_runs.jsonl", "fresh119_serve_runs.jsonl"), "fresh120": ("fresh120_train_runs.jsonl", "fresh120_serve_runs.jsonl"), "fresh121": ("fresh121_train_runs.jsonl", "fresh121_serve_runs.jsonl"), "fresh122": ("fresh122_train_runs.jsonl", "fresh122_serve_runs.jsonl"), "fresh123": ("fresh123_train_runs.jsonl", "fresh123_serve_runs.jsonl"), "fresh124": ("fresh124_train_runs.jsonl", "fresh124_serve_runs.jsonl")}
MAX_FILE_BYTES = 8 * 1024 * 1024


def speed_cases_dir() -> Path:
    """The bundled measured-run folder (source checkout: ``tests/fixtures/speed``)."""
    return bundle_root() / "tests" / "fixtures" / "speed"


@dataclass(frozen=True)
class SpeedRow:
    """One measured run and its prediction: ``ratio`` = predicted / measured, or ``reason`` when unanswered."""

    case_id: str
    kind: str
    set_name: str
    metric: str
    measured: float
    predicted: float | None
    reason: str | None
    classes: dict[str, str]
    source_url: str

    @property
    def ratio(self) -> float | None:
        """predicted / measured, None when unanswered."""
        if self.predicted is None or not self.measured:
            return None
        return self.predicted / self.measured

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON."""
        return {"id": self.case_id, "kind": self.kind, "set": self.set_name, "metric": self.metric,
                "measured": self.measured, "predicted": self.predicted, "ratio": self.ratio, "reason": self.reason,
                "classes": dict(self.classes), "source_url": self.source_url}


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a ``.jsonl`` file ([] when it does not exist).

    Raises:
        ConfigFileError: unreadable, too large, or a line that is not a JSON object.
    """
    if not path.exists():
        return []
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise ConfigFileError(str(path), _("{path} is larger than 8 MiB; a measured-run set is a few hundred "
                                               "lines.").format(path=path))
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigFileError(str(path), _("cannot read {path}: {error}").format(path=path, error=exc)) from exc
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ConfigFileError(str(path), _("{path} line {line}: not JSON ({error}).").format(
                path=path, line=number, error=json_error_reason(exc))) from exc
        if not isinstance(row, dict):
            raise ConfigFileError(str(path), _("{path} line {line}: not a JSON object.").format(path=path, line=number))
        rows.append(row)
    return rows


def classes_of(row: dict[str, Any], vendor: str) -> dict[str, str]:
    """The classes a row is summarised under (from its published configuration)."""
    kind = str(row.get("kind", "train"))
    out = {"kind": kind, "vendor": f"{kind} {vendor}"}
    precision = str(row.get("precision") or row.get("weight_format") or "bf16")
    out["fp8"] = f"{kind} " + ("fp8" if "fp8" in precision else "16-bit" if precision in ("bf16", "fp16", "fp32")
                               else precision)
    if kind == "train":
        out["pp"] = "pp>1" if int(row.get("pp") or 1) > 1 else "pp=1"
        out["moe"] = "ep>1" if int(row.get("ep") or 1) > 1 else "dense-or-ep=1"
        out["gpu"] = str(row.get("gpu"))
    else:
        out["engine"] = str(row.get("engine"))
    return out


def _vendor(gpu_id: str) -> str:
    try:
        from gpudesk.catalog import open_catalog

        return open_catalog().find_gpu(gpu_id).vendor
    except Exception:  # noqa: BLE001 - an unknown GPU is reported by the prediction itself
        return "unknown"


Predictor = Callable[[dict[str, Any]], float]


def train_predictor(row: dict[str, Any]) -> float:
    from gpudesk.sizing.speed_train_cases import predict_train_case

    return predict_train_case(row)[0]


def _serve_predictor(row: dict[str, Any]) -> float:
    from gpudesk.sizing.speed_serve_cases import predict_serve_case

    return float(predict_serve_case(row)[0])


# The bundled models' predictions of each set, by the set's key (:func:`gpudesk.sizing.speed_accuracy_cache.set_key`,
# the disk cache's key too: the set's files, the model configurations its rows name, the models' code and the catalog)
# -> rows. Predicting every run takes minutes; the window's accuracy dialog and the CLI ask for the same check more than
# once in one process, and an edited file or configuration gives another key.
_EVALUATED: dict[tuple[str, str], tuple[SpeedRow, ...]] = {}


def _set_key(set_name: str, base: Path, models: str | None) -> tuple[str, str]:
    # Imported here: the disk cache's module imports this one (SET_FILES, read_rows, speed_cases_dir).
    from gpudesk.sizing.speed_accuracy_cache import models_digest, set_key

    return set_name, set_key(set_name, models if models is not None else models_digest(base), base)


def evaluate_speed(folder: Path | None = None, predictors: dict[str, Predictor] | None = None) -> list[SpeedRow]:
    """Predict every row of the dev, later and fresh sets in ``folder`` (default :func:`speed_cases_dir`).

    With the bundled predictors each set's result is kept for the process and given again while its key is the
    same (see :func:`evaluate_speed_set`)."""
    models = None
    if predictors is None:
        from gpudesk.sizing.speed_accuracy_cache import models_digest  # (see _set_key)

        models = models_digest(folder or speed_cases_dir())  # once for every set
    results: list[SpeedRow] = []
    for set_name in SET_FILES:
        results += evaluate_speed_set(set_name, folder, predictors, models=models) or []
    return results


def evaluate_speed_set(set_name: str, folder: Path | None = None, predictors: dict[str, Predictor] | None = None,
                       should_stop: Callable[[], bool] | None = None, models: str | None = None
                       ) -> list[SpeedRow] | None:
    """Predict every row of the set ``set_name`` (a key of :data:`SET_FILES`) in ``folder``, in file order.

    ``should_stop`` is asked before each row; once it answers true the set is left unfinished and None returned
    (nothing is kept). With the bundled predictors a finished set is kept for the process under the disk cache's key
    (:func:`gpudesk.sizing.speed_accuracy_cache.set_key`; ``models`` its models digest when the caller has it), so an
    edited set file or model configuration that a row names is predicted again."""
    base = folder or speed_cases_dir()
    key = _set_key(set_name, base, models) if predictors is None else None
    if key is not None and key in _EVALUATED:
        return list(_EVALUATED[key])
    use = predictors or {"train": train_predictor, "serve": _serve_predictor}
    results: list[SpeedRow] = []
    for name in SET_FILES[set_name]:
        for row in read_rows(base / name):
            if should_stop is not None and should_stop():
                return None
            results.append(_one(row, set_name, use))
    if key is not None:
        _EVALUATED[key] = tuple(results)
    return results


def _one(row: dict[str, Any], set_name: str, predictors: dict[str, Predictor]) -> SpeedRow:
    kind = str(row.get("kind", "train"))
    measured = row.get("measured") or {}
    value = float(measured.get("value") or 0.0)
    predicted: float | None = None
    reason: str | None = None
    predictor = predictors.get(kind)
    if predictor is None:
        reason = _("no model for kind {kind!r}").format(kind=kind)
    else:
        try:
            predicted = float(predictor(row))
            if not math.isfinite(predicted) or predicted <= 0:
                reason, predicted = _("the model gave no finite positive value"), None
        except (SizingError, LookupError, ValueError, TypeError) as exc:
            reason = str(exc)
    return SpeedRow(case_id=str(row.get("id")), kind=kind, set_name=set_name, metric=str(measured.get("metric")),
                    measured=value, predicted=predicted, reason=reason,
                    classes=classes_of(row, _vendor(str(row.get("gpu")))), source_url=str(row.get("source_url", "")))


def summarize_ratios(ratios: list[float], rows: int) -> dict[str, Any]:
    """Share within 20 % / 50 %, median |error|, geometric-mean ratio of answered rows; ``rows`` counts all."""
    if not ratios:
        return {"rows": rows, "answered": 0, "within_20_share": 0.0, "within_50_share": 0.0,
                "median_abs_error": None, "geomean_ratio": None}
    errors = [abs(r - 1) for r in ratios]
    return {"rows": rows, "answered": len(ratios),
            "within_20_share": sum(e <= 0.2 for e in errors) / len(errors),
            "within_50_share": sum(e <= 0.5 for e in errors) / len(errors),
            "median_abs_error": statistics.median(errors),
            "geomean_ratio": math.exp(statistics.fmean(math.log(r) for r in ratios))}


def summarize_speed(results: list[SpeedRow]) -> dict[str, Any]:
    """``{"dev": {...}, "later": {...}, "fresh": {...}}``, each with ``all``, ``by_class`` ({class: {value: summary}}) and
    ``unanswered`` ([{id, reason}])."""
    out: dict[str, Any] = {}
    for set_name in SET_FILES:
        rows = [r for r in results if r.set_name == set_name]
        ratios = [r.ratio for r in rows if r.ratio is not None]
        by_class: dict[str, dict[str, Any]] = {}
        groups: dict[tuple[str, str], list[SpeedRow]] = {}
        for r in rows:
            for cls, value in r.classes.items():
                groups.setdefault((cls, value), []).append(r)
        for (cls, value), members in sorted(groups.items()):
            by_class.setdefault(cls, {})[value] = summarize_ratios(
                [m.ratio for m in members if m.ratio is not None], len(members))
        out[set_name] = {"all": summarize_ratios([r for r in ratios if r is not None], len(rows)),
                         "by_kind": {k: summarize_ratios([r.ratio for r in rows if r.kind == k and r.ratio is not None],
                                                         sum(1 for r in rows if r.kind == k))
                                     for k in sorted({r.kind for r in rows})},
                         "by_class": by_class,
                         "unanswered": [{"id": r.case_id, "reason": r.reason} for r in rows if r.ratio is None]}
    return out


def speed_report_lines(results: list[SpeedRow], summary: dict[str, Any]) -> list[str]:
    """The text report of ``gpudesk estimate accuracy`` (speed part)."""
    def fmt(s: dict[str, Any]) -> str:
        if not s["answered"]:
            return _("{rows} rows, none answered").format(rows=s["rows"])
        return _("{answered}/{rows} answered, within 20 %: {w20:.0%}, within 50 %: {w50:.0%}, median error "
                 "{median:.1%}, geometric-mean ratio {gm:.2f}").format(
            answered=s["answered"], rows=s["rows"], w20=s["within_20_share"], w50=s["within_50_share"],
            median=s["median_abs_error"], gm=s["geomean_ratio"])

    lines = ["", _("Speed (predicted / measured)"), f"{'case':<58}{'metric':<22}{'measured':>12}{'predicted':>12}{'ratio':>8}"]
    for r in results:
        if r.ratio is None:
            lines.append(f"{r.case_id:<58}{r.metric:<22}{r.measured:>12.4g}{'':>12}{'':>8}  " + _(
                "not answered: {reason}").format(reason=(r.reason or "")[:80]))
        else:
            lines.append(f"{r.case_id:<58}{r.metric:<22}{r.measured:>12.4g}{r.predicted or 0:>12.4g}{r.ratio:>8.2f}")
    for set_name, title in (("dev", _("development set")), ("later", _("later set (collected after the model)")),
                            ("fresh", _("fresh set (collected after the model was frozen)")),
                            ("fresh2", _("second fresh set (collected after the model was frozen again)")),
                            ("fresh3", _("third fresh set (collected after the model was frozen a third time)")),
                            ("fresh4", _("fourth fresh set (collected after the model was frozen a fourth time)")),
                            ("fresh5", _("fifth fresh set (collected after the model was frozen a fifth time)")),
                            ("fresh6", _("sixth fresh set (collected after the model was frozen a sixth time)")),
                            ("fresh7", _("seventh fresh set (collected after the model was frozen a seventh time)")),
                            ("fresh8", _("eighth fresh set (collected after the model was frozen an eighth time)")),
                            ("fresh9", _("ninth fresh set (collected after the model was frozen a ninth time)")),
                            ("fresh10", _("tenth fresh set (collected after the model was frozen a tenth time)")),
                            ("fresh11", _("eleventh fresh set (collected after the model was frozen an eleventh time)")),
                            ("fresh12", _("twelfth fresh set (collected after the model was frozen a twelfth time)")),
                            ("fresh13", _("thirteenth fresh set (collected after the model was frozen a thirteenth time)")),
                            ("fresh14", _("fourteenth fresh set (collected after the model was frozen a fourteenth time)")),
                            ("fresh15", _("fifteenth fresh set (collected after the model was frozen a fifteenth time)")),
                            ("fresh16", _("sixteenth fresh set (collected after the model was frozen a sixteenth time)")),
                            ("fresh17", _("seventeenth fresh set (collected after the model was frozen a seventeenth time)")),
                            ("fresh18", _("eighteenth fresh set (collected after the model was frozen an eighteenth time)")),
                            ("fresh19", _("nineteenth fresh set (collected after the model was frozen a nineteenth time)")),
                            ("fresh20", _("twentieth fresh set (collected after the model was frozen a twentieth time)")),
                            ("fresh21", _("twenty-first fresh set (collected after the model was frozen a twenty-first time)")),
                            ("fresh22", _("twenty-second fresh set (collected after the model was frozen a twenty-second time)")),
                            ("fresh23", _("twenty-third fresh set (collected after the model was frozen a twenty-third time)")),
                            ("fresh24", _("twenty-fourth fresh set (collected after the model was frozen a twenty-fourth time)")),
                            ("fresh25", _("twenty-fifth fresh set (collected after the model was frozen a twenty-fifth time)")),
                            ("fresh26", _("twenty-sixth fresh set (collected after the model was frozen a twenty-sixth time)")),
                            ("fresh27", _("twenty-seventh fresh set (collected after the model was frozen a twenty-seventh time)")),
                            ("fresh28", _("twenty-eighth fresh set (collected after the model was frozen a twenty-eighth time)")),
                            ("fresh29", _("twenty-ninth fresh set (collected after the model was frozen a twenty-ninth time)")),
                            ("fresh30", _("thirtieth fresh set (collected after the model was frozen a thirtieth time)")),
                            ("fresh31", _("thirty-first fresh set (collected after the model was frozen a thirty-first time)")),
                            ("fresh32", _("thirty-second fresh set (collected after the model was frozen a thirty-second time)")),
                            ("fresh33", _("thirty-third fresh set (collected after the model was frozen a thirty-third time)")),
                            ("fresh34", _("thirty-fourth fresh set (collected after the model was frozen a thirty-fourth time)")),
                            ("fresh35", _("thirty-fifth fresh set (collected after the model was frozen a thirty-fifth time)")),
                            ("fresh36", _("thirty-sixth fresh set (collected after the model was frozen a thirty-sixth time)")),
                            ("fresh37", _("thirty-seventh fresh set (collected after the model was frozen a thirty-seventh time)")),
                            ("fresh38", _("thirty-eighth fresh set (collected after the model was frozen a thirty-eighth time)")),
                            ("fresh39", _("thirty-ninth fresh set (collected after the model was frozen a thirty-ninth time)")),
                            ("fresh40", _("fortieth fresh set (collected after the model was frozen a fortieth time)")),
                            ("fresh41", _("forty-first fresh set (collected after the model was frozen a forty-first time)")),
                            ("fresh42", _("forty-second fresh set (collected after the model was frozen a forty-second time)")),
                            ("fresh43", _("forty-third fresh set (collected after the model was frozen a forty-third time)")),
                            ("fresh44", _("forty-fourth fresh set (collected after the model was frozen a forty-fourth time)")),
                            ("fresh45", _("forty-fifth fresh set (collected after the model was frozen a forty-fifth time)")),
                            ("fresh46", _("forty-sixth fresh set (collected after the model was frozen a forty-sixth time)")),
                            ("fresh47", _("forty-seventh fresh set (collected after the model was frozen a forty-seventh time)")),
                            ("fresh48", _("forty-eighth fresh set (collected after the model was frozen a forty-eighth time)")),
                            ("fresh49", _("forty-ninth fresh set (collected after the model was frozen a forty-ninth time)")),
                            ("fresh50", _("fiftieth fresh set (collected after the model was frozen a fiftieth time)")),
                            ("fresh51", _("fifty-first fresh set (collected after the model was frozen a fifty-first time)")),
                            ("fresh52", _("fifty-second fresh set (collected after the model was frozen a fifty-second time)")),
                            ("fresh53", _("fifty-third fresh set (collected after the model was frozen a fifty-third time)")),
                           ("fresh54", _("fifty-fourth fresh set (collected after the model was frozen a fifty-fourth time)")),
                           ("fresh55", _("fifty-fifth fresh set (collected after the model was frozen a fifty-fifth time)")),
                           ("fresh56", _("fifty-sixth fresh set (collected after the model was frozen a fifty-sixth time)")),
                           ("fresh57", _("fifty-seventh fresh set (collected after the model was frozen a fifty-seventh time)")),
                           ("fresh58", _("fifty-eighth fresh set (collected after the model was frozen a fifty-eighth time)")),
                           ("fresh59", _("fifty-ninth fresh set (collected after the model was frozen a fifty-ninth time)")),
                           ("fresh60", _("sixtieth fresh set (collected after the model was frozen a sixtieth time)")),
                           ("fresh61", _("sixty-first fresh set (collected after the model was frozen a sixty-first time)")),
                           ("fresh62", _("sixty-second fresh set (collected after the model was frozen a sixty-second time)")),
                           ("fresh63", _("sixty-third fresh set (collected after the model was frozen a sixty-third time)")),
                           ("fresh64", _("sixty-fourth fresh set (collected after the model was frozen a sixty-fourth time)")),
                           ("fresh65", _("sixty-fifth fresh set (collected after the model was frozen a sixty-fifth time)")),
                           ("fresh66", _("sixty-sixth fresh set (collected after the model was frozen a sixty-sixth time)")),
                           ("fresh67", _("sixty-seventh fresh set (collected after the model was frozen a sixty-seventh time)")),
                           ("fresh68", _("sixty-eighth fresh set (collected after the model was frozen a sixty-eighth time)")),
                           ("fresh69", _("sixty-ninth fresh set (collected after the model was frozen a sixty-ninth time)")),
                           ("fresh70", _("seventieth fresh set (collected after the model was frozen a seventieth time)")),
                           ("fresh71", _("seventy-first fresh set (collected after the model was frozen a seventy-first time)")),
                           ("fresh72", _("seventy-second fresh set (collected after the model was frozen a seventy-second time)")),
                           ("fresh73", _("seventy-third fresh set (collected after the model was frozen a seventy-third time)")),
                           ("fresh74", _("seventy-fourth fresh set (collected after the model was frozen a seventy-fourth time)")),
                           ("fresh75", _("seventy-fifth fresh set (collected after the model was frozen a seventy-fifth time)")),
                           ("fresh76", _("seventy-sixth fresh set (collected after the model was frozen a seventy-sixth time)")),
                           ("fresh77", _("seventy-seventh fresh set (collected after the model was frozen a seventy-seventh time)")),
                           ("fresh78", _("seventy-eighth fresh set (collected after the model was frozen a seventy-eighth time)")),
                           ("fresh79", _("seventy-ninth fresh set (collected after the model was frozen a seventy-ninth time)")),
                           ("fresh80", _("eightieth fresh set (collected after the model was frozen an eightieth time)")),
                           ("fresh81", _("eighty-first fresh set (collected after the model was frozen an eighty-first time)")),
                           ("fresh82", _("eighty-second fresh set (collected after the model was frozen an eighty-second time)")),
                           ("fresh83", _("eighty-third fresh set (collected after the model was frozen an eighty-third time)")),
                           ("fresh84", _("eighty-fourth fresh set (collected after the model was frozen an eighty-fourth time)")),
                           ("fresh85", _("eighty-fifth fresh set (collected after the model was frozen an eighty-fifth time)")),
                           ("fresh86", _("eighty-sixth fresh set (collected after the model was frozen an eighty-sixth time)")),
                           ("fresh87", _("eighty-seventh fresh set (collected after the model was frozen an eighty-seventh time)")),
                           ("fresh88", _("eighty-eighth fresh set (collected after the model was frozen an eighty-eighth time)")),
                           ("fresh89", _("eighty-ninth fresh set (collected after the model was frozen an eighty-ninth time)")),
                           ("fresh90", _("ninetieth fresh set (collected after the model was frozen a ninetieth time)")),
                           ("fresh91", _("ninety-first fresh set (collected after the model was frozen a ninety-first time)")),
                           ("fresh92", _("ninety-second fresh set (collected after the model was frozen a ninety-second time)")),
                           ("fresh93", _("ninety-third fresh set (collected after the model was frozen a ninety-third time)")),
                           ("fresh94", _("ninety-fourth fresh set (collected after the model was frozen a ninety-fourth time)")),
                           ("fresh95", _("ninety-fifth fresh set (collected after the model was frozen a ninety-fifth time)")),
                           ("fresh96", _("ninety-sixth fresh set (collected after the model was frozen a ninety-sixth time)")),
                           ("fresh97", _("ninety-seventh fresh set (collected after the model was frozen a ninety-seventh time)")),
                           ("fresh98", _("ninety-eighth fresh set (collected after the model was frozen a ninety-eighth time)")),
                           ("fresh99", _("ninety-ninth fresh set (collected after the model was frozen a ninety-ninth time)")),
                           ("fresh100", _("hundredth fresh set (collected after the model was frozen a hundredth time)")),
                           ("fresh101", _("hundred-and-first fresh set (collected after the model was frozen a hundred-and-first time)")),
                           ("fresh102", _("hundred-and-second fresh set (collected after the model was frozen a hundred-and-second time)")),
                           ("fresh103", _("hundred-and-third fresh set (collected after the model was frozen a hundred-and-third time)")),
                           ("fresh104", _("hundred-and-fourth fresh set (collected after the model was frozen a hundred-and-fourth time)")),
                           ("fresh105", _("hundred-and-fifth fresh set (collected after the model was frozen a hundred-and-fifth time)")),
                           ("fresh106", _("hundred-and-sixth fresh set (collected after the model was frozen a hundred-and-sixth time)")),
                           ("fresh107", _("hundred-and-seventh fresh set (collected after the model was frozen a hundred-and-seventh time)")),
                           ("fresh108", _("hundred-and-eighth fresh set (collected after the model was frozen a hundred-and-eighth time)")),
                           ("fresh109", _("hundred-and-ninth fresh set (collected after the model was frozen a hundred-and-ninth time)")),
                           ("fresh110", _("hundred-and-tenth fresh set (collected after the model was frozen a hundred-and-tenth time)")),
                           ("fresh111", _("hundred-and-eleventh fresh set (collected after the model was frozen a hundred-and-eleventh time)")),
                           ("fresh112", _("hundred-and-twelfth fresh set (collected after the model was frozen a hundred-and-twelfth time)")),
                           ("fresh113", _("hundred-and-thirteenth fresh set (collected after the model was frozen a hundred-and-thirteenth time)")),
                           ("fresh114", _("hundred-and-fourteenth fresh set (collected after the model was frozen a hundred-and-fourteenth time)")),
                           ("fresh115", _("hundred-and-fifteenth fresh set (collected after the model was frozen a hundred-and-fifteenth time)")),
                           ("fresh116", _("hundred-and-sixteenth fresh set (collected after the model was frozen a hundred-and-sixteenth time)")),
                           ("fresh117", _("hundred-and-seventeenth fresh set (collected after the model was frozen a hundred-and-seventeenth time)")),
                           ("fresh118", _("hundred-and-eighteenth fresh set (collected after the model was frozen a hundred-and-eighteenth time)")),
                           ("fresh119", _("hundred-and-nineteenth fresh set (collected after the model was frozen a hundred-and-nineteenth time)")),
                           ("fresh120", _("hundred-and-twentieth fresh set (collected after the model was frozen a hundred-and-twentieth time)")),
                           ("fresh121", _("hundred-and-twenty-first fresh set (collected after the model was frozen a hundred-and-twenty-first time)")),
                           ("fresh122", _("hundred-and-twenty-second fresh set (collected after the model was frozen a hundred-and-twenty-second time)")),
                           ("fresh123", _("hundred-and-twenty-third fresh set (collected after the model was frozen a hundred-and-twenty-third time)")),
                           ("fresh124", _("hundred-and-twenty-fourth fresh set (collected after the model was frozen a hundred-and-twenty-fourth time)"))):
        s = summary[set_name]
        lines += ["", f"{title}: {fmt(s['all'])}"]
        for kind, sub in s["by_kind"].items():
            lines.append(f"  kind {kind:<14} {fmt(sub)}")
        for cls, values in s["by_class"].items():
            if cls == "kind":
                continue
            for value, sub in values.items():
                lines.append(f"  {cls} {value:<16} {fmt(sub)}")
    return lines


SPEED_CLASSES = ("kind", "vendor", "gpu", "pp", "moe", "fp8", "engine")


def speed_class_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per (set, class, value) of :func:`summarize_speed`'s output, for a table: runs, answered, shares
    within 20 % and 50 %, median error, geometric-mean ratio and ``misses`` (runs more than 50 % off, plus the
    runs the model does not answer)."""
    out: list[dict[str, Any]] = []
    for set_name in SET_FILES:
        part = summary.get(set_name) or {}
        for cls in SPEED_CLASSES:
            for value, s in sorted((part.get("by_class") or {}).get(cls, {}).items()):
                misses = s["rows"] - round(s["within_50_share"] * s["answered"])
                out.append({"set": set_name, "class": cls, "value": value, "misses": misses, **s})
    return out


def load_speed_accuracy() -> list[dict[str, Any]]:
    """Predict every bundled measured run and return :func:`speed_class_rows` (what "How accurate is this?" shows
    for speed)."""
    return speed_class_rows(summarize_speed(evaluate_speed()))


def speed_set_class_rows(set_name: str, should_stop: Callable[[], bool] | None = None) -> list[dict[str, Any]] | None:
    """:func:`speed_class_rows` of one bundled set, the same rows :func:`load_speed_accuracy` gives for it (None:
    ``should_stop`` answered true before the set was finished)."""
    results = evaluate_speed_set(set_name, should_stop=should_stop)
    return None if results is None else speed_class_rows(summarize_speed(results))
