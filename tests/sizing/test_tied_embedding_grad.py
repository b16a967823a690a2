"""The input embedding's dense gradient beside the tied LM head's at the end of backward
(gpudesk.sizing.tied_embedding_grad)."""

import json

from gpudesk.sizing.memory import MemoryWorkload, estimate_memory
from gpudesk.sizing.shapes import spec_from_hf_config
from gpudesk.sizing.tied_embedding_grad import tied_embedding_grad_bytes
from gpudesk.sizing.validation import default_cases_path, evaluate_case

FIXTURES = default_cases_path().parent
CONFIGS = FIXTURES / "configs"
QWEN = spec_from_hf_config(CONFIGS / "qwen3-0.6b.config.json")
QWEN_UNTIED = spec_from_hf_config(CONFIGS / "qwen3-0.6b-untied.config.json")
BERT = spec_from_hf_config(CONFIGS / "bert-base-uncased.config.json")
# Short sequences and an 8-bit optimizer: the end of backward (all gradients) is the peak.
SMALL = dict(mode="train", precision="fp32", optimizer="adamw_8bit", seq_len_tokens=128, micro_batch_size=2)


def _rows(name: str, prefix: str) -> list[dict]:
    lines = (FIXTURES / name).read_text().splitlines()
    return [row for row in map(json.loads, lines) if row["id"].startswith(prefix)]


def test_one_vocabulary_matrix_in_the_gradient_dtype():
    assert QWEN.tied_embeddings and not QWEN_UNTIED.tied_embeddings
    v, h = QWEN.vocab_size, QWEN.hidden_size
    assert tied_embedding_grad_bytes(QWEN, 4.0) == v * h * 4
    assert tied_embedding_grad_bytes(QWEN, 2.0, tensor_parallel=2) == v * h
    assert tied_embedding_grad_bytes(QWEN_UNTIED, 4.0) == 0.0
    # An encoder without its MLM head never runs the tied decoder.
    assert tied_embedding_grad_bytes(BERT, 2.0, vocabulary_head=False) == 0.0


def test_end_of_backward_counts_it_for_a_tied_model_only():
    tied = estimate_memory(QWEN, MemoryWorkload(**SMALL))
    untied = estimate_memory(QWEN_UNTIED, MemoryWorkload(**SMALL))
    v, h = QWEN.vocab_size, QWEN.hidden_size
    assert tied.breakdown.get("activations", 0) == 0  # the end of backward is the peak
    assert tied.breakdown["gradients"] == QWEN.params * 4 + v * h * 4
    assert untied.breakdown["gradients"] == QWEN_UNTIED.params * 4
    assert any("tied embedding" in text for text, _source in tied.assumptions)
    assert not any("tied embedding" in text for text, _source in untied.assumptions)


def test_not_counted_under_sharded_gradients():
    fsdp = estimate_memory(QWEN, MemoryWorkload(**SMALL, gpus=4, sharding="fsdp"))
    assert not any("tied embedding" in text for text, _source in fsdp.assumptions)


def test_bitsandbytes_optimizer_benchmark_rows():
    """bitsandbytes' optimizer benchmark, Qwen3-0.6B (tied) in fp32 at 2 x 128 tokens: the 8-bit and paged rows read
    0.76-0.80 without the second embedding gradient, 0.86-0.88 with it."""
    rows = [r for r in _rows("measured_peaks_fresh19.jsonl", "fresh19-bnb-optbench-qwen3-0.6b-fp32-")
            if "8bit" in r["id"] or "paged" in r["id"]]
    assert len(rows) == 3
    for row in rows:
        assert 0.85 <= evaluate_case(row, CONFIGS).ratio <= 0.90


def test_encoder_mlm_head_runs_the_tied_decoder():
    base = dict(mode="train", precision="bf16-pure", optimizer="sgd_plain", seq_len_tokens=128, micro_batch_size=1,
                loss="sum-16bit")
    plain = estimate_memory(BERT, MemoryWorkload(**base))
    head = estimate_memory(BERT, MemoryWorkload(**base, encoder_lm_head=True))
    assert head.breakdown["gradients"] - plain.breakdown["gradients"] == BERT.vocab_size * BERT.hidden_size * 2
