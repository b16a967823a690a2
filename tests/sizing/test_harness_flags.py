"""The accuracy the app shows is the accuracy a user gets: every validation case, typed as ``gpudesk estimate memory``
flags, gives the same figure as the harness (no correction keyed on the framework or the case)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpudesk.cli import main
from gpudesk.sizing.validation import case_workload, evaluate, load_cases

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "sizing"
SETS = (FIXTURES / "measured_peaks.jsonl", FIXTURES / "measured_peaks_later.jsonl",
        FIXTURES / "measured_peaks_fresh.jsonl", FIXTURES / "measured_peaks_fresh2.jsonl",
        FIXTURES / "measured_peaks_fresh3.jsonl", FIXTURES / "measured_peaks_fresh5.jsonl",
        FIXTURES / "measured_peaks_fresh6.jsonl")
STAT_KEY = {"allocated": "allocated_bytes", "active": "allocated_bytes", "reserved": "reserved_bytes",
            "device": "device_bytes", "allocated_sum": "allocated_sum_bytes"}


def cli_args(case: dict) -> list[str]:
    """The flags a user types for a case (what its recipe says, nothing else)."""
    method = case["method"]
    mode = {"full": "train"}.get(method, method)
    args = ["estimate", "memory", "--config", str(FIXTURES / "configs" / f"{case['config']}.config.json"),
            "--mode", mode, "--gpus", str(case.get("gpus", 1)), "--tp", str(case.get("tensor_parallel", 1)), "--json"]
    if case.get("driver_reserved_mib"):
        args += ["--driver-reserved-mib", str(case["driver_reserved_mib"])]
    if mode == "inference":
        args += ["--seq", str(case.get("context_tokens", 16)), "--batch", str(case.get("micro_batch_size") or 1),
                 "--prompt-logits", case.get("prompt_logits", "last"),
                 "--kv-precision", case.get("kv_precision", "bf16"),
                 "--kv-block-tokens", str(case.get("paged_block_tokens", 16)),
                 "--kv-cache-impl", case.get("kv_cache_impl", "paged"),
                 "--mla-decode-weights", case.get("mla_decode_weights", "up-proj"),
                 "--cuda-lazy-loading", "on" if case.get("cuda_lazy_loading", True) else "off",
                 "--cuda-major-version", str(case.get("cuda_major_version", 12))]
        if case.get("weight_format"):
            args += ["--weight-format", case["weight_format"]]
        if case.get("prompt_tokens"):
            args += ["--prompt-tokens", str(case["prompt_tokens"])]
        if case.get("fused_qkv_load"):
            args.append("--fused-qkv-load")
        if case.get("prefill_kv_kept"):
            args.append("--prefill-kv-kept")
        if case.get("gptq_kernel"):
            args += ["--gptq-kernel", case["gptq_kernel"]]
        if case.get("max_input_tokens"):
            args += ["--max-input-tokens", str(case["max_input_tokens"])]
        if case.get("fused_norm"):
            args.append("--fused-norm")
        if case.get("grouped_kv_attention"):
            args.append("--grouped-kv-attention")
        if case.get("eager_softmax"):
            args += ["--eager-softmax", case["eager_softmax"]]
        if case.get("encoder_lm_head"):
            args.append("--encoder-lm-head")
        if case.get("load_dtype"):
            args += ["--load-dtype", case["load_dtype"]]
        if case.get("decode_attention"):
            args += ["--decode-attention", case["decode_attention"]]
        if case.get("tp_replicated_vocab"):
            args.append("--tp-replicated-vocab")
        if case.get("embeddings_on_host"):
            args.append("--embeddings-on-host")
        if case.get("no_kv_cache"):
            args.append("--no-kv-cache")
        if case.get("bnb_fp32_compute"):
            args.append("--bnb-fp32-compute")
        if (case.get("pipeline_parallel") or 1) > 1:
            args += ["--pp", str(case["pipeline_parallel"])]
        if not case.get("flash_attention", True):
            args.append("--no-flash")
    else:
        args += ["--seq", str(case.get("seq_len_tokens", 2048)), "--batch", str(case.get("micro_batch_size", 1)),
                 "--precision", case.get("precision", "bf16"), "--optimizer", case.get("optimizer", "adamw"),
                 "--sharding", case.get("sharding", "ddp"), "--offload", case.get("offload", "none"),
                 "--recompute", case.get("recompute", "none"), "--loss", case.get("loss", "standard"),
                 "--cp", str(case.get("context_parallel", 1)), "--pp", str(case.get("pipeline_parallel") or 1),
                 "--pp-schedule", case.get("pipeline_schedule", "1f1b"),
                 "--grad-accum", str(case.get("gradient_accumulation_steps") or 1),
                 "--fsdp-version", str(case.get("fsdp_version") or 2),
                 "--optimizer-impl", case.get("optimizer_impl", "foreach"),
                 "--cuda-lazy-loading", "on" if case.get("cuda_lazy_loading", True) else "off",
                 "--cuda-major-version", str(case.get("cuda_major_version", 12)),
                 "--lora-rank", str(case.get("lora_rank") or 16),
                 "--lora-targets", case.get("lora_targets") or "all-linear",
                 "--lora-dropout", str(case.get("lora_dropout", 0.0)),
                 "--lora-kernels", case.get("lora_kernels", "peft"),
                 "--weight-loading", case.get("weight_loading", "per-tensor"),
                 "--base-weights", case.get("base_weights", "precision")]
        if case.get("modules_to_save"):
            args += ["--modules-to-save", case["modules_to_save"]]
        for key, flag in (("zero3_max_reuse_distance", "--zero3-max-reuse-distance"),
                          ("zero3_max_live_parameters", "--zero3-max-live-params"),
                          ("zero3_prefetch_bucket", "--zero3-prefetch-bucket"),
                          ("zero3_persistence_threshold", "--zero3-persistence-threshold"),
                          ("zero3_reduce_bucket", "--zero3-reduce-bucket"),
                          ("zero3_defaults", "--zero3-defaults"),
                          ("fsdp2_no_sync", "--fsdp2-no-sync"),
                          ("recompute_layers", "--recompute-layers"),
                          ("expert_parallel", "--expert-parallel"),
                          ("expert_tensor_parallel", "--expert-tensor-parallel"),
                          ("eval_batch", "--eval-batch"),
                          ("eval_loss", "--eval-loss")):
            if case.get(key) is not None:
                args += [flag, str(case[key])]
        for key, flag in (("flash_attention", "--no-flash"), ("sequence_parallel", "--sp"), ("sp_gathered_inputs", "--sp-gathered-inputs"), ("optimizer_in_backward", "--optimizer-in-backward"),
                          ("activation_offload", "--activation-offload"), ("compile", "--compile"),
                          ("zero_grad_keeps_grads", "--zero-grad-keeps-grads"), ("kbit_fp32_upcast", "--kbit-fp32-upcast"),
                          ("kbit_embeddings_bf16", "--kbit-embeddings-bf16"),
                          ("fsdp1_mixed_flat_params", "--fsdp1-mixed-flat-params"),
                          ("legacy_bnb_matmul", "--legacy-bnb-matmul"),
                          ("nonreentrant_checkpoint", "--non-reentrant-checkpoint"),
                          ("fsdp1_sync_each_batch", "--fsdp1-sync-each-batch"),
                          ("ddp_bucket_view", "--ddp-bucket-view"),
                          ("tp_whole_logits", "--tp-whole-logits"),
                          ("tp_replicated_embedding", "--tp-replicated-embedding"),
                          ("fp32_grad_buffer", "--fp32-grad-buffer"),
                          ("main_grads_kept", "--main-grads-kept"),
                          ("unfused_gelu", "--unfused-gelu"),
                          ("fsdp_root_only", "--fsdp-root-only"),
                          ("fsdp1_no_rate_limiter", "--fsdp1-no-rate-limiter"),
                          ("zero3_outside_init", "--zero3-outside-init"),
                          ("eval_no_cache", "--eval-no-cache")):
            if key == "flash_attention":
                if not case.get(key, True):
                    args.append("--no-flash")
                if not case.get("bnb_double_quant", True):
                    args.append("--no-double-quant")
            elif case.get(key):
                args.append(flag)
        for key, flag in (("pipeline_microbatches", "--pp-microbatches"),
                          ("pipeline_stages_per_rank", "--pp-stages-per-rank"),
                          ("longest_sample_tokens", "--longest-sample-tokens")):
            if case.get(key):
                args += [flag, str(case[key])]
    return args


CASES = [c for p in SETS for c in load_cases(p)]
RESULTS = {r.case_id: r for p in SETS for r in evaluate(p)}


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_cli_flags_reproduce_the_harness(case, capsys):
    result = RESULTS[case["id"]]
    if result.error:
        pytest.skip(result.error)
    assert main(cli_args(case)) == 0
    out = json.loads(capsys.readouterr().out)["per_gpu"]
    stat = case.get("statistic", "allocated")
    figure = out[STAT_KEY[stat]] if stat in STAT_KEY else out["breakdown_bytes"].get(stat, 0)
    assert figure == result.estimated_bytes


def test_framework_text_never_changes_a_workload():
    for case in CASES[:40]:
        renamed = dict(case, framework="transformers Trainer")
        assert case_workload(case) == case_workload(renamed), case["id"]


def test_estimate_memory_shows_the_error_band_and_paged_states(capsys):
    config = str(FIXTURES / "configs" / "llama-2-7b.config.json")
    args = ["estimate", "memory", "--config", config, "--mode", "train", "--precision", "bf16-pure", "--seq", "512",
            "--batch", "2", "--optimizer", "paged_adamw", "--optimizer-in-backward", "--recompute", "full",
            "--framework", "torchtune"]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "expected error for full, 1 GPU, torchtune: " in text
    assert "paged optimizer states 25.10 GiB are CUDA unified memory" in text
    assert main(args + ["--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    band = out["error_band"]
    assert band["class"] == "full, 1 GPU, torchtune" and band["cases"] >= 5
    assert band["low_ratio"] <= 1.0 <= band["high_ratio"] + 0.2
    assert out["per_gpu"]["paged_unified_memory_bytes"] == out["per_gpu"]["breakdown_bytes"]["paged_optimizer_states"]
    # A bad flag value is a clear error naming the flag, not a traceback.
    lora_args = [a for a in args[:-2] if a != "--optimizer-in-backward"]  # a full-training flag LoRA refuses
    assert main(lora_args + ["--lora-dropout", "1.5", "--mode", "lora"]) == 2
    assert "--lora-dropout" in capsys.readouterr().err


def test_validate_reports_rows_added_later(capsys):
    assert main(["estimate", "validate"]) == 0
    assert "rows added later" in capsys.readouterr().out
    assert main(["estimate", "validate", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["added_later"]["cases"] >= 97
    assert data["bands_by_class"]["qlora/2+/hf"]["cases"] >= 10
