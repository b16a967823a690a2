"""--fused-norm: eager training whose RMSNorms run in a fused kernel (apex FusedRMSNorm; Megatron-LM forks with
--apply-layernorm-rms, FlagScale ed555321f) saves no fp32 norm copies; the eager SiLU-and-multiply still saves its
output."""

import json

import pytest

from conftest import FIXTURES
from gpudesk.cli import main
from gpudesk.sizing import MemoryWorkload, estimate_memory, spec_from_hf_config
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.memory_train import eager_extra_bytes_per_layer
from gpudesk.sizing.validation import UNIT_BYTES, case_workload

CONFIGS = FIXTURES / "sizing" / "configs"
LLAMA2 = spec_from_hf_config(CONFIGS / "llama-2-7b.config.json")  # h 4096, ffn 11008
AQUILA = spec_from_hf_config(CONFIGS / "aquila2-7b.config.json")


def test_only_the_silu_output_is_extra():
    tokens = 2048 * 4
    assert eager_extra_bytes_per_layer(LLAMA2, 2048, 4) == tokens * (8 * 4096 + 2 * 11008)
    assert eager_extra_bytes_per_layer(LLAMA2, 2048, 4, fused_norm=True) == tokens * 2 * 11008
    assert eager_extra_bytes_per_layer(LLAMA2, 2048, 4, tensor_parallel=8, fused_norm=True) == tokens * 2 * 11008 / 8


def test_compiled_or_inference():
    base = dict(mode="train", precision="bf16", seq_len_tokens=2048, micro_batch_size=8)
    compiled = estimate_memory(LLAMA2, MemoryWorkload(**base, compiled=True))
    compiled_fused = estimate_memory(LLAMA2, MemoryWorkload(**base, compiled=True, fused_norm=True))
    assert compiled_fused.breakdown == compiled.breakdown
    # the setting is named even where it changes nothing, so that the user sees why
    assert "fused RMSNorm kernel: no change here" in compiled_fused.assumptions[-1][0]
    eager = estimate_memory(LLAMA2, MemoryWorkload(**base))
    fused = estimate_memory(LLAMA2, MemoryWorkload(**base, fused_norm=True))
    # the peak is the start of backward: 32 layers x 16384 tokens x 8 h bytes fewer
    assert eager.breakdown["activations"] - fused.breakdown["activations"] == 32 * 16384 * 8 * 4096
    with pytest.raises(SizingError) as err:
        estimate_memory(LLAMA2, MemoryWorkload(mode="inference", fused_norm=True))
    assert err.value.field == "fused_norm"


def test_the_assumptions_name_the_fused_norm_and_its_saving_a_layer():
    base = dict(mode="train", precision="bf16", seq_len_tokens=2048, micro_batch_size=8)
    eager = estimate_memory(LLAMA2, MemoryWorkload(**base))
    fused = estimate_memory(LLAMA2, MemoryWorkload(**base, fused_norm=True))
    assert not any("RMSNorm" in text for text, _source in eager.assumptions)
    text, source = fused.assumptions[-1]
    # 16384 tokens x 8 h bytes = 512 MiB a layer, the activations' drop over 32 layers
    assert "fused RMSNorm kernel" in text and "512.00 MiB less a layer" in text and "apex" in source
    lora = estimate_memory(LLAMA2, MemoryWorkload(**dict(base, mode="lora"), fused_norm=True))
    assert "512.00 MiB less a layer" in lora.assumptions[-1][0]


def test_flagscale_aquila_rows_typed_with_the_fused_norm():
    # FlagPerf aquila2_7b-flagscale (FlagScale ed555321f: apex FusedRMSNormAffineFunction, eager SwiGLU), 8 A800.
    lines = (FIXTURES / "sizing" / "measured_peaks_fresh27.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [r for r in map(json.loads, filter(None, lines)) if "aquila2-7b-flagscale" in r["id"]]
    assert len(rows) == 4
    plain, fused = [], []
    for row in rows:
        measured = row["value"] * UNIT_BYTES[row["unit"]]
        plain.append(estimate_memory(AQUILA, case_workload(row)).total_bytes / measured)
        fused.append(estimate_memory(AQUILA, case_workload({**row, "fused_norm": True})).total_bytes / measured)
    assert sum(abs(r - 1) <= 0.15 for r in plain) == 2  # TP8 and PP8 over by 18 %
    assert all(abs(r - 1) <= 0.15 for r in fused), fused


def test_cli_flag(capsys):
    args = ["estimate", "memory", "--config", str(CONFIGS / "llama-2-7b.config.json"), "--mode", "train",
            "--seq", "2048", "--batch", "8", "--json"]
    assert main(args) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(args + ["--fused-norm"]) == 0
    fused = json.loads(capsys.readouterr().out)
    drop = plain["per_gpu"]["breakdown_bytes"]["activations"] - fused["per_gpu"]["breakdown_bytes"]["activations"]
    assert drop == 32 * 16384 * 8 * 4096
    assert main(["estimate", "memory", "--config", str(CONFIGS / "llama-2-7b.config.json"), "--mode", "inference",
                 "--fused-norm"]) != 0
    assert "--fused-norm" in capsys.readouterr().err
