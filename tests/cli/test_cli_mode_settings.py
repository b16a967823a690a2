"""A flag that the chosen ``--mode`` never reads is refused, naming the flag and the modes it applies to (QA
found ``estimate memory`` dropping them silently: an optimizer for inference, a KV-cache layout for training,
bitsandbytes double quantisation for LoRA on a 16-bit base)."""

from __future__ import annotations

import json

import pytest

from gpudesk.cli import main

MEMORY = ["estimate", "memory", "--model", "llama-3-8b"]


def _error(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    status = main(MEMORY + args)
    err = capsys.readouterr().err
    assert status in (1, 2) and "Traceback" not in err, err
    return err


@pytest.mark.parametrize(("args", "flag", "modes"), [
    (["--mode", "inference", "--optimizer", "paged_adamw_8bit"], "--optimizer", "train, lora, qlora"),
    (["--mode", "inference", "--lora-rank", "64"], "--lora-rank", "lora, qlora"),
    (["--mode", "inference", "--sharding", "zero3", "--gpus", "2"], "--sharding", "train, lora, qlora"),
    (["--mode", "train", "--no-double-quant"], "--no-double-quant", "qlora"),
    (["--mode", "train", "--legacy-bnb-matmul"], "--legacy-bnb-matmul", "qlora"),
    (["--mode", "train", "--recompute", "full", "--non-reentrant-checkpoint"], "--non-reentrant-checkpoint",
     "lora, qlora"),
    (["--mode", "train", "--kv-precision", "fp8"], "--kv-precision", "inference"),
    (["--mode", "train", "--kv-cache-impl", "static"], "--kv-cache-impl", "inference"),
    (["--mode", "lora", "--no-double-quant"], "--no-double-quant", "qlora"),
    (["--mode", "lora", "--optimizer-in-backward"], "--optimizer-in-backward", "train"),
])
def test_a_flag_the_mode_ignores_is_refused(args: list[str], flag: str, modes: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    err = _error(args, capsys)
    assert f"{flag}:" in err, err
    assert f"mode {modes} only" in err, err


def test_qlora_with_a_weight_format_is_not_told_to_use_qlora(capsys: pytest.CaptureFixture[str]) -> None:
    err = _error(["--mode", "qlora", "--weight-format", "int8"], capsys)
    assert "--weight-format" in err and "use --mode qlora" not in err and "NF4" in err, err


def test_flags_at_their_defaults_and_flags_the_mode_reads_pass(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(MEMORY + ["--mode", "inference", "--optimizer", "adam-18", "--kv-precision", "fp8"]) == 0
    assert main(MEMORY + ["--mode", "qlora", "--no-double-quant", "--legacy-bnb-matmul", "--lora-rank", "8"]) == 0
    capsys.readouterr()


def test_non_reentrant_checkpoint_needs_whole_layer_recompute_and_names_what_it_keeps(
        capsys: pytest.CaptureFixture[str]) -> None:
    err = _error(["--mode", "qlora", "--legacy-bnb-matmul", "--recompute", "none", "--non-reentrant-checkpoint"],
                 capsys)
    assert "--non-reentrant-checkpoint" in err and "recompute full" in err, err
    assert main(MEMORY + ["--mode", "qlora", "--legacy-bnb-matmul", "--recompute", "full",
                          "--non-reentrant-checkpoint"]) == 0
    assert "non-reentrant checkpointing keeps each layer's quantised-Linear inputs" in capsys.readouterr().out


def test_non_reentrant_checkpoint_without_a_bitsandbytes_base_is_acknowledged(capsys: pytest.CaptureFixture[str]) -> None:
    """A 16-bit LoRA base keeps nothing on the autograd context: the flag changes no figure, and the answer says it
    was read (before, it was accepted without a word)."""
    args = MEMORY + ["--mode", "lora", "--recompute", "full", "--json"]
    assert main(args) == 0
    plain = json.loads(capsys.readouterr().out)["per_gpu"]
    assert main(args + ["--non-reentrant-checkpoint"]) == 0
    flagged = json.loads(capsys.readouterr().out)["per_gpu"]
    assert flagged["total_bytes"] == plain["total_bytes"]
    added = [a["assumption"] for a in flagged["assumptions"] if a not in plain["assumptions"]]
    assert len(added) == 1 and added[0].startswith("non-reentrant checkpointing: this base keeps no Linear inputs")
