"""--encoder-lm-head: an encoder trained with its masked-language-model head over every position."""

import json

import pytest

from gpudesk.cli import main
from gpudesk.sizing.encoder_lm_head import check_encoder_lm_head, encoder_lm_head_transform_bytes
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.memory import MemoryWorkload, estimate_memory
from gpudesk.sizing.shapes import spec_from_hf_config
from gpudesk.sizing.validation import default_cases_path, evaluate_case

FIXTURES = default_cases_path().parent
CONFIGS = FIXTURES / "configs"
BERT = spec_from_hf_config(CONFIGS / "bert-base-uncased.config.json")
LLAMA = spec_from_hf_config(CONFIGS / "llama-2-7b.config.json")
BASE = dict(mode="train", precision="bf16-pure", optimizer="sgd_plain", seq_len_tokens=512, micro_batch_size=16,
            recompute="none", loss="inplace-16bit")


def _rows(name: str, prefix: str) -> list[dict]:
    lines = (FIXTURES / name).read_text().splitlines()
    return [row for row in map(json.loads, lines) if row["id"].startswith(prefix)]


def test_transform_bytes_are_four_hidden_tensors():
    assert encoder_lm_head_transform_bytes(512, 16, 768) == 4 * 2 * 512 * 16 * 768
    assert encoder_lm_head_transform_bytes(512, 16, 768, activation_bytes=4.0) == 4 * 4 * 512 * 16 * 768


def test_the_head_adds_the_vocabulary_logits_and_the_transform():
    off = estimate_memory(BERT, MemoryWorkload(**BASE))
    on = estimate_memory(BERT, MemoryWorkload(**BASE, encoder_lm_head=True))
    tokens = 512 * 16
    assert off.breakdown.get("logits", 0) == 0
    # inplace-16bit keeps 2 bytes a logit over the 30,522-word vocabulary.
    assert on.breakdown["logits"] == 2 * tokens * 30522
    assert on.breakdown["activations"] - off.breakdown["activations"] == 4 * 2 * tokens * 768
    assert any("encoder LM head" in text for text, _source in on.assumptions)
    assert not any("encoder LM head" in text for text, _source in off.assumptions)


def test_refused_for_a_decoder_whose_head_is_always_counted():
    with pytest.raises(SizingError) as err:
        estimate_memory(LLAMA, MemoryWorkload(**BASE, encoder_lm_head=True))
    assert err.value.field == "encoder_lm_head"
    check_encoder_lm_head("encoder", True)
    check_encoder_lm_head("decoder", False)


def test_bert_mlm_doc_table_rows_with_the_head():
    """transformers' BERT SDPA training table (bert-base with its LM head, fp16, no optimizer): without the head
    every row reads 0.72-0.85; with it 0.85-0.93."""
    rows = _rows("measured_peaks_fresh32.jsonl", "fresh32-hfdoc-bert-base-train-")
    assert len(rows) == 10
    for row in rows:
        before = evaluate_case(row, CONFIGS).ratio
        after = evaluate_case({**row, "encoder_lm_head": True}, CONFIGS).ratio
        assert before < 0.85
        assert 0.85 <= after <= 0.93
        assert after > before


def test_classifier_rows_keep_their_estimate():
    """FlagPerf DistilBERT on SST-2 (a 2-way classifier head): the setting is off and nothing changes."""
    for row in _rows("measured_peaks_fresh32.jsonl", "fresh32-flagperf-distilbert-sst2-"):
        assert 0.95 <= evaluate_case(row, CONFIGS).ratio <= 1.05


def test_cli_flag(capsys):
    args = ["estimate", "memory", "--config", str(CONFIGS / "bert-base-uncased.config.json"), "--mode", "train",
            "--precision", "bf16-pure", "--optimizer", "sgd_plain", "--batch", "16", "--seq", "512",
            "--loss", "inplace-16bit", "--json"]
    assert main(args) == 0
    off = json.loads(capsys.readouterr().out)
    assert main(args + ["--encoder-lm-head"]) == 0
    on = json.loads(capsys.readouterr().out)
    assert on["per_gpu"]["breakdown_bytes"]["logits"] == 2 * 16 * 512 * 30522
    assert on["per_gpu"]["total_bytes"] > off["per_gpu"]["total_bytes"]
    llama = ["estimate", "memory", "--config", str(CONFIGS / "llama-2-7b.config.json"), "--mode", "train",
             "--encoder-lm-head"]
    assert main(llama) != 0
    assert "--encoder-lm-head" in capsys.readouterr().err
