"""The MoE token permutation with and without Megatron-Core's fused kernels (``moe_permute_fusion``).

Source: github.com/NVIDIA/Megatron-LM megatron/core/transformer/moe/moe_utils.py ``permute`` / ``unpermute`` (the
unfused branch: ``tokens.index_select`` and a scatter-add into a zeroed output) and transformer_config.py
(``moe_permute_fusion: bool = False``); Megatron-Bridge's MoE model bridges set it on.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.cli import main
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_train import (
    HBM_EFFICIENCY,
    TrainSetup,
    moe_permute_bytes_per_token,
    train_speed,
)
from gpudesk.sizing.speed_train_cases import case_setup, gpu_rates


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_unfused_permutation_bytes_qwen3_30b_a3b():
    # Qwen3-30B-A3B: hidden 2048, 8 routed experts per token. Fused (Transformer Engine moe_permute / moe_unpermute):
    # read the token once, write 8 copies, and back: 4 x (1 + 8) x 2048 x 2 bytes. Unfused: index_select reads and
    # writes 8 rows, the zeroed output and the scatter-add of 8 rows; backward a gather of 8 rows and an index_add of
    # 8 rows into a zeroed buffer: (12 x 8 + 8) x 2048 bytes.
    assert moe_permute_bytes_per_token(2048, 8, fused=True) == 4 * 9 * 2048 * 2
    assert moe_permute_bytes_per_token(2048, 8, fused=False) == (12 * 8 + 8) * 2048
    assert moe_permute_bytes_per_token(2048, 8, fused=False) > moe_permute_bytes_per_token(2048, 8, fused=True)


def test_framework_default_and_explicit_choice(catalog):
    moe = spec_from_catalog(catalog.find_model("qwen3-30b-a3b"))
    gpu = catalog.find_gpu("b200")
    rates = gpu_rates(gpu)
    setup = TrainSetup(gpus=8, seq_len=4096, global_batch=8, micro_batch=1, ep=8, framework="megatron-lm")

    def other(s: TrainSetup) -> float:
        return train_speed(moe, rates, s).breakdown["other_kernels_s"]

    unset, fused, unfused = other(setup), other(replace(setup, moe_permute_fusion=True)), other(
        replace(setup, moe_permute_fusion=False))
    # Megatron-LM leaves it off unless --moe-permute-fusion: the unset default is the unfused path.
    assert unset == pytest.approx(unfused)
    extra = (moe_permute_bytes_per_token(moe.hidden_size, 8, False) - moe_permute_bytes_per_token(
        moe.hidden_size, 8, True)) * 4096 * moe.layers / (gpu.memory_bandwidth_gbps * 1e9 * HBM_EFFICIENCY)
    assert unfused - fused == pytest.approx(extra, rel=1e-6)
    # NeMo / Megatron-Bridge turn it on: unset means fused there.
    nemo = replace(setup, framework="nemo")
    assert other(nemo) == pytest.approx(other(replace(nemo, moe_permute_fusion=True)))
    assert other(replace(nemo, moe_permute_fusion=False)) == pytest.approx(unfused)
    names = {a.name for a in train_speed(moe, rates, setup).assumptions}
    assert "moe_permute_fusion" in names
    assert "moe_permute_fusion" not in {a.name for a in train_speed(moe, rates, nemo).assumptions}


def test_dense_model_does_not_move(catalog):
    dense = spec_from_catalog(catalog.find_model("llama-3.1-8b"))
    rates = gpu_rates(catalog.find_gpu("h100-sxm5"))
    setup = TrainSetup(gpus=8, seq_len=4096, global_batch=64, framework="megatron-lm")
    assert train_speed(dense, rates, replace(setup, moe_permute_fusion=False)).step_time_s == pytest.approx(
        train_speed(dense, rates, replace(setup, moe_permute_fusion=True)).step_time_s)


def test_row_field(catalog):
    gpu = catalog.find_gpu("h100-sxm5")
    row = {"gpus": 8, "seq_len": 4096, "global_batch": 64, "ep": 8, "framework": "megatron-lm"}
    assert case_setup(row, catalog, gpu).moe_permute_fusion is None
    assert case_setup({**row, "moe_permute_fusion": True}, catalog, gpu).moe_permute_fusion is True
    with pytest.raises(SizingError) as err:
        case_setup({**row, "moe_permute_fusion": "yes"}, catalog, gpu)
    assert err.value.field == "moe_permute_fusion"


def test_cli_flag(capsys):
    args = ["estimate", "speed", "--model", "qwen3-30b-a3b", "--gpu", "b200", "--count", "8", "--ep", "8",
            "--seq", "4096", "--global-batch", "64", "--micro-batch", "4", "--framework", "megatron-lm", "--json"]
    import json

    def step(extra: list[str]) -> float:
        assert main(args + extra) == 0
        return float(json.loads(capsys.readouterr().out)["train"]["step_time_s"])

    unset, on, off = step([]), step(["--moe-permute-fusion", "on"]), step(["--moe-permute-fusion", "off"])
    assert unset == pytest.approx(off)
    assert on < off
    assert main(["estimate", "speed", "--model", "qwen3-30b-a3b", "--gpu", "b200", "--engine", "vllm",
                 "--moe-permute-fusion", "on"]) != 0


def test_profile_field(tmp_path, capsys):
    import json

    def step(model_section: str) -> float:
        profile = tmp_path / "p.toml"
        profile.write_text('[model]\nmodel = "qwen3-30b-a3b"\nmode = "train"\nseq_len_tokens = 4096\n'
                           "micro_batch_size = 4\nglobal_batch_size = 64\n" + model_section + "[workload]\ntokens_to_train = 1e9\n",
                           encoding="utf-8")
        assert main(["estimate", "speed", "--profile", str(profile), "--gpu", "b200", "--count", "8", "--ep", "8",
                     "--framework", "megatron-lm", "--json"]) == 0
        return float(json.loads(capsys.readouterr().out)["train"]["step_time_s"])

    unset, on = step(""), step("moe_permute_fusion = true\n")
    assert on < unset
    assert step("moe_permute_fusion = false\n") == pytest.approx(unset)
    profile = tmp_path / "p.toml"
    profile.write_text('[model]\nmodel = "qwen3-30b-a3b"\nmode = "train"\nmoe_permute_fusion = "yes"\n'
                       '[workload]\ntokens_to_train = 1e9\n', encoding="utf-8")
    assert main(["estimate", "speed", "--profile", str(profile), "--gpu", "b200", "--count", "8"]) != 0
    assert "model.moe_permute_fusion" in capsys.readouterr().err
