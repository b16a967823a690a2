"""--zero3-outside-init: DeepSpeed ZeRO-3 over a model built outside deepspeed.zero.Init, whose gathered Linear
weights autograd keeps until their backward (gpudesk.sizing.zero3_outside_init)."""

import json

import pytest

from conftest import FIXTURES
from gpudesk.cli import main
from gpudesk.sizing import MemoryWorkload, SizingError, estimate_memory, spec_from_hf_config
from gpudesk.sizing.validation import UNIT_BYTES, case_workload
from gpudesk.sizing.zero3_outside_init import retained_extra_bytes, retained_linear_params
from gpudesk.sizing.zero3_params import Zero3Settings, peak_gathered_params

CONFIGS = FIXTURES / "sizing" / "configs"
LLAMA3 = spec_from_hf_config(CONFIGS / "llama-3-8b.config.json")
FRESH48 = "measured_peaks_fresh48.jsonl"
# gpjt/fine-tune-2024-04: from_pretrained runs before TrainingArguments (no HfDeepSpeedConfig yet), so the model is
# built outside zero.Init; ZeRO-3 over 8 GPUs without gradient checkpointing.
NO_GC_ROWS = ("fresh48-gpjt-llama-3-8b-full-z3-8gpu-s501-b1-active", "fresh48-gpjt-llama-3-8b-full-z3-8gpu-s1001-b1-active",
              "fresh48-gpjt-llama-3-8b-full-z3-8gpu-s1501-b1-active", "fresh48-gpjt-llama-3-8b-full-z3-8gpu-s2001-b1-active",
              "fresh48-gpjt-llama-3-8b-full-z3-8gpu-s2048-b2-active")
BASE = dict(mode="train", precision="fp16", optimizer="adamw", seq_len_tokens=1024, micro_batch_size=1, gpus=8,
            sharding="zero3", zero3_defaults="deepspeed")


def _row(name: str, case_id: str) -> dict:
    lines = (FIXTURES / "sizing" / name).read_text(encoding="utf-8").splitlines()
    return next(r for r in map(json.loads, filter(None, lines)) if r["id"] == case_id)


def test_retained_weights_every_linear_without_checkpointing_the_head_with_it():
    s = Zero3Settings(unset="deepspeed")
    head = LLAMA3.vocab_size * LLAMA3.hidden_size
    layers = LLAMA3.params - 2 * head  # untied: embedding + head; norms are a rounding error
    assert retained_linear_params(LLAMA3, s, "full") == head
    assert retained_linear_params(LLAMA3, s, "none") == pytest.approx(layers + head, rel=1e-4)
    # Beyond the coordinator's own window: the window's modules are the same storage.
    window = peak_gathered_params(LLAMA3, s, recompute=False)
    assert retained_extra_bytes(LLAMA3, Zero3Settings(unset="deepspeed", outside_init=True), 2.0, "none") == \
        pytest.approx((retained_linear_params(LLAMA3, s, "none") - window) * 2)
    assert retained_extra_bytes(LLAMA3, s, 2.0, "none") == 0.0  # built inside zero.Init


def test_added_to_the_gathered_window_at_the_start_of_backward():
    plain = estimate_memory(LLAMA3, MemoryWorkload(**BASE, recompute="none"))
    typed = estimate_memory(LLAMA3, MemoryWorkload(**BASE, recompute="none", zero3_outside_init=True))
    extra = retained_extra_bytes(LLAMA3, Zero3Settings(unset="deepspeed", outside_init=True), 2.0, "none")
    assert extra / 2**30 == pytest.approx(12.8, abs=0.2)
    assert typed.breakdown["gathered_layers"] - plain.breakdown["gathered_layers"] == pytest.approx(extra)
    assert typed.statistic_bytes("allocated") - plain.statistic_bytes("allocated") == pytest.approx(extra, rel=0.02)
    assert any("zero.Init" in text for text, _source in typed.assumptions)


def test_nothing_added_with_full_recompute_or_on_one_gpu():
    for kw in (dict(recompute="full"), dict(recompute="none", gpus=1)):
        args = {**BASE, **kw}
        plain = estimate_memory(LLAMA3, MemoryWorkload(**args)).total_bytes
        assert estimate_memory(LLAMA3, MemoryWorkload(**args, zero3_outside_init=True)).total_bytes == plain


def test_lora_base_kept_as_well():
    args = dict(BASE, mode="lora", recompute="none")
    plain = estimate_memory(LLAMA3, MemoryWorkload(**args)).breakdown["gathered_layers"]
    typed = estimate_memory(LLAMA3, MemoryWorkload(**args, zero3_outside_init=True)).breakdown["gathered_layers"]
    assert typed - plain == pytest.approx(
        retained_extra_bytes(LLAMA3, Zero3Settings(unset="deepspeed", outside_init=True), 2.0, "none"))


@pytest.mark.parametrize("kw", [dict(sharding="zero2"), dict(sharding="fsdp"), dict(mode="qlora"),
                                dict(mode="inference", sharding="ddp", optimizer="adamw")])
