"""--fsdp-root-only: FSDP with no auto-wrap policy, the whole model one unit (Lightning FSDPStrategy() rows)."""

import json

import pytest

from conftest import FIXTURES
from gpudesk.cli import main
from gpudesk.sizing import MemoryWorkload, SizingError, estimate_memory, spec_from_hf_config
from gpudesk.sizing.memory_train import fsdp_gathered_bytes, model_state_bytes_per_param
from gpudesk.sizing.validation import UNIT_BYTES, case_workload

CONFIGS = FIXTURES / "sizing" / "configs"
LLAMA = spec_from_hf_config(CONFIGS / "llama-2-7b.config.json")
OPEN_LLAMA_3B = spec_from_hf_config(CONFIGS / "open-llama-3b-v2.config.json")
# llm-chi (teaching-on-testbeds 5bb926bb): litgpt 0.5.7 under Lightning FSDPStrategy(sharding_strategy=FULL_SHARD)
# with no auto_wrap_policy, bf16-true, 4 x A100 80GB (7B) and 4 x V100 32GB (3B, batch 1: its attention scores
# are small, so the V100 SDPA doubt of the README does not move it); torch.cuda.memory_reserved() printed each step.
LIGHTNING_ROWS = {"fresh21-llmchi-openllama7b-4xa100-fsdp-b4": LLAMA, "fresh21-llmchi-openllama7b-4xa100-fsdp-b8": LLAMA,
                  "fresh21-llmchi-openllama3b-4xv100-fsdp": OPEN_LLAMA_3B}


def _row(case_id: str) -> dict:
    lines = (FIXTURES / "sizing" / "measured_peaks_fresh21.jsonl").read_text(encoding="utf-8").splitlines()
    return next(r for r in map(json.loads, filter(None, lines)) if r["id"] == case_id)


def test_whole_model_unsharded_and_its_gradient_twice():
    per_param = model_state_bytes_per_param("adamw", "bf16-pure")
    # bf16 parameters and gradients: 2 bytes unsharded + 2 x 2 bytes of gradient (views and the flat gradient).
    assert fsdp_gathered_bytes(LLAMA, per_param, 1, 1, root_only=True) == LLAMA.params * 6
    assert fsdp_gathered_bytes(LLAMA, per_param, 1, 2, root_only=True) == LLAMA.params * 6
    # A per-block wrap holds far less: two blocks, their gradients and the root unit.
    assert fsdp_gathered_bytes(LLAMA, per_param, 1, 1) < LLAMA.params * 6 / 5


@pytest.mark.parametrize("case_id", sorted(LIGHTNING_ROWS))
def test_published_lightning_rows_typed_with_the_setting_come_within_15_percent(case_id):
    row = _row(case_id)
    spec = LIGHTNING_ROWS[case_id]
    measured = float(row["value"]) * UNIT_BYTES[row["unit"]]
    plain = estimate_memory(spec, case_workload(row)).statistic_bytes("reserved")
    typed = estimate_memory(spec, case_workload(dict(row, fsdp_root_only=True))).statistic_bytes("reserved")
    assert plain / measured < 0.6
    assert 0.85 <= typed / measured <= 1.15


def test_refused_outside_fsdp_and_full_training():
    base = dict(mode="train", precision="bf16-pure", optimizer="adamw", seq_len_tokens=512, micro_batch_size=1,
                gpus=4, fsdp_root_only=True)
    with pytest.raises(SizingError) as err:
        estimate_memory(LLAMA, MemoryWorkload(**base, sharding="zero3"))
    assert err.value.field == "fsdp_root_only"
    with pytest.raises(SizingError) as err:
        estimate_memory(LLAMA, MemoryWorkload(**{**base, "mode": "lora"}, sharding="fsdp"))
    assert err.value.field == "fsdp_root_only"


def test_cli_flag(capsys):
    args = ["estimate", "memory", "--config", str(CONFIGS / "llama-2-7b.config.json"), "--mode", "train",
            "--precision", "bf16-pure", "--optimizer", "adamw", "--batch", "4", "--seq", "512", "--gpus", "4",
            "--sharding", "fsdp", "--fsdp-version", "1", "--recompute", "none", "--json"]
    assert main(args) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(args + ["--fsdp-root-only"]) == 0
    typed = json.loads(capsys.readouterr().out)
    assert typed["per_gpu"]["breakdown_bytes"]["gathered_layers"] == LLAMA.params * 6
    assert typed["per_gpu"]["breakdown_bytes"]["gathered_layers"] > plain["per_gpu"]["breakdown_bytes"]["gathered_layers"]
