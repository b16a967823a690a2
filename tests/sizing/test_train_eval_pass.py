"""An evaluation pass inside a LoRA/QLoRA Trainer run (gpudesk.sizing.train_eval_pass), on the fresh-73 Hinglish
QLoRA rows (DrishtiShrrrma/mixtral-8x7b-vs-mistral-vs-llama2-english-to-hinglish-translation @ b592d262)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import FIXTURES
from gpudesk.cli import main
from gpudesk.sizing import spec_from_hf_config
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.memory import MemoryWorkload, estimate_memory
from gpudesk.sizing.train_eval_pass import check_eval_batch, eval_pass_bytes, split_eval_pass
from gpudesk.sizing.validation import case_workload, evaluate_case, load_cases

GIB = 2**30
SIZING = FIXTURES / "sizing"
CONFIGS = SIZING / "configs"
ROWS = {c["id"]: c for c in load_cases(SIZING / "measured_peaks_fresh73.jsonl") if c["method"] == "qlora"}
LLAMA2_ROW = ROWS["fresh73-hinglish-qlora-llama-2-7b-r64-attn-a100"]


def _spec(row: dict):
    return spec_from_hf_config(CONFIGS / f"{row['config']}.config.json")


def test_llama2_eval_cache_is_fp32_keys_and_values_of_every_layer():
    # 8 x 2048 tokens x 32 layers x (K + V) x 4096 x 4 bytes = 16 GiB; logits 3 x 4 B x 16384 x 32000.
    kv, logits = eval_pass_bytes(_spec(LLAMA2_ROW), 8, 2048, 4)
    assert kv == 8 * 2048 * 32 * 2 * 4096 * 4 == 16 * GIB
    assert logits == 3 * 4 * 8 * 2048 * 32000
    assert eval_pass_bytes(_spec(LLAMA2_ROW), 8, 2048, 4, kv_cache=False)[0] == 0.0
    # Mistral-7B's 8 KV heads cache a quarter of it.
    mistral = ROWS["fresh73-hinglish-qlora-mistral-7b-r64-all-linear-a100"]
    assert eval_pass_bytes(_spec(mistral), 8, 2048, 4)[0] == 4 * GIB


def test_split_allocated_is_the_larger_pass_reserved_keeps_both():
    assert split_eval_pass(10.0, 4.0) == (6.0, 4.0)
    assert split_eval_pass(3.0, 4.0) == (0.0, 3.0)


@pytest.mark.parametrize("row_id", sorted(ROWS))
def test_hinglish_rows_move_toward_the_printed_reserved_peak(row_id):
    row = ROWS[row_id]
    measured = row["value"] * GIB
    w = case_workload(row)
    assert w.eval_batch == 8
    with_eval = estimate_memory(_spec(row), w)
    without = estimate_memory(_spec(row), replace(w, eval_batch=0))
    assert abs(with_eval.reserved_bytes / measured - 1) < abs(without.reserved_bytes / measured - 1)
    assert with_eval.reserved_bytes <= measured  # nothing here is larger than the run printed
    # The training blocks stay cached: reserved grows by the whole eval pass, allocated only by what exceeds training.
    extra = with_eval.breakdown["eval_pass"] + with_eval.breakdown.get("eval_pass_cache", 0)
    assert with_eval.allocated_bytes - without.allocated_bytes == pytest.approx(with_eval.breakdown["eval_pass"], abs=2)
    assert with_eval.reserved_bytes - without.reserved_bytes >= extra


def test_phi2_and_mistral_rows_within_15_percent():
    for row_id in ("fresh73-hinglish-qlora-phi-2-r64-all-linear-a100",
                   "fresh73-hinglish-qlora-mistral-7b-r64-all-linear-a100"):
        row = ROWS[row_id]
        est = estimate_memory(_spec(row), case_workload(row))
        assert abs(est.reserved_bytes / (row["value"] * GIB) - 1) <= 0.15


def test_kv_width_follows_the_residual_dtype():
    # A 16-bit LoRA base writes 16-bit K and V; QLoRA over fp32 norms writes fp32 (Linear4bit returns its input dtype).
    spec = _spec(LLAMA2_ROW)
    base = dict(precision="fp16-amp", seq_len_tokens=2048, micro_batch_size=2, recompute="full", lora_rank=64,
                eval_batch=8)
    qlora = estimate_memory(spec, MemoryWorkload(mode="qlora", kbit_fp32_upcast=True, **base))
    lora = estimate_memory(spec, MemoryWorkload(mode="lora", kbit_fp32_upcast=True, **base))
    qlora_eval = qlora.breakdown["eval_pass"] + qlora.breakdown.get("eval_pass_cache", 0)
    lora_eval = lora.breakdown["eval_pass"] + lora.breakdown.get("eval_pass_cache", 0)
    assert qlora_eval - lora_eval == pytest.approx(8 * GIB, abs=2)


@pytest.mark.parametrize("bad", [-1, True, 1.5, "8"])
def test_eval_batch_refused_by_name(bad):
    with pytest.raises(SizingError) as err:
        check_eval_batch(bad)
    assert err.value.field == "eval_batch"


def test_eval_batch_refused_for_full_training():
    with pytest.raises(SizingError) as err:
        estimate_memory(_spec(LLAMA2_ROW), MemoryWorkload(mode="train", eval_batch=8))
    assert err.value.field == "eval_batch"


def _json(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(["estimate", "memory", "--json"] + args) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_flags(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--config", str(Path(CONFIGS / "llama-2-7b.config.json")), "--mode", "qlora", "--precision", "fp16-amp",
            "--seq", "2048", "--batch", "2", "--recompute", "full", "--lora-rank", "64", "--lora-targets",
            "q_proj,k_proj,v_proj,o_proj", "--kbit-fp32-upcast", "--legacy-bnb-matmul", "--no-double-quant"]
    plain = _json(args, capsys)["per_gpu"]["breakdown_bytes"]
    evals = _json(args + ["--eval-batch", "8"], capsys)["per_gpu"]["breakdown_bytes"]
    no_cache = _json(args + ["--eval-batch", "8", "--eval-no-cache"], capsys)["per_gpu"]["breakdown_bytes"]
    assert "eval_pass" not in plain
    # The row, typed as these flags, gives the harness's figure (the accuracy shown is the one a user gets).
    typed = _json(args + ["--eval-batch", "8", "--grad-accum", "2"], capsys)["per_gpu"]["reserved_bytes"]
    assert typed == evaluate_case(LLAMA2_ROW, CONFIGS).estimated_bytes
    assert evals["eval_pass"] + evals.get("eval_pass_cache", 0) > 21 * GIB
    assert (evals["eval_pass"] + evals.get("eval_pass_cache", 0)
            - no_cache["eval_pass"] - no_cache.get("eval_pass_cache", 0)) == pytest.approx(16 * GIB, abs=4)
    status = main(["estimate", "memory"] + args + ["--eval-batch", "-1"])
    err = capsys.readouterr().err
    assert status in (1, 2) and "--eval-batch" in err and "Traceback" not in err


# fresh-80 Klara-Ana rows (ana8413/Klara-Ana_Lab2 @ aeb98470, Unsloth 2025.11.6 on a T4): Unsloth trains with its
# fused linear cross-entropy and evaluates with 16-bit logits (unsloth_prediction_step sets UNSLOTH_RETURN_LOGITS=1).
KLARA = {c["id"]: c for c in load_cases(SIZING / "measured_peaks_fresh80.jsonl") if "klaraana" in c["id"]}
KLARA_B = KLARA["fresh80-klaraana-unsloth2511-qlora-llama-3.2-3b-modelB-b4-eval8-t4"]


def test_eval_logits_follow_the_loss_and_never_exceed_three_fp32_copies():
    spec = _spec(KLARA_B)
    tokens = 8 * 2048
    standard = eval_pass_bytes(spec, 8, 2048, 2)[1]
    assert standard == 3 * 4 * tokens * 128256
    # Unsloth's Triton cross-entropy reads the 16-bit logits and writes a logsumexp a row: 2 bytes a logit.
    assert eval_pass_bytes(spec, 8, 2048, 2, loss="inplace-16bit")[1] == 2 * tokens * 128256
    # A fused linear cross-entropy never holds the logits whole: 10 bytes a hidden element (activations.py).
    assert eval_pass_bytes(spec, 8, 2048, 2, loss="fused")[1] == 10 * tokens * 3072
    # standard-kept costs 16 bytes a logit in training (the loop holds the returned logits through backward);
    # evaluation writes no gradient, so it stays at the three copies.
    assert eval_pass_bytes(spec, 8, 2048, 2, loss="standard-kept")[1] == standard


def test_klara_ana_rows_move_toward_the_printed_peak():
    for row in KLARA.values():
        measured = row["value"] * GIB
        est = evaluate_case(row, CONFIGS).estimated_bytes
        if not row.get("eval_batch"):
            assert abs(est / measured - 1) <= 0.15
            continue
        old = estimate_memory(_spec(row), replace(case_workload(row), eval_loss="standard", loss="inplace-16bit"))
        assert abs(est / measured - 1) < 0.4 < abs(old.reserved_bytes / measured - 1)


def test_cli_eval_loss_flag(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--config", str(CONFIGS / "llama-3.2-3b.config.json"), "--mode", "qlora", "--precision", "fp16",
            "--optimizer", "adamw_8bit", "--seq", "2048", "--batch", "4", "--grad-accum", "4", "--lora-rank", "16",
            "--lora-targets", "all-linear", "--lora-dropout", "0", "--recompute", "full", "--activation-offload",
            "--loss", "fused", "--eval-batch", "8"]
    same = _json(args, capsys)["per_gpu"]
    typed = _json(args + ["--eval-loss", "inplace-16bit"], capsys)["per_gpu"]
    assert typed["reserved_bytes"] == evaluate_case(KLARA_B, CONFIGS).estimated_bytes
    assert typed["breakdown_bytes"]["eval_pass"] > same["breakdown_bytes"]["eval_pass"] + 3 * GIB
    with pytest.raises(SystemExit) as exit_:
        main(["estimate", "memory"] + args + ["--eval-loss", "nope"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "--eval-loss" in err and "Traceback" not in err
