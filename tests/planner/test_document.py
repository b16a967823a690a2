"""The typed, versioned plan document (gpudesk.planner.document): what the planner evaluated, read the same way by
every view; its JSON matches the schema in docs/plan-document.md; older saved shapes migrate by version."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.planner import load_profile, plan, plan_to_dict
from gpudesk.planner.document import (
    PLAN_DOCUMENT_VERSION,
    PlanDocument,
    PlanDocumentError,
    PlanOption,
    migrate,
    top_option,
)

ROOT = Path(__file__).resolve().parents[2]
CASES = {
    "lora-14b": ROOT / "tests/fixtures/plan/buyer/lora-qwen14b-workstation.toml",
    "serve-70b": ROOT / "tests/fixtures/plan/buyer/serve-llama31-70b-20qps.toml",
    "article-13b": ROOT / "resources/examples/article-13b-finetune.toml",
}


@cache
def _catalog() -> Any:
    return open_catalog()


@cache
def _planned(case: str) -> Any:
    return plan(load_profile(CASES[case], _catalog()), _catalog())


def _schema() -> dict[str, Any]:
    text = (ROOT / "docs/plan-document.md").read_text(encoding="utf-8")
    block = re.search(r"```json\n(.*?)\n```", text, re.S)
    assert block, "docs/plan-document.md holds the JSON schema"
    return json.loads(block.group(1))


_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def _problems(value: Any, schema: dict[str, Any], root: dict[str, Any], where: str = "$") -> list[str]:
    """The places where ``value`` breaks ``schema`` (the subset of JSON Schema the document uses: type, const,
    enum, required, properties, items, $ref)."""
    if "$ref" in schema:
        schema = root["$defs"][schema["$ref"].rsplit("/", 1)[1]]
    out: list[str] = []
    if "const" in schema and value != schema["const"]:
        return [f"{where}: {value!r} is not {schema['const']!r}"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{where}: {value!r} not in {schema['enum']!r}"]
    types = schema.get("type")
    if types is not None:
        allowed = [types] if isinstance(types, str) else types

        def is_a(kind: str) -> bool:
            if kind == "integer":
                return isinstance(value, int) and not isinstance(value, bool)
            if kind == "number":
                return isinstance(value, (int, float)) and not isinstance(value, bool)
            return isinstance(value, _TYPES[kind])

        if not any(is_a(k) for k in allowed):
            return [f"{where}: {type(value).__name__} is not {allowed}"]
    if isinstance(value, dict):
        out += [f"{where}: missing {key}" for key in schema.get("required", []) if key not in value]
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                out += _problems(value[key], sub, root, f"{where}.{key}")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            out += _problems(item, schema["items"], root, f"{where}[{i}]")
    return out


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_json_of_each_buyer_case_matches_the_documented_schema(case: str) -> None:
    data = json.loads(PlanDocument.from_plan(_planned(case)).to_json())
    schema = _schema()
    assert _problems(data, schema, schema) == []
    assert data["format"] == "gpudesk-plan" and data["version"] == PLAN_DOCUMENT_VERSION
    assert data == plan_to_dict(_planned(case))  # `plan --format json` writes this same document


def test_the_schema_check_fails_on_a_broken_document() -> None:
    schema = _schema()
    data = json.loads(PlanDocument.from_plan(_planned("article-13b")).to_json())
    data["candidates"][0]["per_gpu_memory_bytes"] = "35 GiB"
    del data["prices_used"]
    problems = _problems(data, schema, schema)
    assert "$: missing prices_used" in problems
    assert any(p.startswith("$.candidates[0].per_gpu_memory_bytes") for p in problems)


@pytest.mark.parametrize("case", sorted(CASES))
def test_json_round_trip_keeps_every_field(case: str) -> None:
    doc = PlanDocument.from_plan(_planned(case))
    again = PlanDocument.from_json(doc.to_json())
    assert again.to_dict() == doc.to_dict()
    assert again.candidates == doc.candidates and again.rejected == doc.rejected
    assert again.requirement == doc.requirement


def test_training_options_carry_the_settings_the_search_chose() -> None:
    result = _planned("lora-14b")
    doc = PlanDocument.from_plan(result)
    top, planned = doc.candidates[0], result.candidates[0]
    assert (top.micro_batch_size, top.gradient_accumulation) == (planned.micro_batch_size, planned.gradient_accumulation)
    assert top.micro_batch_size is not None and top.gradient_accumulation is not None
    # the global batch of 16 is kept: micro-batch x accumulation x data-parallel GPUs
    assert top.micro_batch_size * top.gradient_accumulation * top.count == 16
    assert top.per_gpu_memory_bytes == planned.memory.total_bytes
    assert top.sharding == planned.sharding and top.recompute == planned.recompute
    assert doc.requirement is not None and doc.requirement.model.micro_batch_size == 4


def test_serving_options_carry_replicas_and_engine_settings() -> None:
    doc = PlanDocument.from_plan(_planned("serve-70b"))
    assert doc.serving and not doc.mixed
    for option in doc.candidates:
        assert option.serving and option.replicas is not None and option.tensor_parallel is not None
        assert option.replicas * option.tensor_parallel == option.count
        assert option.concurrent_sequences is not None and option.concurrent_sequences >= 1
    assert doc.candidates[0].engine == "vllm"  # a transformer LLM service: vLLM's scheduler and memory pool


def test_prices_used_are_dated_and_sourced() -> None:
    doc = PlanDocument.from_plan(_planned("article-13b"))
    records = {p.gpu_id: p for p in doc.prices_used}
    assert len(records) == len({c.gpu_id for c in doc.candidates})
    priced = [p for p in records.values() if p.purchase.known]
    assert priced, "the article's GPUs have catalog prices"
    for p in priced:
        assert p.purchase.origin == "catalog" and p.purchase.date and p.purchase.source
    for option in doc.candidates:  # the record is the price every option of that GPU used
        assert option.price == records[option.gpu_id].purchase
    rented = [p for p in records.values() if p.rent_usd_per_gpu_hour is not None]
    assert rented and all(p.rent_date and p.rent_source_url and p.rent_kind for p in rented)


def test_assumptions_name_the_tco_settings() -> None:
    doc = PlanDocument.from_plan(_planned("article-13b"))
    assert doc.assumptions[-1].text.startswith("3-year TCO at $0.12/kWh, PUE 1.5")
    assert doc.assumptions[-1].source.startswith("requirement: [tco]")


def _as_version_1(doc: PlanDocument) -> dict[str, Any]:
    """The shape gpudesk wrote before the document was versioned 2 (plan_to_dict of version 1)."""
    data = doc.to_dict()
    del data["format"], data["prices_used"], data["assumptions"]
    data["version"] = 1
    for c in data["candidates"]:
        for key in ("replicas", "concurrent_sequences", "engine", "price_known"):
            del c[key]
        c["rationale"] = [[r["decision"], r["source"]] for r in c["rationale"]]  # pairs, as the first saves had
    for r in data["rejected"]:
        del r["over_gpu_limit"]
    return data


def test_a_version_1_plan_migrates_to_the_current_document() -> None:
    doc = PlanDocument.from_plan(_planned("article-13b"))
    old = _as_version_1(doc)
    read = PlanDocument.from_dict(old)
    assert read.version == PLAN_DOCUMENT_VERSION
    assert [c.per_gpu_memory_bytes for c in read.candidates] == [c.per_gpu_memory_bytes for c in doc.candidates]
    # price_known comes back from the TCO's GPU line; rationale pairs become (text, source)
    assert [c.price_known for c in read.candidates] == [c.price_known for c in doc.candidates]
    assert read.candidates[0].rationale == doc.candidates[0].rationale
    assert read.candidates[0].replicas is None  # not recorded then: unknown, not invented
    assert read.prices_used == doc.prices_used


def test_an_unversioned_plan_reads_as_version_1() -> None:
    old = _as_version_1(PlanDocument.from_plan(_planned("serve-70b")))
    del old["version"]
    assert migrate(old)["version"] == PLAN_DOCUMENT_VERSION
    assert PlanDocument.from_dict(old).candidates[0].qps_capacity is not None


@pytest.mark.parametrize(("data", "words"), [
    ({"format": "gpudesk-plan", "version": 99, "candidates": []}, "newer gpudesk"),
    ({"format": "gpudesk-configuration-sheet", "version": 1}, "not a gpudesk plan"),
    ({"version": "two"}, "not a whole number"),
    ([1, 2], "JSON object"),
])
def test_unreadable_documents_are_refused_with_a_reason(data: Any, words: str) -> None:
    with pytest.raises(PlanDocumentError, match=words):
        PlanDocument.from_dict(data)


def test_wrong_typed_values_in_a_saved_plan_read_as_unknown() -> None:
    option = PlanOption.from_dict({"gpu_id": "l20", "count": "4", "per_gpu_memory_bytes": float("nan"),
                                   "fits": "yes", "rationale": "plain text", "tco_breakdown_usd": []})
    assert (option.count, option.per_gpu_memory_bytes, option.fits) == (0, None, None)
    assert option.rationale == [] and option.tco_breakdown_usd == {}


def test_a_saved_requirement_that_no_longer_reads_keeps_the_plan() -> None:
    data = PlanDocument.from_plan(_planned("article-13b")).to_dict()
    data["requirement"]["model"]["retired_key"] = 1
    doc = PlanDocument.from_dict(data)
    assert doc.requirement is None and "retired_key" in (doc.requirement_problem or "")
    assert doc.candidates and doc.name == "Article case: 13B full fine-tune in 7 days"


def test_top_option_reads_only_the_first_option() -> None:
    data = PlanDocument.from_plan(_planned("lora-14b")).to_dict()
    top = top_option(data)
    assert top is not None and top == PlanDocument.from_dict(data).top
    assert top_option({"version": 99}) is None and top_option({}) is None


MIXED = ROOT / "tests/fixtures/plan/buyer/mixed-lora-llama3-8b-5qps.toml"


def test_a_mixed_workload_carries_both_sides_in_one_document() -> None:
    from gpudesk.planner.mixed import is_mixed, plan_document
    from gpudesk.planner.sheet import build_sheet
    from gpudesk.planner.sheet_markdown import sheet_to_markdown

    req = load_profile(MIXED, _catalog())
    assert is_mixed(req)
    doc = plan_document(req, _catalog())
    assert doc.mixed and doc.top is not None and doc.top.time_to_result_s is not None  # the training side
    side = doc.serving_side
    assert side is not None and side.serving and side.target_qps == 5
    assert side.top is not None and side.top.qps_capacity is not None and side.top.qps_capacity >= 5
    assert not any("is not sized by this plan" in w for w in doc.warnings)  # it is sized now
    again = PlanDocument.from_json(doc.to_json())
    assert again.serving_side is not None and again.serving_side.to_dict() == side.to_dict()
    schema = _schema()
    assert _problems(json.loads(doc.to_json()), schema, schema) == []
    text = sheet_to_markdown(build_sheet(doc))
    assert "## Serving side (the same model at 5 requests/s)" in text
    assert f"| Sustained QPS | {side.top.qps_capacity:.1f} req/s |" in text


def test_a_training_only_or_serving_only_plan_has_no_serving_side() -> None:
    from gpudesk.planner.mixed import plan_document

    for case in ("article-13b", "serve-70b"):
        doc = plan_document(load_profile(CASES[case], _catalog()), _catalog())
        assert doc.serving_side is None and not doc.mixed
