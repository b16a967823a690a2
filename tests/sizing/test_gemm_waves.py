"""Wave quantization of the routed experts' GEMMs (gpudesk.sizing.gemm_waves) and its place in the training model."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.cli import main
from gpudesk.sizing.gemm_waves import gemm_output_tiles, wave_efficiency
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_train import FRAMEWORKS, TrainSetup, expert_mlp_seconds, train_speed
from gpudesk.sizing.speed_train_cases import case_setup, gpu_rates

# Qwen3-30B-A3B (hidden 2048, expert width 768, gate + up fused: 1536) at expert parallelism 8 on 8 B200: 16 local
# experts, a 4096-token micro-batch routes 4096 x 8 / 16 = 2048 rows to each (Megatron-Bridge's published recipe).
ROWS, HIDDEN, WIDTH = 2048, 2048, 768


def test_qwen3_30b_expert_gemm_fills_one_partial_wave_on_b200() -> None:
    # gate/up: 2048 x 1536 output = 8 x 12 tiles of 256 x 128 = 96 tiles; 148 SMs run them in one wave, 52 idle.
    assert gemm_output_tiles(ROWS, 2 * WIDTH) == 96
    assert wave_efficiency(ROWS, 2 * WIDTH, 148) == pytest.approx(96 / 148)
    # 160 SMs (Blackwell Ultra) leave more of them idle for the same launch.
    assert wave_efficiency(ROWS, 2 * WIDTH, 160) == pytest.approx(96 / 160)
    # One tile more than a wave runs as two waves.
    assert wave_efficiency(256 * 149, 128, 148) == pytest.approx(149 / 296)


def test_large_dense_gemm_loses_little() -> None:
    # A dense 16384-token x 14336 MLP GEMM: 64 x 112 = 7168 tiles, 49 waves on 148 SMs, the last 44 % full.
    assert wave_efficiency(16384, 14336, 148) > 0.98


def test_unknown_sm_count_adds_nothing() -> None:
    assert wave_efficiency(ROWS, 2 * WIDTH, 0) == 1.0
    # A catalog GPU without a sourced SM count (gpu_sms.csv has no row for it): unknown, no wave term.
    catalog = open_catalog()
    unknown = catalog.find_gpu("mi300x")
    assert unknown.sm_count is None and gpu_rates(unknown).sm_count == 0


def test_expert_mlp_is_slower_with_idle_sms() -> None:
    rate, hbm = 2250e12 * 0.7, 8e12 * 0.8
    plain = expert_mlp_seconds(ROWS, HIDDEN, WIDTH, 2, 2, rate, hbm)
    waves = expert_mlp_seconds(ROWS, HIDDEN, WIDTH, 2, 2, rate, hbm, sm_count=148)
    assert waves > 1.2 * plain
    # With many rows per expert (few local experts) the row-wise GEMMs fill their waves; the weight gradients keep
    # their weight-sized output (hidden x 2 width: 96 tiles) whatever the rows (no split of the reduction modelled).
    many = 32 * ROWS
    assert wave_efficiency(many, 2 * WIDTH, 148) > 0.98
    assert wave_efficiency(HIDDEN, 2 * WIDTH, 148) == pytest.approx(96 / 148)


def test_catalog_gpus_carry_their_sm_count() -> None:
    # Read from the catalog's gpu_streaming_multiprocessors table (db/gpu_sms.csv).
    catalog = open_catalog()
    assert catalog.find_gpu("b200").sm_count == 148
    assert gpu_rates(catalog.find_gpu("b200")).sm_count == 148
    assert gpu_rates(catalog.find_gpu("h100-sxm5")).sm_count == 132
    assert gpu_rates(catalog.find_gpu("gb300")).sm_count == 160


def test_grouped_launch_pools_the_experts_tiles() -> None:
    # torch._grouped_mm over Qwen3-30B-A3B's 16 local experts: 16 x 96 = 1536 tiles, 11 waves on 148 SMs (94 % busy),
    # where 16 separate launches keep 65 % busy.
    assert wave_efficiency(ROWS, 2 * WIDTH, 148, groups=16) == pytest.approx(1536 / (11 * 148))
    rate, hbm = 2250e12 * 0.7, 8e12 * 0.8
    grouped = expert_mlp_seconds(ROWS, HIDDEN, WIDTH, 2, 2, rate, hbm, sm_count=148, experts_per_launch=16)
    per_expert = expert_mlp_seconds(ROWS, HIDDEN, WIDTH, 2, 2, rate, hbm, sm_count=148)
    assert grouped < 0.85 * per_expert


def test_torch_grouped_mm_frameworks_launch_the_experts_together() -> None:
    grouped = {name for name, fw in FRAMEWORKS.items() if fw.grouped_expert_gemm}
    assert grouped == {"torchtitan-compile", "torchtitan-eager", "prime-rl", "prime-rl-eager"}


def test_the_user_overrides_the_frameworks_launch(capsys) -> None:
    # torchtitan launches the experts grouped unless MoEArgs.use_grouped_mm is off; Megatron-LM (Transformer Engine
    # GroupedLinear) launches one GEMM per expert unless told otherwise: the setup, a row and the CLI each say so.
    catalog = open_catalog()
    gpu = catalog.find_gpu("b200")
    row = {"gpus": 8, "seq_len": 4096, "global_batch": 64, "ep": 8, "framework": "megatron-lm"}
    assert case_setup(row, catalog, gpu).grouped_expert_gemm is None
    assert case_setup({**row, "grouped_expert_gemm": True}, catalog, gpu).grouped_expert_gemm is True
    # On an H100: there the grouped launch runs at the dense GEMM rate and only its pooled waves differ (on a B200
    # PyTorch's BF16 grouped kernel runs at 0.45 of it, tests/sizing/test_grouped_mm_rate.py).
    args = ["estimate", "speed", "--model", "qwen3-30b-a3b", "--gpu", "h100-sxm5", "--count", "8", "--ep", "8",
            "--seq", "4096", "--global-batch", "64", "--micro-batch", "4", "--json"]

    def step(extra: list[str]) -> float:
        assert main(args + extra) == 0
        return float(json.loads(capsys.readouterr().out)["train"]["step_time_s"])

    megatron = step(["--framework", "megatron-lm"])
    assert megatron == pytest.approx(step(["--framework", "megatron-lm", "--grouped-expert-gemm", "off"]))
    assert step(["--framework", "megatron-lm", "--grouped-expert-gemm", "on"]) < megatron
    titan = step(["--framework", "torchtitan-compile"])
    assert titan == pytest.approx(step(["--framework", "torchtitan-compile", "--grouped-expert-gemm", "on"]))
    assert step(["--framework", "torchtitan-compile", "--grouped-expert-gemm", "off"]) > titan
    # The flag acts on routed experts only: refused on a dense model.
    assert main(["estimate", "speed", "--model", "llama-3.1-8b", "--gpu", "b200", "--count", "8",
                 "--grouped-expert-gemm", "on"]) != 0


def test_the_wave_term_is_named_in_the_assumptions() -> None:
    catalog = open_catalog()
    moe = spec_from_catalog(catalog.find_model("qwen3-30b-a3b"))
    setup = TrainSetup(gpus=8, seq_len=4096, global_batch=64, micro_batch=4, ep=8, framework="megatron-lm")

    def waves(gpu_id: str, grouped: bool | None = None) -> dict[str, object] | None:
        run = replace(setup, grouped_expert_gemm=grouped)
        found = [a for a in train_speed(moe, gpu_rates(catalog.find_gpu(gpu_id)), run).assumptions
                 if a.name == "expert_gemm_waves"]
        return dict(found[0].quantities) if found else None

    assert waves("b200") == {"sm_count": 148, "grouped": False}
    assert waves("b200", grouped=True) == {"sm_count": 148, "grouped": True}
    assert waves("mi300x") is None  # no SM count (AMD compute units are not counted): no wave term, none named
