"""llama.cpp single-sequence decode (gpudesk.sizing.serve_llamacpp) on the published llama-bench tg128 rows."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.serve_llamacpp import single_stream
from gpudesk.sizing.speed_serve import serve_speed
from gpudesk.sizing.speed_serve_cases import _gpu, _spec, load_of_case, predict_serve_case

ROWS = Path(__file__).resolve().parents[1] / "fixtures" / "speed" / "fresh112_serve_runs.jsonl"


def _rows() -> dict[str, dict]:
    out = {}
    for line in ROWS.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row.get("engine") == "llamacpp":
            out[row["id"]] = row
    return out


def _row(fragment: str) -> dict:
    found = [row for key, row in _rows().items() if fragment in key]
    assert len(found) == 1, fragment
    return found[0]


def test_dense_tg128_rows_are_answered_within_thirty_percent():
    # The dense llama-bench rows on Ampere/Ada (CUDA graphs or Vulkan): bandwidth x STREAM share + kernel floors.
    dense = [row for row in _rows().values()
             if "gpt-oss" not in row["model"] and row["gpu"] not in ("rtx3090ti",)]
    assert len(dense) >= 10
    for row in dense:
        predicted, _assumptions = predict_serve_case(row)
        ratio = predicted / row["measured"]["value"]
        assert 0.75 < ratio < 1.3, (row["id"], ratio)


def test_q8_0_decodes_slower_than_q4_0_as_measured_on_the_same_3090():
    q4 = [r for r in _rows().values() if r["gpu"] == "rtx3090" and r["weight_format"] == "q4_0"][0]
    q8 = [r for r in _rows().values() if r["gpu"] == "rtx3090" and r["weight_format"] == "q8_0"][0]
    p4, p8 = predict_serve_case(q4)[0], predict_serve_case(q8)[0]
    assert p8 < p4
    # measured 95.05 / 146.73 = 0.65; bytes alone give 0.55 (q8_0 8.5 bpw vs q4_0 4.5): the kernel floors narrow it
    assert 0.55 < p8 / p4 < 0.75


def test_a_moe_reads_only_its_active_experts_and_a_dense_model_not_its_embedding():
    moe = _row("rtx4090-gpt-oss")
    run = single_stream(_spec(moe["model"]), _gpu(moe["gpu"]), load_of_case(moe))
    read = dict(run.assumptions[0].quantities)
    assert read["bytes_per_token"] < 0.3 * read["file_bytes"]  # 4 of 32 experts
    dense = _row("rtx4090-ds-r1-qwen-14b")
    run = single_stream(_spec(dense["model"]), _gpu(dense["gpu"]), load_of_case(dense))
    read = dict(run.assumptions[0].quantities)
    assert 0.9 * read["file_bytes"] < read["bytes_per_token"] < read["file_bytes"]  # untied 152k x 5120 embedding


def test_a_faster_memory_decodes_faster():
    row = _row("rtx3060-llama32-3b")
    slow = predict_serve_case(row)[0]
    fast = predict_serve_case(dict(row, gpu="rtx4090"))[0]
    assert fast > 2 * slow  # 1008 vs 360 GB/s, less the fixed kernel time


def test_more_than_one_sequence_or_gpu_and_unknown_gguf_types_are_refused():
    row = _row("rtx4090-ds-r1-qwen-14b")
    spec, gpu, load = _spec(row["model"]), _gpu(row["gpu"]), load_of_case(row)
    with pytest.raises(SizingError) as err:
        serve_speed(spec, gpu, replace(load, batch=4))
    assert err.value.field == "load"
    with pytest.raises(SizingError) as err:
        serve_speed(spec, gpu, replace(load, batch=None, request_rate_per_s=2.0))
    assert err.value.field == "load"
    with pytest.raises(SizingError) as err:
        serve_speed(spec, gpu, replace(load, weight_format="int4-awq"))
    assert err.value.field == "weight_format"
    with pytest.raises(SizingError) as err:
        serve_speed(spec, gpu, replace(load, engine_version="0.6.3"))
    assert err.value.field == "engine_version"
    assert serve_speed(spec, gpu, replace(load, engine_version="b7340")).output_tokens_per_s > 0


def test_a_model_larger_than_the_gpu_is_refused():
    row = _row("rtx3060-ds-r1")
    with pytest.raises(SizingError) as err:
        serve_speed(_spec(row["model"]), _gpu(row["gpu"]), replace(load_of_case(row), weight_format="f16"))
    assert err.value.field == "gpu"


ROWS_113 = ROWS.with_name("fresh113_serve_runs.jsonl")


def _row113(fragment: str) -> dict:
    rows = [json.loads(line) for line in ROWS_113.read_text(encoding="utf-8").splitlines()]
    found = [row for row in rows if row["id"].endswith(fragment)]
    assert len(found) == 1, fragment
    return found[0]


def test_an_mxfp4_moe_file_weighs_what_llama_bench_reports():
    # PR 21024's RTX 3090 table: 'gpt-oss 20B MXFP4 MoE | 11.27 GiB': experts MXFP4 (17 bytes per 32), the rest q8_0.
    row = _row("rtx3090-vulkan-gpt-oss-20b-mxfp4")
    run = single_stream(_spec(row["model"]), _gpu(row["gpu"]), load_of_case(row))
    file_gib = dict(run.assumptions[0].quantities)["file_bytes"] / 2**30
    assert 11.27 * 0.98 < file_gib < 11.27 * 1.02
    assert predict_serve_case(row)[0] > 0


def test_a_gpu_without_a_16_bit_rate_is_answered_from_its_memory_bandwidth():
    # Tesla P40 (Pascal, FP16 at 1/64, no 16-bit rate in the catalog): decode is bandwidth bound; the prompt's
    # matmuls use the INT8 (dp4a) rate for quantised weights.
    row = _row113("p40-cuda-llama7b-q4-0-tg128")
    predicted = predict_serve_case(row)[0]
    assert 0.8 < predicted / row["measured"]["value"] < 1.5  # 346 GB/s datasheet; measured 56.79 tokens/s


def test_llama_bench_depth_is_filled_before_the_timer():
    # tg64@d4096 (98.67 t/s) against tg64 (105.75) on the same RX 7900 XTX: only the KV read per token grows.
    deep, shallow = _row113("q4-k-m-tg64-at-d4096"), _row113("rx7900xtx-hip-llama8b-q4-k-m-tg64")
    ratio = predict_serve_case(deep)[0] / predict_serve_case(shallow)[0]
    assert 0.85 < ratio < 0.99  # measured 0.933
    # 512 tokens at 32k depth on an RTX 4090 (98.14 t/s): the 32k context is read each token, not prefilled in time
    row = _row113("rtx4090-llama8b-q4-0-ub1-pp512-at-d32768")
    assert 0.8 < predict_serve_case(row)[0] / row["measured"]["value"] < 1.2


def test_moe_routing_nodes_are_counted_per_moe_layer():
    # build_moe_ffn: softmax, top-k, get_rows, weighting, then k - 1 adds: gpt-oss-20b (24 MoE layers, top-4) 7 each;
    # DeepSeek-V2-Lite (26 MoE layers of 27, top-6, shared experts) 4 + 5 + 2 = 11 each; a dense model none.
    from gpudesk.sizing.serve_llamacpp import moe_nodes

    assert moe_nodes(_spec("gpt-oss-20b")) == 24 * 7
    assert moe_nodes(_spec("tests/fixtures/sizing/configs/deepseek-v2-lite.config.json")) == 26 * 11
    assert moe_nodes(_spec("llama-3.2-3b")) == 0
    row = _row("rtx3090-vulkan-gpt-oss-20b-mxfp4")
    assert 0.85 < predict_serve_case(row)[0] / row["measured"]["value"] < 1.2  # measured 181.32 tokens/s