def test_refused_away_from_deepspeed_zero3_training(kw):
    with pytest.raises(SizingError) as err:
        args = {**BASE, "zero3_defaults": "hf-auto", **kw}
        if args["mode"] == "inference":
            args = dict(mode="inference", gpus=8)
        estimate_memory(LLAMA3, MemoryWorkload(**args, zero3_outside_init=True))
    assert err.value.field == "zero3_outside_init"


@pytest.mark.parametrize("case_id", NO_GC_ROWS)
def test_published_rows_typed_as_their_script_reads(case_id):
    row = _row(FRESH48, case_id)
    assert row["zero3_outside_init"] is True  # typed from the script (README, Fresh-48 mapping correction)
    untyped = {k: v for k, v in row.items() if k != "zero3_outside_init"}
    measured = float(row["value"]) * UNIT_BYTES[row["unit"]]
    plain = estimate_memory(LLAMA3, case_workload(untyped)).statistic_bytes("active") / measured
    typed = estimate_memory(LLAMA3, case_workload(row)).statistic_bytes("active") / measured
    assert plain < 0.85
    assert 0.9 <= typed <= 1.1


def test_case_field_and_cli_flag(capsys):
    row = _row(FRESH48, NO_GC_ROWS[0])
    assert case_workload(row).zero3_outside_init
    assert not case_workload({k: v for k, v in row.items() if k != "zero3_outside_init"}).zero3_outside_init
    args = ["estimate", "memory", "--config", str(CONFIGS / "llama-3-8b.config.json"), "--mode", "train",
            "--precision", "fp16", "--optimizer", "adamw", "--batch", "1", "--seq", "1024", "--gpus", "8",
            "--sharding", "zero3", "--recompute", "none", "--json"]
    assert main(args) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(args + ["--zero3-outside-init"]) == 0
    typed = json.loads(capsys.readouterr().out)
    assert typed["per_gpu"]["breakdown_bytes"]["gathered_layers"] > plain["per_gpu"]["breakdown_bytes"]["gathered_layers"]
    zero2 = [("zero2" if a == "zero3" else a) for a in args]
    assert main(zero2 + ["--zero3-outside-init"]) != 0
    assert "--zero3-outside-init" in capsys.readouterr().err


LLAMA2_70B = spec_from_hf_config(CONFIGS / "llama-2-70b.config.json")
MLENG = "measured_peaks_fresh34.jsonl"
# stas00/ml-engineering insights/when-to-upgrade-gpus/benchmark.py at 29433459: from_pretrained(dtype=bf16), then
# deepspeed.initialize with no HfDeepSpeedConfig (outside zero.Init); max_memory_reserved never reset.
MLENG_ROWS = tuple(f"fresh34-mleng-llama31-8b-zero3-offload-liger-ac-8xh200-seq{n}"
                   for n in ("8k", "32k", "64k", "128k", "192k", "256k"))


@pytest.mark.parametrize("mode,offload", [("train", "all"), ("lora", "none"), ("lora", "all")])
def test_engine_start_holds_the_whole_model_on_every_gpu(mode, offload):
    args = dict(mode=mode, precision="bf16", optimizer="adamw", seq_len_tokens=2048, micro_batch_size=1, gpus=8,
                sharding="zero3", offload=offload, recompute="full")
    plain = estimate_memory(LLAMA2_70B, MemoryWorkload(**args))
    typed = estimate_memory(LLAMA2_70B, MemoryWorkload(**args, zero3_outside_init=True))
    whole = LLAMA2_70B.params * 2
    assert plain.statistic_bytes("allocated") < whole / 4
    assert typed.statistic_bytes("allocated") == pytest.approx(whole, rel=1e-6)
    assert typed.breakdown["zero3_engine_start_model"] > 0
    assert any("engine's start" in text for text, _source in typed.assumptions)


def test_engine_start_below_training_adds_nothing():
    args = dict(BASE, recompute="full", seq_len_tokens=4096)
    typed = estimate_memory(LLAMA3, MemoryWorkload(**args, zero3_outside_init=True))
    assert "zero3_engine_start_model" not in typed.breakdown


@pytest.mark.parametrize("case_id", MLENG_ROWS)
def test_engine_start_sets_the_short_sequence_peak_only(case_id):
    row = _row(MLENG, case_id)
    assert row["zero3_outside_init"] is True  # typed from the script (README, Fresh-48 mapping correction)
    untyped = {k: v for k, v in row.items() if k != "zero3_outside_init"}
    spec = spec_from_hf_config(CONFIGS / f"{row['config']}.config.json")
    measured = float(row["value"]) * UNIT_BYTES[row["unit"]]
    plain = estimate_memory(spec, case_workload(untyped)).statistic_bytes(row["statistic"]) / measured
    typed = estimate_memory(spec, case_workload(row)).statistic_bytes(row["statistic"])
    if case_id.endswith("seq8k"):
        assert plain < 0.7 and 0.9 <= typed / measured <= 1.1  # the bf16 model whole on the GPU: 14.96 GiB
    else:
        assert typed / measured == pytest.approx(plain)  # training's peak is larger
