"""``gpudesk estimate memory``: the loss (and its vocabulary chunk) named among the assumptions, text and --json; a
chunk given without the loss that reads it refused, even at the default's value; a chunk wider than the vocabulary
counted as the whole vocabulary; and the sharding the user chose named as chosen (fsdp, zero3), not the ZeRO stage it
is counted as."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from gpudesk.cli import main
from gpudesk.sizing.activations import DEFAULT_VOCAB_CHUNK_COLUMNS, loss_logits_bytes

BASE = ["estimate", "memory", "--model", "llama-3-8b"]


def _run(args: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(BASE + args) == 0
    return out.getvalue()


def _assumptions(args: list[str]) -> list[str]:
    return [a["assumption"] for a in json.loads(_run(args + ["--json"]))["per_gpu"]["assumptions"]]


def test_loss_named_in_text_and_json():
    assert "loss standard" in _assumptions(["--mode", "train"])
    assert "  - loss standard-16bit [" in _run(["--mode", "train", "--loss", "standard-16bit"])
    assert "loss vocab-chunked, 4096 vocabulary columns a chunk" in _assumptions(
        ["--mode", "lora", "--loss", "vocab-chunked", "--loss-vocab-chunk", "4096"])
    assert f"loss vocab-chunked, {DEFAULT_VOCAB_CHUNK_COLUMNS} vocabulary columns a chunk" in _assumptions(
        ["--mode", "train", "--loss", "vocab-chunked"])


def test_chunk_wider_than_the_vocabulary_is_the_whole_vocabulary():
    # Llama 3's 128,256 columns, 64,128 a GPU under tensor parallel 2.
    assert (loss_logits_bytes(2048, 1, 128256, 4096, "vocab-chunked", vocab_chunk_columns=1_000_000)
            == loss_logits_bytes(2048, 1, 128256, 4096, "vocab-chunked", vocab_chunk_columns=128256))
    notes = _assumptions(["--mode", "train", "--gpus", "2", "--tp", "2", "--loss", "vocab-chunked",
                          "--loss-vocab-chunk", "1000000"])
    assert "loss vocab-chunked, one chunk of the whole vocabulary (64128 columns a GPU; 1000000 given)" in notes


@pytest.mark.parametrize("loss", ["standard", "fused"])
def test_explicit_chunk_with_another_loss_is_refused_even_at_the_default(loss, capsys):
    status = main(BASE + ["--mode", "train", "--loss", loss, "--loss-vocab-chunk", str(DEFAULT_VOCAB_CHUNK_COLUMNS)])
    err = capsys.readouterr().err
    assert status in (1, 2) and "--loss-vocab-chunk" in err and "vocab-chunked" in err, err


def test_help_names_the_default_chunk_from_the_constant(capsys):
    with pytest.raises(SystemExit):
        main(["estimate", "memory", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert f"(default {DEFAULT_VOCAB_CHUNK_COLUMNS}, prime-rl's RL trainer)" in help_text


def test_the_users_sharding_is_named():
    notes = _assumptions(["--mode", "train", "--gpus", "8", "--sharding", "fsdp"])
    assert "fsdp over 8 data-parallel GPUs, offload off" in notes
    assert not any(n.startswith("zero3 over") for n in notes)
    notes = _assumptions(["--mode", "lora", "--gpus", "8", "--sharding", "zero3", "--base-weights", "fp32"])
    assert any("zero3 mixed precision gathers each unit" in n for n in notes)
    assert not any("FSDP mixed precision" in n for n in notes)
    notes = _assumptions(["--mode", "lora", "--gpus", "8", "--sharding", "fsdp", "--base-weights", "fp32"])
    assert "frozen base fsdp over 8 GPU(s), offload off" in notes
    assert any("fsdp mixed precision gathers each unit" in n for n in notes)


def test_one_data_parallel_gpu_is_singular():
    """qa16: "over 1 data-parallel GPUs" read as a slip; the count picks the form (gpudesk.i18n.ngettext)."""
    notes = _assumptions(["--mode", "train", "--gpus", "1", "--sharding", "zero2"])
    assert any(" over 1 data-parallel GPU, offload" in n for n in notes), notes
    assert not any("1 data-parallel GPUs" in n for n in notes)
