"""Expert parallelism across data-parallel replicas (gpudesk.sizing.serve_wide_ep): vLLM ``--data-parallel-size D
--enable-expert-parallel`` folded into one replica of EP GPUs with data-parallel attention, on the published
fresh107 rows (vLLM PR 20087, DeepSeek-R1 DP8 EP8 on 8 x B200) and catalog models."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.cli import main
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.serve_engine import engine_budget
from gpudesk.sizing.serve_step import step_model
from gpudesk.sizing.serve_wide_ep import (
    fold_wide_expert_parallel,
    group_dense_params,
    remote_ranks_per_token,
)
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad
from gpudesk.sizing.speed_serve_cases import intra_link, load_of_case, predict_serve_case

ROWS = Path(__file__).resolve().parents[1] / "fixtures" / "speed" / "fresh107_serve_runs.jsonl"


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def _pr20087_rows() -> list[dict]:
    rows = [json.loads(line) for line in ROWS.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if r["id"].startswith("vllm-pr20087-")]


def test_the_published_dp8_ep8_rows_are_answered():
    """vLLM PR 20087: --data-parallel-size 8 --enable-expert-parallel, no -tp (tp 1, dp 8, ep 8). These rows were
    refused ("does not divide the 1 GPUs of the replica"); every one is now answered with a positive figure."""
    rows = _pr20087_rows()
    assert len(rows) == 5
    for row in rows:
        value, assumptions = predict_serve_case(row)
        assert value > 0
        assert "expert_alltoall" in {a.name for a in assumptions}


def test_a_dp8_ep8_row_folds_into_one_replica_of_eight_attention_ranks():
    load = load_of_case(_pr20087_rows()[0])
    assert (load.tp, load.replicas, load.attention_dp, load.expert_parallel) == (8, 1, 8, 8)
    assert load.dense_per_attention_group


def test_folding_keeps_the_gpus_and_splits_the_replicas_by_the_group():
    base = ServeLoad(engine="vllm", tp=2, replicas=8, expert_parallel=8, concurrency=64)
    folded = fold_wide_expert_parallel(base)
    assert (folded.tp, folded.replicas, folded.attention_dp) == (8, 2, 4)
    assert folded.tp * folded.replicas == base.tp * base.replicas
    # an EP within the replica is left alone; one that neither divides tp nor spans whole replicas is refused
    inside = ServeLoad(engine="vllm", tp=8, replicas=2, expert_parallel=8, concurrency=64)
    assert fold_wide_expert_parallel(inside) is inside
    odd = ServeLoad(engine="vllm", tp=2, replicas=3, expert_parallel=4, concurrency=64)
    assert fold_wide_expert_parallel(odd) is odd
    with pytest.raises(SizingError) as err:
        odd.validated()
    assert err.value.field == "expert_parallel"


def test_each_vllm_dp_rank_holds_its_dense_layers_and_schedules_its_own_token_budget(catalog):
    """DeepSeek-R1 at tp 1: the 3 dense layers, shared experts and embeddings are whole on every GPU (SGLang's DP
    attention splits them over its tp 8), and the 8 engine cores take 8 x 8192 tokens per step."""
    spec = spec_from_catalog(catalog.model("deepseek-r1"))
    gpu = catalog.gpu("b200")
    vllm = fold_wide_expert_parallel(ServeLoad(engine="vllm", tp=1, replicas=8, expert_parallel=8, concurrency=256,
                                               input_tokens=256, output_tokens=100, weight_format="fp8"))
    sglang = ServeLoad(engine="sglang", tp=8, attention_dp=8, expert_parallel=8, concurrency=256, input_tokens=256,
                       output_tokens=100, weight_format="fp8")
    extra = group_dense_params(spec, vllm)
    assert 3e9 < extra < 6e9  # 7/8 of the ~4.5e9 non-expert, non-attention parameters
    assert group_dense_params(spec, sglang) == 0
    v_budget, s_budget = engine_budget(spec, gpu, vllm), engine_budget(spec, gpu, sglang)
    assert v_budget.weights_bytes == pytest.approx(s_budget.weights_bytes + extra, rel=0.01)
    assert v_budget.token_budget == 8 * 8192  # vLLM serve default 8192 per rank on GPUs of at least 70 GiB


def test_the_all_to_all_replaces_the_gather_and_grows_across_nodes(catalog):
    # uniform routing, top-8 over 8 ranks: each other rank is hit with probability 1 - (7/8)^8
    assert remote_ranks_per_token(8, 8) == pytest.approx(7 * (1 - (7 / 8) ** 8))
    assert remote_ranks_per_token(8, 1) == 0
    spec = spec_from_catalog(catalog.model("deepseek-r1"))
    gpu = catalog.gpu("h200-sxm")
    link = intra_link(gpu, "nvlink", 16)
    one = fold_wide_expert_parallel(ServeLoad(engine="vllm", tp=1, replicas=16, expert_parallel=16,
                                              concurrency=256, weight_format="fp8", gpus_per_node=16))
    two = dataclasses.replace(one, gpus_per_node=8)
    in_node, across = step_model(spec, gpu, one, link, "bf16"), step_model(spec, gpu, two, link, "bf16")
    assert in_node.allreduces_per_layer == 0 and in_node.alltoall_bytes_per_token > 0
    assert 0 < in_node.allreduce_s(64) < in_node.allreduce_s(4096)
    assert across.allreduce_s(4096) > 2 * in_node.allreduce_s(4096)  # the NIC, not NVLink


def test_the_cli_takes_dp_replicas_sharing_an_expert_group(capsys):
    assert main(["estimate", "speed", "--model", "deepseek-r1", "--gpu", "b200", "--count", "8", "--engine",
                 "vllm", "--tp", "1", "--replicas", "8", "--ep", "8", "--input-tokens", "256", "--output-tokens",
                 "100", "--concurrency", "256", "--weight-format", "fp8"]) == 0
    out = capsys.readouterr().out
    assert "8 data-parallel ranks of TP 1 sharing expert-parallel groups of 8 GPUs" in out
