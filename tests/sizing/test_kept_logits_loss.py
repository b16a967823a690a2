"""--loss standard-kept: PyTorch's eager cross-entropy on fp32 logits while the loop still holds the fp32 logits the
model returned (prime-rl's SFT trainer keeps ``out``), 16 bytes a logit against standard's 12."""

import json

from conftest import FIXTURES
from gpudesk.cli import main
from gpudesk.sizing import estimate_memory, spec_from_hf_config
from gpudesk.sizing.activations import loss_logits_bytes
from gpudesk.sizing.validation import UNIT_BYTES, case_workload

CONFIGS = FIXTURES / "sizing" / "configs"
QWEN3_06B = CONFIGS / "qwen3-0.6b.config.json"  # vocabulary 151,936


def test_kept_logits_add_one_fp32_copy_to_standard():
    args = (8192, 1, 151936, 1024)
    standard = loss_logits_bytes(*args, loss="standard")
    kept = loss_logits_bytes(*args, loss="standard-kept")
    assert standard == 12 * 8192 * 151936
    assert kept - standard == 4 * 8192 * 151936
    assert loss_logits_bytes(*args, loss="standard-kept", tensor_parallel=2) == kept / 2


def test_prime_rl_sft_rows_with_the_torch_loss():
    # prime-rl b798a90d: SFT's loss_impl defaults to "torch" (nn.CrossEntropyLoss on the fp32 logits that
    # cast_float_and_contiguous made, held by ``out`` through backward); the rows type inplace-16bit (Liger).
    lines = (FIXTURES / "sizing" / "measured_peaks_fresh24.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [r for r in map(json.loads, filter(None, lines)) if r["id"].startswith("fresh24-primerl-") and "-sft-" in r["id"]]
    assert len(rows) == 4
    for row in rows:
        spec = spec_from_hf_config(CONFIGS / f"{row['config']}.config.json")
        measured = row["value"] * UNIT_BYTES[row["unit"]]
        kept = estimate_memory(spec, case_workload({**row, "loss": "standard-kept"})).reserved_bytes / measured
        standard = estimate_memory(spec, case_workload({**row, "loss": "standard"})).reserved_bytes / measured
        assert 0.93 <= kept <= 1.10, (row["id"], kept)
        assert standard < 0.85, (row["id"], standard)


def test_cli_flag(capsys):
    args = ["estimate", "memory", "--config", str(QWEN3_06B), "--mode", "train", "--seq", "8192", "--recompute", "full",
            "--json"]
    assert main(args + ["--loss", "standard"]) == 0
    standard = json.loads(capsys.readouterr().out)["per_gpu"]["breakdown_bytes"]["logits"]
    assert main(args + ["--loss", "standard-kept"]) == 0
    kept = json.loads(capsys.readouterr().out)["per_gpu"]["breakdown_bytes"]["logits"]
    assert kept == standard * 16 // 12
