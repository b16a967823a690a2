"""vLLM V1's piecewise graphs: attention issued eagerly on every step until full decode graphs (0.11), and after
it on ROCm where the Triton MLA backend runs, until 0.21 (serve_vllm_piecewise)."""

from __future__ import annotations

import json

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_eager_prefill import VLLM_EAGER_LAUNCH_S_PER_KERNEL
from gpudesk.sizing.serve_vllm_piecewise import (
    ATTENTION_EAGER_KERNELS,
    MLA_EAGER_DECODE_KERNELS,
    attention_runs_piecewise,
    piecewise_attention_kernels,
)
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve_cases import predict_serve_case
from gpudesk.sizing.speed_validation import speed_cases_dir


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def _row(file: str, row_id: str) -> dict:
    for line in (speed_cases_dir() / file).read_text().splitlines():
        if line.strip() and json.loads(line)["id"] == row_id:
            return json.loads(line)
    raise AssertionError(row_id)


def test_which_runs_issue_mla_attention_eagerly(catalog):
    r1 = spec_from_catalog(catalog.model("deepseek-r1"))
    llama = spec_from_catalog(catalog.model("llama-3.1-8b"))
    mi355x, h100, mi100 = catalog.gpu("mi355x"), catalog.gpu("h100-sxm5"), catalog.gpu("mi100")

    def runs(spec, gpu, version, aiter=None, graphs=True, block=None):
        return attention_runs_piecewise(spec, "vllm", version, gpu.vendor, gpu.architecture, aiter, graphs, block)

    # V1 before 0.11: piecewise by default on every GPU, whatever the backend
    assert runs(r1, mi355x, (0, 10)) and runs(r1, h100, (0, 9)) and runs(r1, mi355x, (0, 10), aiter=True)
    # 0.11 on (or no version): full decode graphs where the backend has them
    assert not runs(r1, h100, (0, 11)) and not runs(r1, h100, None)
    assert not runs(r1, mi355x, (0, 11)) and not runs(r1, mi355x, (0, 11), aiter=True)
    # ROCm without AITER runs Triton MLA (no full-graph support), unless block size 1 selects AITER MLA
    assert runs(r1, mi355x, (0, 11), aiter=False) and not runs(r1, mi355x, (0, 11), aiter=False, block=1)
    assert runs(r1, mi100, (0, 15))  # CDNA 1: no AITER
    # Triton MLA captures full decode graphs from 0.21 (PR 42885); no version means the current defaults
    assert not runs(r1, mi355x, (0, 21), aiter=False) and not runs(r1, mi100, None)
    # not counted: V0, eager engines (already eager), dense attention, other engines
    assert not runs(r1, h100, (0, 7)) and not runs(r1, mi355x, (0, 10), graphs=False)
    # other attention: 2 eager kernels per layer before 0.11, none after
    assert runs(llama, mi355x, (0, 10)) and not runs(llama, mi355x, (0, 11), aiter=False)
    assert piecewise_attention_kernels(llama, True) == ATTENTION_EAGER_KERNELS * 32
    assert not attention_runs_piecewise(r1, "sglang", (0, 4), "AMD", "CDNA 4", False, True)
    assert piecewise_attention_kernels(r1, True) == MLA_EAGER_DECODE_KERNELS * 61
    assert piecewise_attention_kernels(r1, False) == 0


def test_deepseek_r1_on_vllm_0_10_1_decodes_at_the_eager_attention_floor():
    """moreh-dev/mi355_benchmark team_ce/dsr1/rocm_logs.csv at 12f29ad: DeepSeek-R1-0528 FP8 on 8 x MI355X, vLLM
    0.10.1, 1024/1024 at concurrency 4: 20.82 ms TPOT (and 21.18 ms at 8), while the same model on vLLM 0.11.1 with
    AITER decodes in 13.04 ms (fresh28): the 0.10.1 steps are held by the CPU issuing 61 x 9 attention kernels."""
    floor_s = 61 * MLA_EAGER_DECODE_KERNELS * VLLM_EAGER_LAUNCH_S_PER_KERNEL
    old = _row("fresh39_serve_runs.jsonl", "moreh-mi355-dsr1-ref0101-1024-1024-c4-tpot-s")
    tpot, assumptions = predict_serve_case(old)
    assert tpot >= floor_s
    assert abs(tpot / old["measured"]["value"] - 1) <= 0.2
    assert "piecewise_attention_launch_s" in {a.name for a in assumptions}
    new = _row("fresh28_serve_runs.jsonl", "moreh-mi355-dsr1-base-1024-1024-c4-tpot-s")
    new_tpot, new_assumptions = predict_serve_case(new)
    assert new_tpot < floor_s
    assert "piecewise_attention_launch_s" not in {a.name for a in new_assumptions}
