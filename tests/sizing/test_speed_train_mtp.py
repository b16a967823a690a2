"""Training speed of DeepSeek-style runs: MLA attention at the per-head widths training uses, multi-token-prediction
depths and Megatron-Core's selective recompute modules as typed inputs (gpudesk.sizing.speed_train)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.cli import main
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_train import (
    TrainSetup,
    mla_attention_dims,
    mla_up_projection_params,
    model_flops_per_token,
    mtp_layer_gemm_params,
    train_speed,
)
from gpudesk.sizing.speed_train_cases import case_setup, gpu_rates


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


@pytest.fixture(scope="module")
def deepseek(catalog):
    return spec_from_catalog(catalog.find_model("deepseek-v3"))


# The published Megatron-Bridge DeepSeek-V3 layout on 256 B200 (TP1 PP16 EP8, MXFP8, GBS 4096, seq 4096).
BASE = TrainSetup(gpus=256, seq_len=4096, global_batch=4096, micro_batch=1, pp=16, ep=8, precision="fp8",
                  fp8_recipe="mxfp8", gpus_per_node=8, intra_gbps=900.0)


def test_mla_attention_runs_at_192_wide_queries_and_keys_and_128_wide_values(deepseek):
    # DeepSeek-V3: 128 heads, q/k 128 nope + 64 rope = 192, v 128 (config.json; arXiv 2405.04434 section 2.1.2).
    assert mla_attention_dims(deepseek) == (192, 128)
    h, layers, heads, vocab = 7168, 61, 128, 129280
    s = 4096
    # 6 x active GEMM parameters + 12 x layers x (mean of the QK and PV widths) x causal half of the keys.
    attention = 12 * layers * heads * (192 + 128) / 2 * s / 2
    flops = model_flops_per_token(deepseek, s)
    gemm = flops - attention
    active_gemm = deepseek.active_params - vocab * h  # the embedding is a lookup, the LM head a GEMM
    assert gemm == pytest.approx(6 * active_gemm, rel=1e-9)
    # The 288-wide KV-cache view (512 latent + 64 rope per head) would count 1.8x this attention.
    assert 12 * layers * heads * 288 * s / 2 / attention == pytest.approx(1.8)
    # Up-projections: q_lora 1536 -> 128 x 192, kv_lora 512 -> 128 x (128 + 128).
    assert mla_up_projection_params(deepseek) == 1536 * 128 * 192 + 512 * 128 * 256


def test_each_mtp_depth_adds_one_layer_its_projection_and_an_output_head_pass(deepseek, catalog):
    rates = gpu_rates(catalog.find_gpu("b200"))
    h, vocab = 7168, 129280
    layer = mtp_layer_gemm_params(deepseek)
    # MLA projections + 1 shared expert (3 x h x 2048) + router (h x 256) + eh_proj (2h x h).
    attention = 7168 * 1536 + 7168 * (512 + 64) + 1536 * 128 * 192 + 512 * 128 * 256 + 128 * 128 * 7168
    assert layer == pytest.approx(attention + 3 * h * 2048 + h * 256 + 2 * h * h)
    plain = train_speed(deepseek, rates, BASE)
    mtp = train_speed(deepseek, rates, replace(BASE, mtp_layers=1))
    assert mtp.step_time_s > plain.step_time_s
    assert mtp.tokens_per_s_per_gpu < plain.tokens_per_s_per_gpu
    # One MoE layer of 62 plus a second output head pass, which runs on the last of the 16 stages with the first
    # (speed_pipeline: the split counts each head pass as one layer): about a tenth, not a fifth.
    assert 1.01 < mtp.step_time_s / plain.step_time_s < 1.12
    # Model FLOPs count the depth: 6 x (layer + its 8 routed experts + the head) + its attention.
    extra = model_flops_per_token(deepseek, 4096, 1) - model_flops_per_token(deepseek, 4096)
    routed = 8 * deepseek.expert_params
    attention_layer = 12 * 128 * 160 * 4096 / 2
    assert extra == pytest.approx(6 * (layer + routed + vocab * h) + attention_layer, rel=1e-6)
    assert mtp.model_flops_per_token == pytest.approx(model_flops_per_token(deepseek, 4096, 1))
    assert "mtp_layers" in {a.name for a in mtp.assumptions}
    assert "mtp_layers" not in {a.name for a in plain.assumptions}


def test_recompute_modules_each_add_their_own_forward(deepseek, catalog):
    rates = gpu_rates(catalog.find_gpu("b200"))
    none = train_speed(deepseek, rates, BASE)

    def with_modules(*modules):
        return train_speed(deepseek, rates, replace(BASE, recompute_modules=modules))

    # core_attn is Megatron's default selective set: the same estimate as --recompute selective.
    selective = train_speed(deepseek, rates, replace(BASE, recompute="selective"))
    assert with_modules("core_attn").step_time_s == pytest.approx(selective.step_time_s)
    # Listing modules replaces the default set: without core_attn the attention is not redone.
    up = with_modules("mla_up_proj")
    assert up.breakdown["attention_s"] == pytest.approx(none.breakdown["attention_s"])
    # mla_up_proj: 2 FLOPs per up-projection parameter per token on the GPU's 61/16 layers, at the GEMM rate.
    assert up.breakdown["gemm_s"] > none.breakdown["gemm_s"]
    for module in ("moe_act", "layernorm"):
        assert with_modules(module).breakdown["other_kernels_s"] > none.breakdown["other_kernels_s"]
    moe = with_modules("moe")
    assert moe.breakdown["gemm_s"] > with_modules("shared_experts").breakdown["gemm_s"] > none.breakdown["gemm_s"]
    assert moe.breakdown["expert_all_to_all_s"] == pytest.approx(1.5 * none.breakdown["expert_all_to_all_s"])
    published = with_modules("mla_up_proj", "moe_act", "layernorm")
    assert none.step_time_s < published.step_time_s < moe.step_time_s
    # A dense model: "mla_up_proj" and the MoE modules cost nothing, "mlp" redoes its MLP forward.
    llama = spec_from_catalog(catalog.find_model("llama-3-8b"))
    dense = TrainSetup(gpus=8, seq_len=8192, global_batch=16, micro_batch=2)
    plain = train_speed(llama, rates, dense)
    assert train_speed(llama, rates, replace(dense, recompute_modules=("mla_up_proj", "moe_act"))
                       ).step_time_s == pytest.approx(plain.step_time_s)
    assert train_speed(llama, rates, replace(dense, recompute_modules=("mlp",))).breakdown["gemm_s"] > (
        plain.breakdown["gemm_s"])


def test_bad_mtp_and_recompute_module_inputs_are_errors(deepseek, catalog):
    rates = gpu_rates(catalog.find_gpu("b200"))
    with pytest.raises(SizingError) as err:
        train_speed(deepseek, rates, replace(BASE, recompute_modules=("attention",)))
    assert err.value.field == "recompute_modules"
    with pytest.raises(SizingError) as err:
        train_speed(deepseek, rates, replace(BASE, recompute="full", recompute_modules=("moe",)))
    assert err.value.field == "recompute_modules"
    with pytest.raises(SizingError) as err:
        train_speed(deepseek, rates, replace(BASE, mtp_layers=-1))
    assert err.value.field == "mtp_layers"


def test_a_case_row_states_mtp_and_recompute_modules_and_rows_without_them_default_to_none(catalog):
    gpu = catalog.find_gpu("b200")
    row = {"kind": "train", "model": "deepseek-v3", "gpu": "b200", "gpus": 256, "seq_len": 4096,
           "global_batch": 4096, "pp": 16, "ep": 8, "precision": "fp8"}
    setup = case_setup(dict(row, mtp_layers=1, recompute_modules=["mla_up_proj", "moe_act", "layernorm"]), catalog, gpu)
    assert setup.mtp_layers == 1 and setup.recompute_modules == ("mla_up_proj", "moe_act", "layernorm")
    assert case_setup(dict(row, recompute_modules="core_attn, moe"), catalog, gpu).recompute_modules == (
        "core_attn", "moe")
    plain = case_setup(row, catalog, gpu)
    assert plain.mtp_layers == 0 and plain.recompute_modules == ()


def test_estimate_speed_cli_takes_mtp_layers_and_recompute_modules(capsys):
    args = ["estimate", "speed", "--model", "deepseek-v3", "--gpu", "b200", "--count", "256", "--pp", "16", "--ep",
            "8", "--global-batch", "4096", "--seq", "4k", "--precision", "fp8", "--json"]
    assert main(args) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main([*args, "--mtp-layers", "1", "--recompute-modules", "mla_up_proj", "moe_act", "layernorm"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["train"]["step_time_s"] > plain["train"]["step_time_s"]
    assert {"mtp_layers", "recompute_modules"} <= {a["name"] for a in out["assumptions"]}
    assert main([*args, "--recompute", "full", "--recompute-modules", "moe"]) != 0
    err = capsys.readouterr().err
    assert "--recompute-modules" in err and "Traceback" not in err
    for bad in (["--recompute-modules", "everything"], ["--mtp-layers", "0"]):
        with pytest.raises(SystemExit) as exc:  # argparse usage errors, exit 2, naming the flag
            main([*args, *bad])
        assert exc.value.code == 2
        assert f"argument {bad[0]}:" in capsys.readouterr().err


def test_a_profile_states_mtp_layers_and_recompute_modules_and_the_flags_override_them(tmp_path, capsys):
    profile = tmp_path / "dsv3.toml"
    profile.write_text('[model]\nmodel = "deepseek-v3"\nseq_len_tokens = 4096\nglobal_batch_size = 4096\n'
                       'precision = "fp8"\nmtp_layers = 1\nrecompute_modules = ["mla_up_proj", "moe_act", "layernorm"]\n'
                       '[workload]\ntokens_to_train = 1e12\n',
                       encoding="utf-8")
    args = ["estimate", "speed", "--gpu", "b200", "--count", "256", "--pp", "16", "--ep", "8", "--json"]
    assert main([*args, "--profile", str(profile)]) == 0
    from_profile = json.loads(capsys.readouterr().out)
    names = {a["name"]: a["value"] for a in from_profile["assumptions"]}
    assert names["mtp_layers"].startswith("1:") and names["recompute_modules"].startswith("mla_up_proj, moe_act")
    assert main([*args, "--model", "deepseek-v3", "--global-batch", "4096", "--seq", "4k", "--precision", "fp8",
                 "--mtp-layers", "1", "--recompute-modules", "mla_up_proj", "moe_act", "layernorm"]) == 0
    by_flags = json.loads(capsys.readouterr().out)
    assert by_flags["train"]["step_time_s"] == pytest.approx(from_profile["train"]["step_time_s"])
    assert main([*args, "--profile", str(profile), "--recompute-modules", "moe"]) == 0
    names = {a["name"]: a["value"] for a in json.loads(capsys.readouterr().out)["assumptions"]}
    assert names["recompute_modules"].startswith("moe:")
    profile.write_text(profile.read_text(encoding="utf-8").replace('"layernorm"', '"norms"'), encoding="utf-8")
    assert main([*args, "--profile", str(profile)]) != 0
    err = capsys.readouterr().err
    assert "model.recompute_modules" in err and "Traceback" not in err
