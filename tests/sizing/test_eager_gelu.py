"""--unfused-gelu: transformers' op-by-op tanh GELU (gelu_new) saves three more MLP-wide tensors a layer."""

import json

from conftest import FIXTURES
from gpudesk.cli import main
from gpudesk.sizing import MemoryWorkload, estimate_memory, spec_from_hf_config
from gpudesk.sizing.eager_gelu import unfused_gelu_extra_bytes_per_layer
from gpudesk.sizing.memory_train import activation_terms
from gpudesk.sizing.validation import UNIT_BYTES, case_workload

CONFIGS = FIXTURES / "sizing" / "configs"
GPT2_LARGE = spec_from_hf_config(CONFIGS / "gpt2-large.config.json")
LLAMA = spec_from_hf_config(CONFIGS / "llama-2-7b.config.json")
# transformers GPT-2 large fp16 training, SDPA, batch 4 x 1024 (docs/source/en/model_doc/gpt2.md, PR #31172).
GPT2_ROW = "fresh21-hfdoc-gpt2-large-train-sdpa-b4-s1024"


def _row(case_id: str) -> dict:
    lines = (FIXTURES / "sizing" / "measured_peaks_fresh21.jsonl").read_text(encoding="utf-8").splitlines()
    return next(r for r in map(json.loads, filter(None, lines)) if r["id"] == case_id)


def _activations(spec, **kw) -> float:
    base = dict(mode="train", precision="bf16-pure", optimizer="sgd_plain", seq_len_tokens=1024, micro_batch_size=4,
                gpus=1, recompute="none", loss="inplace-16bit")
    return dict(estimate_memory(spec, MemoryWorkload(**{**base, **kw})).breakdown)["activations"]


def test_three_ffn_wide_16bit_tensors_a_layer():
    # GPT-2 large: ffn = 4 x 1280, 36 layers; tanh, 1 + tanh and 0.5 x in fp16 = 6 bytes an ffn element a token.
    extra = _activations(GPT2_LARGE, unfused_gelu=True) - _activations(GPT2_LARGE)
    assert extra == 4 * 1024 * 6 * 5120 * 36


def test_fp32_and_autocast_widths():
    tokens_ffn = 1024 * 5120
    assert unfused_gelu_extra_bytes_per_layer(GPT2_LARGE, 1024, 1, "fp32") == 12 * tokens_ffn
    # Under autocast pow runs in fp32: an fp32 copy of x, fp32 tanh and 1 + tanh, a 16-bit 0.5 x.
    assert unfused_gelu_extra_bytes_per_layer(GPT2_LARGE, 1024, 1, "bf16-amp") == 14 * tokens_ffn


def test_gated_mlp_and_compiled_or_recomputed_runs_add_nothing():
    assert unfused_gelu_extra_bytes_per_layer(LLAMA, 1024, 1, "bf16-pure") == 0.0
    assert _activations(GPT2_LARGE, unfused_gelu=True, compiled=True) == _activations(GPT2_LARGE, compiled=True)
    # Full recompute keeps the layer inputs; only the one recomputed layer holds the chain.
    def full(unfused: bool) -> float:
        return activation_terms(GPT2_LARGE, 1024, 4, recompute="full", precision="bf16-pure", compiled=False,
                                unfused_gelu=unfused).activations
    assert full(True) - full(False) == 4 * 1024 * 6 * 5120


def test_published_gpt2_row_typed_with_the_setting_comes_within_15_percent():
    row = _row(GPT2_ROW)
    measured = float(row["value"]) * UNIT_BYTES[row["unit"]]
    plain = estimate_memory(GPT2_LARGE, case_workload(row)).statistic_bytes("allocated")
    typed = estimate_memory(GPT2_LARGE, case_workload(dict(row, unfused_gelu=True))).statistic_bytes("allocated")
    assert plain / measured < 0.6
    assert 0.85 <= typed / measured <= 1.15


def test_cli_flag(capsys):
    args = ["estimate", "memory", "--config", str(CONFIGS / "gpt2-large.config.json"), "--mode", "train",
            "--precision", "bf16-pure", "--optimizer", "sgd_plain", "--batch", "4", "--seq", "1024",
            "--loss", "inplace-16bit", "--json"]
    assert main(args) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(args + ["--unfused-gelu"]) == 0
    typed = json.loads(capsys.readouterr().out)
    assert typed["per_gpu"]["breakdown_bytes"]["activations"] - plain["per_gpu"]["breakdown_bytes"]["activations"] == 4 * 1024 * 6 * 5120 * 36
