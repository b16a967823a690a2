"""--loss vocab-chunked / --loss-vocab-chunk: the output layer and loss walked over the vocabulary a chunk of columns
at a time (prime-rl's RL ``FusedOutputLinear``), one [tokens x chunk] block live at 22 bytes an element."""

import json

import pytest

from conftest import FIXTURES
from gpudesk.cli import main
from gpudesk.planner.requirement import ModelMemory, Requirement
from gpudesk.planner.workload import memory_workload
from gpudesk.sizing import MemoryWorkload, SizingError, estimate_memory, spec_from_hf_config
from gpudesk.sizing.activations import loss_logits_bytes
from gpudesk.sizing.validation import UNIT_BYTES, case_workload, load_cases

SIZING = FIXTURES / "sizing"
CONFIG = SIZING / "configs" / "qwen3-0.6b.config.json"
SPEC = spec_from_hf_config(CONFIG)


def test_one_chunk_of_the_vocabulary_is_live_whatever_the_hidden_size():
    assert loss_logits_bytes(65536, 1, 151936, 1024, "vocab-chunked") == 22 * 65536 * 2048
    assert loss_logits_bytes(65536, 1, 151936, 2560, "vocab-chunked") == 22 * 65536 * 2048
    assert loss_logits_bytes(65536, 2, 151936, 1024, "vocab-chunked", vocab_chunk_columns=4096) == 22 * 131072 * 4096
    # A chunk wider than the vocabulary (or its tensor-parallel share) is the whole vocabulary.
    assert loss_logits_bytes(16, 1, 1000, 64, "vocab-chunked", tensor_parallel=2) == 22 * 16 * 500


def test_prime_rl_rl_rows_with_the_chunk_walk():
    # prime-rl b798a90d: RL sets fused_lm_head_chunk_size "auto" to 2048; the rows type Liger's fused loss.
    # LoRA rows also need the fp32 base (--base-weights fp32), which the rows do not type either.
    rows = [c for c in load_cases(SIZING / "measured_peaks_fresh24.jsonl") if c["id"].startswith("fresh24-primerl-")
            and "-rl-" in c["id"]]
    assert len(rows) == 11
    for row in rows:
        spec = spec_from_hf_config(SIZING / "configs" / f"{row['config']}.config.json")
        measured = row["value"] * UNIT_BYTES[row["unit"]]
        typed = {**row, "loss": "vocab-chunked"}
        if row["method"] == "lora":
            typed["base_weights"] = "fp32"
        ratio = estimate_memory(spec, case_workload(typed)).reserved_bytes / measured
        assert 0.85 <= ratio <= 1.15, (row["id"], ratio)


def test_the_chunk_needs_its_loss():
    with pytest.raises(SizingError) as err:
        estimate_memory(SPEC, MemoryWorkload(mode="train", loss="standard", loss_vocab_chunk=4096))
    assert err.value.field == "loss_vocab_chunk"
    with pytest.raises(SizingError) as err:
        estimate_memory(SPEC, MemoryWorkload(mode="train", loss="vocab-chunked", loss_vocab_chunk=0))
    assert err.value.field == "loss_vocab_chunk"


def test_cli_and_wizard(capsys):
    flags = ["estimate", "memory", "--config", str(CONFIG), "--mode", "train", "--seq", "65536", "--recompute", "full",
             "--loss", "vocab-chunked", "--json"]
    assert main(flags + ["--loss-vocab-chunk", "1024"]) == 0
    logits = json.loads(capsys.readouterr().out)["per_gpu"]["breakdown_bytes"]["logits"]
    assert logits == 22 * 65536 * 1024
    assert main(flags[:-3] + ["--loss-vocab-chunk", "1024"]) != 0
    assert "--loss-vocab-chunk" in capsys.readouterr().err
    w = memory_workload(Requirement(model=ModelMemory(mode="train", loss="vocab-chunked", loss_vocab_chunk=512)))
    assert (w.loss, w.loss_vocab_chunk) == ("vocab-chunked", 512)
