"""Every measured speed run in tests/fixtures/speed/*.jsonl follows the row format of tests/fixtures/speed/README.md.

The accuracy report reads these rows as they are, so a row with a misspelt metric, a unit that does not match it, a
GPU or model that is not in the catalog, or a serving row with two load settings would silently drop out of (or
distort) the score. This checks the schema only; it never computes a prediction.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import pytest
from conftest import FIXTURES, REPO

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_stats import LATENCY_METRICS, STATISTICS

SPEED = FIXTURES / "speed"
README = SPEED / "README.md"
# Where a model that is not in the catalog may be given as a Hugging Face config.json (README "model" field, plus
# tests/fixtures/speed/configs/ for the configs written with the measured-run sets).
CONFIG_DIRS = ("tests/fixtures/plan/", "tests/fixtures/sizing/configs/", "tests/fixtures/speed/configs/")

COMMON = ("id", "kind", "source_url", "source_title", "measured_date", "description", "model", "gpu", "gpus",
          "gpus_per_node", "interconnect", "framework", "measured", "quality", "notes")
TRAIN_FIELDS = ("precision", "seq_len", "global_batch", "micro_batch", "tp", "pp", "vp", "cp", "ep", "etp",
                "sharding", "recompute", "compile")
SERVE_FIELDS = ("engine", "tp", "pp", "dp", "ep", "weight_format", "kv_dtype", "input_tokens", "output_tokens")
LOAD_FIELDS = ("concurrency", "request_rate", "batch")

# metric -> its unit (the README names the metrics; the unit follows from each metric's name). The README does not
# spell the unit strings, so common spellings of the same unit are accepted (UNIT_SPELLINGS); a unit of another
# dimension or scale (ms for a *_s metric, a percentage for mfu) is not.
TRAIN_METRICS = {"tokens_per_s_per_gpu": "tokens/s/GPU", "step_time_s": "s", "mfu": "fraction",
                 "tflops_per_gpu": "TFLOP/s/GPU", "samples_per_s": "samples/s", "time_to_train_s": "s"}
SERVE_METRICS = {"output_tokens_per_s": "tokens/s", "output_tokens_per_s_per_gpu": "tokens/s/GPU",
                 "requests_per_s": "requests/s", "ttft_s": "s", "tpot_s": "s", "itl_s": "s", "e2e_latency_s": "s",
                 "total_tokens_per_s": "tokens/s"}
UNIT_SPELLINGS = {
    "s": {"s", "sec", "second", "seconds"},
    "tokens/s": {"tokens/s", "tok/s", "tokens/sec", "tokens/second"},
    "tokens/s/GPU": {"tokens/s/gpu", "tok/s/gpu", "tokens/sec/gpu", "tokens/s/device"},
    "samples/s": {"samples/s", "samples/sec", "sequences/s"},
    "requests/s": {"requests/s", "req/s", "requests/sec"},
    "TFLOP/s/GPU": {"tflop/s/gpu", "tflops/gpu", "tflop/s/device"},
    "fraction": {"fraction", "ratio"},
}


def _unit_matches(unit: Any, expected: str) -> bool:
    return isinstance(unit, str) and unit.replace(" ", "").lower() in UNIT_SPELLINGS[expected]
PRECISIONS = {"bf16", "fp8", "fp16"}
SHARDINGS = {"ddp", "zero1", "zero2", "zero3", "fsdp", "distributed-optimizer"}
RECOMPUTES = {"none", "selective", "full"}
KV_DTYPES = {"bf16", "fp16", "fp8"}

ID_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
DATE_RE = re.compile(r"^\d{4}-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?$")


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _positive_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


def _model_ok(model: Any, model_ids: set[str]) -> str | None:
    if not isinstance(model, str) or not model:
        return "model must be a catalog model id or a config.json path"
    if model in model_ids:
        return None
    if not model.startswith(CONFIG_DIRS) or not model.endswith(".json"):
        return f"model {model!r} is neither a catalog model id nor a config.json under {', '.join(CONFIG_DIRS)}"
    path = REPO / model
    if not path.is_file():
        return f"model config {model} does not exist"
    cfg = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(cfg, dict) or not any(k in cfg for k in ("num_hidden_layers", "n_layers", "n_layer", "num_layers")):
        return f"model config {model} has no layer count"
    return None


def row_problems(row: Any, gpu_ids: set[str], model_ids: set[str]) -> list[str]:
    """What is wrong with one row against the README format (empty when nothing is)."""
    if not isinstance(row, dict):
        return ["a row must be a JSON object"]
    problems = [f"missing field {name!r}" for name in COMMON if name not in row]
    kind = row.get("kind")
    if kind not in ("train", "serve"):
        return [*problems, f"kind must be 'train' or 'serve', not {kind!r}"]
    if not ID_RE.match(str(row.get("id", ""))):
        problems.append(f"id {row.get('id')!r} is not kebab-case")
    if not str(row.get("source_url", "")).startswith("https://"):
        problems.append("source_url must be an https URL")
    if not DATE_RE.match(str(row.get("measured_date", ""))):
        problems.append(f"measured_date {row.get('measured_date')!r} is not YYYY-MM or YYYY-MM-DD")
    if "gpu" in row and row["gpu"] not in gpu_ids:
        problems.append(f"gpu {row['gpu']!r} is not a catalog GPU id")
    if "model" in row and (why := _model_ok(row["model"], model_ids)):
        problems.append(why)
    for name in ("gpus", "gpus_per_node"):
        if name in row and not _positive_int(row[name]):
            problems.append(f"{name} must be a positive integer")
    # gpus_per_node may exceed gpus: it is the NVLink domain the job's GPUs sit in (README), e.g. 4 GPUs of an 8-GPU
    # board or 16 GPUs of an NVL72 rack.
    quality = row.get("quality")
    if quality not in ("good", "partial"):
        problems.append(f"quality must be 'good' or 'partial', not {quality!r}")
    if quality == "partial" and not str(row.get("notes", "")).strip():
        problems.append("a partial row must say in notes what was inferred")

    metrics = TRAIN_METRICS if kind == "train" else SERVE_METRICS
    measured = row.get("measured")
    # README: tflops_per_gpu and mfu rows also carry the publication's FLOP accounting (flops_per_token and its
    # flops_definition); mfu rows the peak it divides by (peak_tflops). Nothing else.
    accounting = {"flops_per_token", "flops_definition"} | (
        {"peak_tflops"} if isinstance(measured, dict) and measured.get("metric") == "mfu" else set())
    if isinstance(measured, dict) and measured.get("metric") in ("tflops_per_gpu", "mfu"):
        extra = set(measured) - {"metric", "value", "unit"}
        if extra - accounting or not {"flops_per_token", "flops_definition"} <= extra:
            problems.append("a tflops_per_gpu or mfu row's measured must add flops_per_token and flops_definition "
                            "(mfu also peak_tflops), nothing else")
        if "flops_per_token" in measured and not _positive_number(measured["flops_per_token"]):
            problems.append("measured.flops_per_token must be a positive number")
        measured = {k: v for k, v in measured.items() if k in ("metric", "value", "unit")}
    # README: a serving latency may name the statistic the source reports (mean when absent).
    if isinstance(measured, dict) and kind == "serve" and "statistic" in measured:
        if measured.get("metric") not in LATENCY_METRICS or measured["statistic"] not in STATISTICS:
            problems.append(f"measured.statistic must be one of {', '.join(STATISTICS)} on a latency metric")
        measured = {k: v for k, v in measured.items() if k != "statistic"}
    if not isinstance(measured, dict) or set(measured) != {"metric", "value", "unit"}:
        problems.append("measured must be {metric, value, unit}")
    else:
        metric = measured["metric"]
        if metric not in metrics:
            problems.append(f"metric {metric!r} is not a {kind} metric ({', '.join(metrics)})")
        elif not _unit_matches(measured["unit"], metrics[metric]):
            problems.append(f"unit {measured['unit']!r} does not match {metric} (expected {metrics[metric]!r})")
        if not _positive_number(measured["value"]):
            problems.append("measured value must be a positive number")
        if metric == "mfu" and _positive_number(measured["value"]) and measured["value"] > 1:
            problems.append("mfu is a fraction (0-1)")

    fields = TRAIN_FIELDS if kind == "train" else SERVE_FIELDS
    problems += [f"missing {kind} field {name!r}" for name in fields if name not in row]
    if kind == "train":
        problems += _train_problems(row)
    else:
        problems += _serve_problems(row)
    return problems


def _train_problems(row: dict[str, Any]) -> list[str]:
    problems = []
    if "precision" in row and row["precision"] not in PRECISIONS:
        problems.append(f"precision {row['precision']!r} is not one of {sorted(PRECISIONS)}")
    if "sharding" in row and row["sharding"] not in SHARDINGS:
        problems.append(f"sharding {row['sharding']!r} is not one of {sorted(SHARDINGS)}")
    if "recompute" in row and row["recompute"] not in RECOMPUTES:
        problems.append(f"recompute {row['recompute']!r} is not one of {sorted(RECOMPUTES)}")
    if "compile" in row and not isinstance(row["compile"], bool):
        problems.append("compile must be true or false")
    for name in ("seq_len", "global_batch", "micro_batch", "tp", "pp", "vp", "cp", "ep", "etp"):
        if name in row and not _positive_int(row[name]):
            problems.append(f"{name} must be a positive integer")
    sizes = [row.get(n) for n in ("tp", "pp", "cp")]
    if all(_positive_int(s) for s in sizes) and _positive_int(row.get("gpus")):
        model_parallel = math.prod(int(s) for s in sizes if s is not None)
        if row["gpus"] % model_parallel:
            problems.append(f"gpus {row['gpus']} is not a multiple of tp x pp x cp = {model_parallel}")
    if row.get("measured", {}).get("metric") == "time_to_train_s" and not _positive_number(row.get("tokens")):
        problems.append("a time_to_train_s row needs tokens (total training tokens)")
    return problems


def _serve_problems(row: dict[str, Any]) -> list[str]:
    problems = []
    given = [name for name in LOAD_FIELDS if row.get(name) is not None]
    if len(given) != 1:
        problems.append(f"exactly one of {', '.join(LOAD_FIELDS)} must be given, not {given or 'none'}")
    for name in ("tp", "pp", "dp", "ep", "input_tokens", "output_tokens", "concurrency", "batch", "num_prompts"):
        if row.get(name) is not None and not _positive_int(row[name]):
            problems.append(f"{name} must be a positive integer")
    if row.get("request_rate") is not None and not (_positive_number(row["request_rate"]) or row["request_rate"] == "inf"):
        problems.append("request_rate must be a positive number (requests/s)")
    if "kv_dtype" in row and row["kv_dtype"] not in KV_DTYPES:
        problems.append(f"kv_dtype {row['kv_dtype']!r} is not one of {sorted(KV_DTYPES)}")
    if not str(row.get("engine", "")).strip() or not str(row.get("weight_format", "")).strip():
        problems.append("engine and weight_format must be named")
    gpu_mem = row.get("gpu_memory_utilization")
    if gpu_mem is not None and not (isinstance(gpu_mem, (int, float)) and 0 < gpu_mem <= 1):
        problems.append("gpu_memory_utilization is a fraction (0-1]")
    # With data-parallel attention, dp counts the attention groups inside one tp x pp replica, not replicas (README).
    # Replicas of such a row are every GPU of the run: gpus must then be a whole number of tp x pp replicas.
    dp_attention = row.get("enable_dp_attention") or (row.get("attention_dp") or 1) > 1
    sizes = [row.get(n) for n in (("tp", "pp") if dp_attention else ("tp", "pp", "dp"))]
    if all(_positive_int(s) for s in sizes) and _positive_int(row.get("gpus")):
        placed = math.prod(int(s) for s in sizes if s is not None)
        if (row["gpus"] % placed if dp_attention else placed != row["gpus"]):
            problems.append(f"tp x pp x dp = {placed} but gpus = {row['gpus']}")
    return problems


def _rows() -> list[tuple[str, int, Any]]:
    found = []
    for path in sorted(SPEED.glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if line.strip():
                found.append((path.name, number, json.loads(line)))
    return found


ROWS = _rows()


@pytest.fixture(scope="module")
def catalog_ids() -> tuple[set[str], set[str]]:
    catalog = open_catalog()
    try:
        return {g.id for g in catalog.gpus()}, {m.id for m in catalog.models()}
    finally:
        catalog.close()


def test_the_checked_names_are_the_readmes() -> None:
    text = README.read_text(encoding="utf-8")
    for name in (*COMMON, *TRAIN_FIELDS, *SERVE_FIELDS, *LOAD_FIELDS, *TRAIN_METRICS, *SERVE_METRICS):
        assert f"`{name}`" in text, f"{name} is checked here but not named in the README"


def test_the_later_set_exists() -> None:
    assert (SPEED / "later_runs.jsonl").is_file()
    assert any(name == "later_runs.jsonl" for name, _, _ in ROWS)


@pytest.mark.parametrize(("name", "line", "row"), ROWS, ids=[f"{n}:{i}" for n, i, _ in ROWS])
def test_row_follows_the_format(name: str, line: int, row: Any, catalog_ids: tuple[set[str], set[str]]) -> None:
    assert row_problems(row, *catalog_ids) == []


def test_ids_are_unique_across_files() -> None:
    seen: dict[str, str] = {}
    duplicates = []
    for name, line, row in ROWS:
        key = row.get("id") if isinstance(row, dict) else None
        if key in seen:
            duplicates.append(f"{key} ({seen[key]} and {name}:{line})")
        seen[str(key)] = f"{name}:{line}"
    assert duplicates == []


def _good_serve_row() -> dict[str, Any]:
    return {"id": "x-serve", "kind": "serve", "source_url": "https://example.org/run", "source_title": "t",
            "measured_date": "2025-06", "description": "d", "model": "llama-3.1-8b", "gpu": "h100-sxm5", "gpus": 1,
            "gpus_per_node": 1, "interconnect": "pcie", "framework": "vllm", "engine": "vllm", "tp": 1, "pp": 1,
            "dp": 1, "ep": 1, "weight_format": "bf16", "kv_dtype": "bf16", "input_tokens": 1000, "output_tokens": 100,
            "concurrency": 8, "measured": {"metric": "tpot_s", "value": 0.02, "unit": "s"}, "quality": "good",
            "notes": ""}


def test_the_check_catches_bad_rows(catalog_ids: tuple[set[str], set[str]]) -> None:
    gpu_ids, model_ids = catalog_ids
    good = _good_serve_row()
    assert row_problems(good, gpu_ids, model_ids) == []
    bad_rows = {
        "two load settings": {**good, "batch": 64},
        "no load setting": {k: v for k, v in good.items() if k != "concurrency"},
        "unknown metric": {**good, "measured": {"metric": "tokens_per_s", "value": 5.0, "unit": "tokens/s"}},
        "unit mismatch": {**good, "measured": {"metric": "ttft_s", "value": 120, "unit": "ms"}},
        "train metric on a serve row": {**good, "measured": {"metric": "mfu", "value": 0.4, "unit": "fraction"}},
        "unknown gpu": {**good, "gpu": "h100"},
        "unknown model": {**good, "model": "llama-3-8b-instruct"},
        "missing config file": {**good, "model": "tests/fixtures/speed/configs/nope.config.json"},
        "partial without notes": {**good, "quality": "partial"},
        "bad date": {**good, "measured_date": "June 2025"},
        "missing engine field": {k: v for k, v in good.items() if k != "kv_dtype"},
        "gpus not tp x dp": {**good, "tp": 2},
        "not kebab": {**good, "id": "X_Serve"},
    }
    for why, row in bad_rows.items():
        assert row_problems(row, gpu_ids, model_ids), why
    assert row_problems({**good, "measured": {"metric": "ttft_s", "value": 0.1, "unit": "sec"}}, gpu_ids, model_ids) == []
    assert row_problems({**good, "measured": {"metric": "requests_per_s", "value": 2.0, "unit": "req/s"}},
                        gpu_ids, model_ids) == []
    train = {**{k: v for k, v in good.items() if k not in SERVE_FIELDS and k not in LOAD_FIELDS},
             "kind": "train", "precision": "bf16", "seq_len": 4096, "global_batch": 8, "micro_batch": 1, "tp": 1,
             "pp": 1, "vp": 1, "cp": 1, "ep": 1, "etp": 1, "sharding": "fsdp", "recompute": "none", "compile": False,
             "measured": {"metric": "step_time_s", "value": 1.5, "unit": "s"}}
    assert row_problems(train, gpu_ids, model_ids) == []
    assert row_problems({**train, "precision": "fp4"}, gpu_ids, model_ids)
    assert row_problems({**train, "measured": {"metric": "time_to_train_s", "value": 60.0, "unit": "s"}},
                        gpu_ids, model_ids)
    assert row_problems({**train, "tp": 3}, gpu_ids, model_ids)  # 1 GPU is not a multiple of tp 3
    assert row_problems({**train, "compile": "yes"}, gpu_ids, model_ids)
    # TFLOPS and MFU rows carry the publication's FLOP accounting (README), and nothing else.
    tflops = {"metric": "tflops_per_gpu", "value": 150.0, "unit": "TFLOP/s/GPU", "flops_per_token": 7.2e10,
              "flops_definition": "6N + 12 l h s"}
    assert row_problems({**train, "measured": tflops}, gpu_ids, model_ids) == []
    assert row_problems({**train, "measured": {k: v for k, v in tflops.items() if k != "flops_per_token"}},
                        gpu_ids, model_ids)
    assert row_problems({**train, "measured": {**tflops, "peak_tflops": 312}}, gpu_ids, model_ids)  # mfu rows only
    assert row_problems({**train, "measured": {**tflops, "flops_per_token": -1}}, gpu_ids, model_ids)
    mfu = {**tflops, "metric": "mfu", "value": 0.5, "unit": "fraction", "peak_tflops": 312}
    assert row_problems({**train, "measured": mfu}, gpu_ids, model_ids) == []
    assert row_problems({**train, "measured": {**train["measured"], "flops_per_token": 7e10}}, gpu_ids, model_ids)


def test_config_dirs_exist() -> None:
    for folder in CONFIG_DIRS:
        assert (REPO / folder).is_dir(), folder
