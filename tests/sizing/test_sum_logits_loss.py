"""--loss sum-16bit: ``outputs.logits.sum()`` over 16-bit logits kept through backward (the transformers SDPA
training micro-benchmarks)."""

import json

from gpudesk.cli import main
from gpudesk.sizing.activations import LOSS_MODES, loss_logits_bytes
from gpudesk.sizing.validation import default_cases_path, evaluate_case

FIXTURES = default_cases_path().parent
CONFIGS = FIXTURES / "configs"


def _rows(name: str, prefix: str) -> list[dict]:
    lines = (FIXTURES / name).read_text().splitlines()
    return [row for row in map(json.loads, lines) if row["id"].startswith(prefix)]


def test_four_bytes_a_logit():
    assert "sum-16bit" in LOSS_MODES
    tokens_vocab = 512 * 16 * 30522
    assert loss_logits_bytes(512, 16, 30522, 768, "sum-16bit") == 4 * tokens_vocab
    assert loss_logits_bytes(512, 16, 30522, 768, "sum-16bit") == 2 * loss_logits_bytes(512, 16, 30522, 768,
                                                                                         "inplace-16bit")
    assert loss_logits_bytes(512, 16, 30522, 768, "sum-16bit", tensor_parallel=2) == 2 * tokens_vocab


def test_bert_doc_table_with_the_head_and_the_summed_logits():
    """bert-base with its LM head, fp16, loss = logits.sum(): every row within 7 % (0.72-0.85 as typed)."""
    rows = _rows("measured_peaks_fresh32.jsonl", "fresh32-hfdoc-bert-base-train-")
    assert len(rows) == 10
    for row in rows:
        ratio = evaluate_case({**row, "encoder_lm_head": True, "loss": "sum-16bit"}, CONFIGS).ratio
        assert 0.93 <= ratio <= 1.0, (row["id"], ratio)


def test_biogpt_and_opt_sdpa_rows_stay_within_the_band():
    """The decoder rows of the same benchmark family that read within 15 % as typed stay there."""
    rows = (_rows("measured_peaks_fresh29.jsonl", "fresh29-hfdoc-biogpt-train-")
            + [r for r in _rows("measured_peaks_fresh29.jsonl", "fresh29-hfpr33298-opt-350m-train-sdpa")])
    assert len(rows) == 9
    for row in rows:
        before = evaluate_case(row, CONFIGS).ratio
        after = evaluate_case({**row, "loss": "sum-16bit"}, CONFIGS).ratio
        assert after >= before
        assert abs(after - 1) <= 0.15, (row["id"], after)


def test_cli_choice(capsys):
    args = ["estimate", "memory", "--config", str(CONFIGS / "bert-base-uncased.config.json"), "--mode", "train",
            "--precision", "bf16-pure", "--optimizer", "sgd_plain", "--batch", "16", "--seq", "512",
            "--encoder-lm-head", "--json", "--loss"]
    assert main(args + ["inplace-16bit"]) == 0
    inplace = json.loads(capsys.readouterr().out)["per_gpu"]["breakdown_bytes"]["logits"]
    assert main(args + ["sum-16bit"]) == 0
    summed = json.loads(capsys.readouterr().out)["per_gpu"]["breakdown_bytes"]["logits"]
    assert summed == 2 * inplace == 4 * 16 * 512 * 30522
