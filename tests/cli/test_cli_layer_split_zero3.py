"""``estimate memory`` flags of memfix10: the inference layer split (--pp), bitsandbytes fp32 compute and the
DeepSpeed ZeRO-3 settings, on the published configs of the rows that prompted them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpudesk.cli import main

CONFIGS = Path(__file__).resolve().parents[1] / "fixtures" / "sizing" / "configs"


def _json(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(["estimate", "memory", "--json"] + args) == 0
    return json.loads(capsys.readouterr().out)


def _error(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    status = main(["estimate", "memory"] + args)
    err = capsys.readouterr().err
    assert status in (1, 2) and "Traceback" not in err, err
    return err


def test_layer_split_inference_sizes_the_fullest_gpu(capsys: pytest.CaptureFixture[str]) -> None:
    # DeepSeek-LLM README (20d316b9): 67B over 8 A100-40GB with device_map="auto", batch 1 x 256: 16.92 GB.
    args = ["--config", str(CONFIGS / "deepseek-llm-67b.config.json"), "--mode", "inference", "--weight-format",
            "bf16", "--seq", "256", "--prompt-tokens", "256", "--no-flash", "--kv-cache-impl", "legacy-tuple",
            "--prompt-logits", "all", "--gpus", "8"]
    split = _json(args + ["--pp", "8"], capsys)["per_gpu"]
    tp = _json(args + ["--tp", "8"], capsys)["per_gpu"]
    assert split["breakdown_bytes"]["weights"] > tp["breakdown_bytes"]["weights"] * 1.05  # 13 layers, not an eighth
    assert abs(split["device_bytes"] / (16.92 * 2**30) - 1) < 0.1
    err = _error(args + ["--pp", "8", "--pp-microbatches", "4"], capsys)
    assert "--pp-microbatches:" in err


def test_bnb_fp32_compute_needs_bitsandbytes_weights(capsys: pytest.CaptureFixture[str]) -> None:
    glm4 = ["--config", str(CONFIGS / "glm-4-9b.config.json"), "--mode", "inference", "--seq", "32512",
            "--prompt-tokens", "32000", "--kv-cache-impl", "legacy-tuple"]
    plain = _json(glm4 + ["--weight-format", "nf4"], capsys)["per_gpu"]["total_bytes"]
    fp32 = _json(glm4 + ["--weight-format", "nf4", "--bnb-fp32-compute"], capsys)["per_gpu"]["total_bytes"]
    assert fp32 - plain > 3.5 * 2**30
    assert "--bnb-fp32-compute:" in _error(glm4 + ["--weight-format", "int4-g128", "--bnb-fp32-compute"], capsys)
    assert "--bnb-fp32-compute:" in _error(["--model", "llama-3-8b", "--mode", "train", "--bnb-fp32-compute"], capsys)


def test_zero3_settings_flags(capsys: pytest.CaptureFixture[str]) -> None:
    pythia = ["--config", str(CONFIGS / "pythia-6.9b.config.json"), "--mode", "train", "--precision", "fp16",
              "--gpus", "3", "--sharding", "zero3", "--offload", "optimizer", "--seq", "512", "--recompute", "full"]
    base = _json(pythia, capsys)["per_gpu"]["breakdown_bytes"]["gathered_layers"]
    longer = _json(pythia + ["--zero3-max-reuse-distance", "1e10"], capsys)["per_gpu"]["breakdown_bytes"]["gathered_layers"]
    bucket = _json(pythia + ["--zero3-reduce-bucket", "5e8"], capsys)["per_gpu"]["breakdown_bytes"]["gathered_layers"]
    assert longer > base + 4 * 2**30
    assert bucket - base == pytest.approx(2 * (5e8 - 4096 * 4096), rel=1e-6)
    assert "has no auto value" in _error(pythia + ["--zero3-max-live-params", "auto"], capsys)
    with pytest.raises(SystemExit) as stop:
        main(["estimate", "memory"] + pythia + ["--zero3-prefetch-bucket", "lots"])
    assert stop.value.code == 2 and "not a number of elements" in capsys.readouterr().err
    assert "--zero3-reduce-bucket:" in _error(["--model", "llama-3-8b", "--mode", "train", "--sharding", "zero2",
                                               "--gpus", "2", "--zero3-reduce-bucket", "1e6"], capsys)


@pytest.mark.parametrize("flag, value", [("--zero3-max-live-params", "1e9"), ("--zero3-max-reuse-distance", "1e9"),
                                         ("--zero3-prefetch-bucket", "auto"), ("--zero3-reduce-bucket", "auto")])
def test_zero3_flag_at_its_default_is_still_refused_outside_zero3(flag: str, value: str,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    # DeepSpeed's own default (1e9) or auto typed under ZeRO-2 was silently ignored: the user believed it applied.
    err = _error(["--model", "llama-3-8b", "--mode", "train", "--sharding", "zero2", "--gpus", "2", flag, value], capsys)
    assert f"{flag}:" in err and "sharding zero3" in err
    assert _json(["--model", "llama-3-8b", "--mode", "train", "--sharding", "zero3", "--gpus", "2", flag, value],
                 capsys)["per_gpu"]["breakdown_bytes"]["gathered_layers"] > 0


def test_inference_gpus_default_to_the_split_and_refuse_fewer(capsys: pytest.CaptureFixture[str]) -> None:
    llama = ["--config", str(CONFIGS / "llama-2-13b.config.json"), "--mode", "inference"]
    # --pp 4 alone is read as 4 GPUs: the error band is the multi-GPU class, not "1 GPU".
    assert _json(llama + ["--pp", "4"], capsys)["error_band"]["class"].startswith("inference, 2+")
    err = _error(llama + ["--pp", "4", "--gpus", "2"], capsys)
    assert "--gpus:" in err and "--gpus 4 or more" in err
    assert "--gpus 8 or more" in _error(llama + ["--tp", "2", "--pp", "4", "--gpus", "4"], capsys)


def test_training_pp_reads_the_gpus_from_the_split(capsys: pytest.CaptureFixture[str]) -> None:
    # --pp 4 without --gpus was 1 GPU ("4 does not divide the 1 GPUs left"); now 4, and the default micro-batches
    # (one per stage) ask for a batch that splits.
    llama = ["--config", str(CONFIGS / "llama-2-13b.config.json"), "--mode", "train", "--pp", "4"]
    assert "a multiple of 4" in _error(llama, capsys)
    assert _json(llama + ["--batch", "4"], capsys)["per_gpu"]["gpus"] == 4


def test_zero3_assumption_names_the_settings_it_used(capsys: pytest.CaptureFixture[str]) -> None:
    # The gathered-layers figure moved with the ZeRO-3 flags but no line said which values it used.
    args = ["--config", str(CONFIGS / "llama-2-13b.config.json"), "--mode", "train", "--sharding", "zero3",
            "--gpus", "8", "--zero3-reduce-bucket", "5e8"]
    per_gpu = _json(args, capsys)["per_gpu"]
    note = next(a["assumption"] for a in per_gpu["assumptions"] if a["assumption"].startswith("DeepSpeed ZeRO-3 gathers"))
    assert "reduce bucket 500,000,000 elements" in note and "prefetch bucket 23,592,960" in note  # 0.9 x 5120^2
    assert f"{per_gpu['breakdown_bytes']['gathered_layers'] / 2**30:.2f} GiB" in note
    zero2 = _json(args[:5] + ["zero2", "--gpus", "8"], capsys)["per_gpu"]["assumptions"]
    assert not any(a["assumption"].startswith("DeepSpeed ZeRO-3 gathers") for a in zero2)


def test_zero3_flags_apply_to_lora_and_not_qlora(capsys: pytest.CaptureFixture[str]) -> None:
    # PEFT issue 779: bloomz-7b1 LoRA under ZeRO-3 with offload; the frozen base is gathered by DeepSpeed's coordinator.
    bloomz = ["--config", str(CONFIGS / "bloomz-7b1.config.json"), "--precision", "fp32", "--gpus", "6",
              "--sharding", "zero3", "--offload", "all", "--seq", "64", "--batch", "8", "--lora-rank", "8",
              "--lora-targets", "query_key_value", "--no-flash"]
    base = _json(bloomz + ["--mode", "lora"], capsys)["per_gpu"]["breakdown_bytes"]["gathered_layers"]
    bucket = _json(bloomz + ["--mode", "lora", "--zero3-reduce-bucket", "5e8"],
                   capsys)["per_gpu"]["breakdown_bytes"]["gathered_layers"]
    assert bucket - base == pytest.approx(4 * (5e8 - 4096 * 4096), rel=1e-6)
    err = _error(bloomz[:2] + ["--mode", "qlora", "--gpus", "6", "--sharding", "zero3", "--zero3-reduce-bucket", "5e8"],
                 capsys)
    assert "--zero3-reduce-bucket:" in err


def test_fsdp_gathered_layers_are_not_labelled_zero3_only(capsys: pytest.CaptureFixture[str]) -> None:
    # --sharding fsdp printed its all-gathered layers as "Gathered layers (ZeRO-3)" (QA pass): FSDP gathers alike,
    # and the label stays short enough for the preview's legend column.
    assert main(["estimate", "memory", "--config", str(CONFIGS / "llama-3.2-1b.config.json"), "--mode", "train",
                 "--sharding", "fsdp", "--gpus", "8", "--seq", "2048", "--batch", "4"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("Gathered layers"))
    assert "ZeRO-3" not in row
