"""``gpudesk plan`` and ``gpudesk estimate memory`` end to end through gpudesk.cli.main."""

import json

import pytest

from conftest import FIXTURES
from gpudesk.cli import main
from gpudesk.paths import examples_dir

ARTICLE = str(examples_dir() / "article-13b-finetune.toml")


def test_plan_json_article_case(capsys):
    assert main(["plan", "--profile", ARTICLE, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    top = data["candidates"][0]
    assert top["fits"] is True and top["interconnect"] and isinstance(top["meets_deadline"], bool)
    assert top["per_gpu_memory_bytes"] < top["usable_memory_bytes"]


def test_plan_markdown_and_csv(capsys, tmp_path):
    assert main(["plan", "--profile", ARTICLE]) == 0
    md = capsys.readouterr().out
    assert md.startswith("# ") and "Safe line" in md
    out = tmp_path / "bom.csv"
    assert main(["plan", "--profile", ARTICLE, "--format", "csv", "--output", str(out)]) == 0
    assert "GPU" in out.read_text(encoding="utf-8")
    assert main(["plan", "--profile", ARTICLE, "--candidate", "9999"]) == 2
    assert "--candidate" in capsys.readouterr().err


def test_plan_bad_profile(capsys, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[model]\nparams = -5\n", encoding="utf-8")
    assert main(["plan", "--profile", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "model.params" in err


def test_estimate_memory_text_and_json(capsys):
    assert main(["estimate", "memory", "--model", "llama-2-13b", "--seq", "512", "--batch", "8", "--gpus", "8",
                 "--sharding", "zero3", "--gpu", "a100 80gb sxm"]) == 0
    text = capsys.readouterr().out
    # The verdict depends on the activation model (eager PyTorch saves more than Megatron's fused kernels); the
    # comparison with the GPU's safe line must be printed either way.
    assert "Optimizer states" in text and "safe line 63.34 GiB" in text
    assert main(["estimate", "memory", "--config", str(FIXTURES / "plan" / "meta-llama-3-8b.config.json"),
                 "--mode", "inference", "--seq", "8192", "--batch", "4", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["per_gpu"]["breakdown_bytes"]["kv_cache"] == 4 * 8192 * 128 * 1024


@pytest.mark.parametrize("argv,needle", [
    (["--params=-3B"], "--params"),
    (["--params", "7B", "--seq", "0"], "--seq"),
    (["--model", "no-such-model-xyz"], "--model"),
    (["--config", "/nonexistent/config.json"], "--config"),
    (["--params", "7B", "--mode", "lora", "--lora-targets", "qkv"], "--lora-targets"),
])
def test_estimate_memory_bad_input(capsys, argv, needle):
    assert main(["estimate", "memory", *argv]) == 2
    assert needle in capsys.readouterr().err


def test_estimate_validate_prints_summary_and_every_case(capsys):
    assert main(["estimate", "validate", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["cases"] >= 40 and data["summary"]["within_15_share"] >= 0.8
    assert {"id", "measured_bytes", "estimated_bytes", "ratio", "statistic", "source_url"} <= set(data["cases"][0])
    assert main(["estimate", "accuracy"]) == 0
    text = capsys.readouterr().out
    assert "within 15 %" in text and "median absolute error" in text and "method lora" in text
    # Speed: the development, later and fresh sets each get their own summary row.
    assert "development set:" in text and "later set (collected after the model):" in text
    assert "fresh set (collected after the model was frozen):" in text


def test_estimate_memory_recipe_flags_and_token_suffix(capsys):
    config = str(FIXTURES / "sizing" / "configs" / "llama-3.1-8b.config.json")
    argv = ["estimate", "memory", "--config", config, "--seq", "8k", "--batch", "2", "--precision", "bf16-pure",
            "--optimizer", "paged_adamw_8bit", "--optimizer-in-backward", "--recompute", "full", "--loss", "chunked",
            "--compile", "--json"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)["per_gpu"]
    assert "paged_optimizer_states" in data["breakdown_bytes"]
    assert data["allocated_bytes"] < data["reserved_bytes"] < data["device_bytes"]
    assert main(["estimate", "memory", "--config", config, "--optimizer", "AdamW_Torch", "--json"]) == 0


def test_unitless_params_and_bad_tokens_are_refused(capsys):
    assert main(["estimate", "memory", "--params", "8"]) == 2
    assert "8B" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["estimate", "memory", "--params", "8B", "--seq", "eight"])
    assert "not a token count" in capsys.readouterr().err


def test_estimate_memory_weight_format_only_for_inference(capsys):
    assert main(["estimate", "memory", "--model", "llama-3-8b", "--mode", "train", "--weight-format", "int4-g128"]) == 2
    assert "--weight-format applies to --mode inference" in capsys.readouterr().err


def test_estimate_memory_follows_the_checkpoint_and_tp(capsys):
    assert main(["estimate", "memory", "--model", "gpt-oss-120b", "--mode", "inference", "--seq", "8k", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert 58 * 2**30 < data["per_gpu"]["breakdown_bytes"]["weights"] < 63 * 2**30  # MXFP4 checkpoint, not 217 GiB
    assert main(["estimate", "memory", "--model", "deepseek-ai/DeepSeek-V3", "--mode", "inference", "--seq", "32k",
                 "--batch", "16", "--tp", "8", "--weight-format", "fp8", "--json"]) == 0
    kv = json.loads(capsys.readouterr().out)["per_gpu"]["breakdown_bytes"]["kv_cache"]
    assert 34.2 * 2**30 < kv < 34.4 * 2**30  # the MLA latent on every rank, not divided by 8


def test_estimate_memory_qlora_defaults_to_gradient_checkpointing(capsys):
    assert main(["estimate", "memory", "--model", "llama-3-8b", "--mode", "qlora", "--seq", "4k", "--json"]) == 0
    qlora = json.loads(capsys.readouterr().out)
    assert main(["estimate", "memory", "--model", "llama-3-8b", "--mode", "qlora", "--seq", "4k", "--recompute", "none",
                 "--json"]) == 0
    kept = json.loads(capsys.readouterr().out)
    assert qlora["per_gpu"]["breakdown_bytes"]["activations"] < kept["per_gpu"]["breakdown_bytes"]["activations"] / 4
