"""Memory mechanisms that changed by framework version or implementation, each set by a flag a user types."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudesk.sizing import SizingError
from gpudesk.sizing.error_band import error_band, framework_family
from gpudesk.sizing.memory import MemoryWorkload, estimate_memory
from gpudesk.sizing.memory_inference import weight_bytes
from gpudesk.sizing.overheads import EAGER_MODULE_LOADING_CONTEXT_BYTES
from gpudesk.sizing.shapes import spec_from_hf_config
from gpudesk.sizing.validation import CaseResult, evaluate

CONFIGS = Path(__file__).resolve().parents[1] / "fixtures" / "sizing" / "configs"
GIB = 2**30


@pytest.fixture(scope="module")
def llama8b():
    return spec_from_hf_config(CONFIGS / "llama-3.1-8b.config.json")


@pytest.fixture(scope="module")
def mistral():
    return spec_from_hf_config(CONFIGS / "mistral-7b.config.json")


def test_foreach_adamw_step_holds_one_state_sized_temporary(mistral):
    # fms-acceleration a100_80gb.csv: Mistral-7B pure-bf16 full finetune peaks at 72.43 GB at batch 4 and at batch 8:
    # the optimizer step (weights + grads + states + one bf16 state copy), not the activations.
    w = dict(mode="train", precision="bf16-pure", optimizer="adamw", seq_len_tokens=4096, recompute="full")
    foreach = estimate_memory(mistral, MemoryWorkload(**w, micro_batch_size=4))
    fused = estimate_memory(mistral, MemoryWorkload(**w, micro_batch_size=4, optimizer_impl="fused"))
    temp = foreach.component("optimizer_step_temporaries")
    assert temp == pytest.approx(mistral.params * 2, rel=1e-6)
    assert fused.component("optimizer_step_temporaries") == 0
    assert foreach.allocated_bytes / 1e9 == pytest.approx(72.43, rel=0.03)
    bigger = estimate_memory(mistral, MemoryWorkload(**w, micro_batch_size=8))
    # Batch 8's activations and logits (29.1 GB) just pass the step's gradients + temporary (29.0 GB): the two
    # peaks are within 0.2 %, as measured (72.4349 and 72.4352 GB).
    assert bigger.allocated_bytes == pytest.approx(foreach.allocated_bytes, rel=0.005)
    # adamw_torch_fused, 8-bit and the fused accountings keep no temporaries whatever the implementation flag.
    for name in ("adamw_torch_fused", "adamw_8bit", "adam-18"):
        est = estimate_memory(mistral, MemoryWorkload(**dict(w, optimizer=name)))
        assert est.component("optimizer_step_temporaries") == 0, name
    with pytest.raises(SizingError) as err:
        estimate_memory(mistral, MemoryWorkload(**w, optimizer_impl="vectorised"))
    assert err.value.field == "optimizer_impl"


def test_zero_grad_keeping_gradients_adds_them_to_the_forward_peak(llama8b):
    w = dict(mode="train", precision="bf16-pure", optimizer="adamw", optimizer_impl="for-loop", seq_len_tokens=4096,
             micro_batch_size=2)
    freed = estimate_memory(llama8b, MemoryWorkload(**w))
    kept = estimate_memory(llama8b, MemoryWorkload(**w, zero_grad_keeps_grads=True))
    assert kept.component("gradients") == pytest.approx(llama8b.params * 2, rel=1e-6)
    assert kept.component("activations") == freed.component("activations") > 0
    assert freed.component("gradients") < kept.component("gradients") / 10


def test_cuda_lazy_loading_off_means_the_eager_context(llama8b):
    on = estimate_memory(llama8b, MemoryWorkload(mode="inference", weight_format="bf16"))
    off = estimate_memory(llama8b, MemoryWorkload(mode="inference", weight_format="bf16", cuda_lazy_loading=False))
    assert off.component("cuda_context") == EAGER_MODULE_LOADING_CONTEXT_BYTES
    assert off.total_bytes - on.total_bytes == EAGER_MODULE_LOADING_CONTEXT_BYTES - on.component("cuda_context")


def test_paged_optimizer_states_are_reported_outside_the_allocator(llama8b):
    w = dict(mode="train", precision="bf16-pure", seq_len_tokens=2048, micro_batch_size=2, recompute="full",
             optimizer_in_backward=True)
    paged = estimate_memory(llama8b, MemoryWorkload(**w, optimizer="paged_adamw"))
    plain = estimate_memory(llama8b, MemoryWorkload(**w, optimizer="adamw"))
    assert paged.paged_bytes == plain.component("optimizer_states") == pytest.approx(llama8b.params * 4, rel=1e-6)
    assert paged.allocated_bytes == plain.allocated_bytes - plain.component("optimizer_states")
    # Unified memory is not the caching allocator's: no fragmentation headroom on it.
    assert paged.component("fragmentation") < plain.component("fragmentation")
    assert paged.to_dict()["paged_unified_memory_bytes"] == paged.paged_bytes
    assert any("evicted to host RAM" in a for a, _ in paged.assumptions)


def test_fsdp1_holds_a_second_unsharded_block_gradient(mistral, llama8b):
    # Mistral's 32K vocabulary: two blocks outweigh the embedding (Llama 3's 128K embedding would dominate both).
    # A batch whose backward outweighs the optimizer step, when no unit is gathered any more
    # (gpudesk.sizing.fsdp_step_reshard).
    w = dict(mode="train", precision="bf16", optimizer="adamw", gpus=8, sharding="fsdp", recompute="full",
             micro_batch_size=8, seq_len_tokens=4096)
    v1 = estimate_memory(mistral, MemoryWorkload(**w, fsdp_version=1)).component("gathered_layers")
    v2 = estimate_memory(mistral, MemoryWorkload(**w, fsdp_version=2)).component("gathered_layers")
    block = (mistral.params - mistral.embedding_params) / mistral.layers
    # One more bf16 block gradient, and the root unit (embeddings + LM head) FSDP1 keeps unsharded beside them.
    assert v1 - v2 == pytest.approx(block * 2 + mistral.embedding_params * 2, rel=1e-3)
    with pytest.raises(SizingError) as err:
        estimate_memory(llama8b, MemoryWorkload(**w, fsdp_version=3))
    assert err.value.field == "fsdp_version"


def test_weight_only_int8_and_fp8_keep_embeddings_in_bf16(llama8b):
    emb = llama8b.embedding_params
    for fmt in ("int8", "fp8"):
        assert weight_bytes(llama8b, fmt) == (llama8b.params - emb) + 2 * emb
    assert weight_bytes(llama8b, "bf16") == 2 * llama8b.params


def test_kv_cache_implementations(llama8b):
    def kv(impl, tokens=131072, **kw):
        return estimate_memory(llama8b, MemoryWorkload(mode="inference", weight_format="bf16", context_tokens=tokens,
                                                       kv_cache_impl=impl, **kw))
    cache = 131072 * 128 * 1024  # 128 KiB per token (8 KV heads x 128 x 32 layers x K,V x 2 B)
    assert kv("static").component("kv_cache") == cache
    assert kv("static").component("kv_cache_workspace") == 131072**2  # the bool causal mask: 16 GiB
    assert kv("static-linear-mask").component("kv_cache_workspace") == 131072
    legacy = kv("legacy-tuple")  # old and new tuples at once, in decode steps after the prefill's transients
    assert legacy.component("kv_cache_workspace") + legacy.component("prefill_workspace") == cache
    # One layer's torch.cat in a decode step; a 131072-token prefill's transient is larger, so only it counts.
    assert kv("dynamic").component("kv_cache_workspace") == 0
    short = kv("dynamic", prompt_tokens=16)
    assert short.component("kv_cache_workspace") + short.component("prefill_workspace") == cache / 32
    assert kv("paged").component("kv_cache_workspace") == 0
    assert kv("dynamic", tokens=100).component("kv_cache") == 100 * 128 * 1024  # contiguous: no 16-token blocks
    with pytest.raises(SizingError) as err:
        kv("ring")
    assert err.value.field == "kv_cache_impl"


def test_loss_on_16_bit_logits_keeps_half_the_buffers(llama8b):
    w = dict(mode="lora", precision="bf16-pure", seq_len_tokens=2048, micro_batch_size=2, recompute="full")
    fp32 = estimate_memory(llama8b, MemoryWorkload(**w)).component("logits")
    half = estimate_memory(llama8b, MemoryWorkload(**w, loss="standard-16bit")).component("logits")
    assert fp32 == 2 * half == 2 * 2048 * llama8b.vocab_size * 12


def test_chunked_loss_under_compile_keeps_only_16_bit_logits(llama8b):
    w = dict(mode="lora", precision="bf16-pure", optimizer="adamw", seq_len_tokens=2048, micro_batch_size=2,
             recompute="full", loss="chunked")
    eager = estimate_memory(llama8b, MemoryWorkload(**w)).component("logits")
    compiled = estimate_memory(llama8b, MemoryWorkload(**w, compiled=True)).component("logits")
    elements = 2 * 2048 * llama8b.vocab_size
    assert eager == pytest.approx(elements * 3.5)
    assert compiled == pytest.approx(elements * 2.25)


def _result(ratio, method="qlora", gpus=2, framework="fsdp_qlora"):
    return CaseResult(case_id="x", method=method, gpus=gpus, statistic="allocated", measured_bytes=100.0,
                      estimated_bytes=100.0 * ratio, supported=True, source_url="https://x", description="",
                      framework=framework)


def test_error_band_uses_the_most_specific_class_with_enough_cases():
    rows = [_result(r) for r in (0.8, 0.9, 0.95, 1.0, 1.05, 1.1)] + [_result(1.5, gpus=1) for _ in range(5)]
    band = error_band(rows, "qlora", 2, "hf")
    assert band is not None and band.label == "qlora, 2+ GPUs, hf" and band.cases == 6
    assert 0.8 <= band.low_ratio < 0.9 and 1.05 < band.high_ratio <= 1.1
    assert band.text().startswith("expected error for qlora, 2+ GPUs, hf: ")
    # Too few cases for a framework: the band falls back to the mode x GPU class, then to the mode.
    assert error_band(rows, "qlora", 2, "vllm").label == "qlora, 2+ GPUs"
    assert error_band(rows + [_result(1.0, gpus=8, method="full")], "train", 8).label == "full"
    assert error_band(rows, "inference", 1) is None
    assert framework_family("vLLM 0.10.1") == "vllm" and framework_family("peft+accelerate") == "hf"
    assert framework_family("my own loop") == "other"


def test_bundled_bands_match_the_validation_set():
    results = evaluate()
    band = error_band(results, "qlora", 2, "hf")
    assert band is not None and band.cases >= 10 and band.low_ratio < band.high_ratio
    ratios = sorted(r.ratio for r in results if r.method == "qlora" and r.gpus > 1 and r.supported and not r.error
                    and framework_family(r.framework) == "hf")
    assert band.low_ratio <= ratios[len(ratios) // 2] <= band.high_ratio


def test_kbit_training_upcast_makes_the_residual_stream_fp32(mistral):
    # fms-acceleration a100_80gb.csv, Mistral-7B QLoRA on one A100 at 4096 tokens: with PEFT's
    # prepare_model_for_kbit_training (baseline-peft-bnb) 20.56 / 36.80 GB at batch 4 / 8, without it
    # (accelerated-peft-bnb) 15.32 / 26.31 GB: 1.31 GB more per sample.
    w = dict(mode="qlora", precision="bf16", optimizer="adamw", seq_len_tokens=4096, recompute="full",
             lora_targets=("attention",))
    extra = [estimate_memory(mistral, MemoryWorkload(**w, micro_batch_size=b, kbit_fp32_upcast=True)).allocated_bytes
             - estimate_memory(mistral, MemoryWorkload(**w, micro_batch_size=b)).allocated_bytes for b in (4, 8)]
    per_sample_gb = (extra[1] - extra[0]) / 4 / 1e9
    # The term (2 bytes x hidden x layers per token: 1.11 GB a sample) explains most of the measured 1.31 GB.
    assert per_sample_gb == pytest.approx(1.31, rel=0.2)
    # The embeddings and LM head are fp32 too: 2 more bytes per embedding parameter.
    base = estimate_memory(mistral, MemoryWorkload(**w)).component("weights")
    up = estimate_memory(mistral, MemoryWorkload(**w, kbit_fp32_upcast=True)).component("weights")
    assert up - base == pytest.approx(2 * mistral.embedding_params, abs=2)


def test_trl_casts_embeddings_back_to_bf16_after_the_upcast(mistral):
    # fms-acceleration a100_80gb.csv at 24bdadb, Mistral-7B QLoRA on one A100 (TRL 0.13 SFTTrainer, bf16): the memory
    # left allocated after training is 4.31 GB with PEFT's upcast (baseline-peft-bnb) and the same 4.31 GB without it
    # (accelerated-peft-bnb): TRL's peft_module_casting_to_bf16 put the embeddings and LM head back in bf16.
    w = dict(mode="qlora", precision="bf16", optimizer="adamw", seq_len_tokens=4096, recompute="full",
             lora_targets=("attention",), kbit_fp32_upcast=True)
    up = estimate_memory(mistral, MemoryWorkload(**w))
    recast = estimate_memory(mistral, MemoryWorkload(**w, kbit_embeddings_bf16=True))
    plain = estimate_memory(mistral, MemoryWorkload(**{**w, "kbit_fp32_upcast": False}))
    assert recast.component("weights") == plain.component("weights")
    assert up.component("weights") - recast.component("weights") == pytest.approx(2 * mistral.embedding_params, abs=2)
    # The norms stay fp32 and feed 4-bit Linears that return fp32: the residual stream stays fp32.
    assert recast.component("activations") == up.component("activations") > plain.component("activations")
    static_gb = (recast.component("weights") + recast.component("lora_adapters")) / 1e9
    assert static_gb == pytest.approx(4.31, rel=0.1)
    # Without the upcast (TRL's own late-2025 kbit preparation casts nothing) the cast still makes the norms fp32:
    # 16-bit embeddings as loaded, the fp32 residual all the same.
    cast_only = estimate_memory(mistral, MemoryWorkload(**{**w, "kbit_fp32_upcast": False}, kbit_embeddings_bf16=True))
    assert cast_only.component("weights") == plain.component("weights")
    assert cast_only.component("activations") == recast.component("activations")


def test_kbit_upcast_lm_head_writes_fp32_logits(llama8b):
    # universal-llm-trainer docs/gpu_test.md (1c4dca8), Llama 3.1 8B on one H100, batch 2 x 8192, gradient
    # checkpointing, a plain CrossEntropyLoss on the model's logits: LoRA 36 GB, QLoRA (prepare_model_for_kbit_training)
    # 48 GB reserved. QLoRA needs more than LoRA although its base is 8 GB smaller: the fp32 LM head's logits.
    w = dict(mode="qlora", precision="bf16-pure", optimizer="adamw", seq_len_tokens=8192, micro_batch_size=2,
             recompute="full", loss="standard-16bit", lora_rank=8)
    up = estimate_memory(llama8b, MemoryWorkload(**w, kbit_fp32_upcast=True))
    recast = estimate_memory(llama8b, MemoryWorkload(**w, kbit_fp32_upcast=True, kbit_embeddings_bf16=True))
    assert up.component("logits") == pytest.approx(2 * recast.component("logits"))
    # 2 x 8192 tokens x 128256 vocabulary x 3 copies x 4 bytes.
    assert up.component("logits") == pytest.approx(16384 * 128256 * 12)
    assert up.reserved_bytes / 1e9 == pytest.approx(48, rel=0.1)
    # A loss that upcasts the logits anyway costs the same with either head.
    std = dict(w, loss="standard")
    assert (estimate_memory(llama8b, MemoryWorkload(**std, kbit_fp32_upcast=True)).component("logits")
            == estimate_memory(llama8b, MemoryWorkload(**std)).component("logits"))


def test_fsdp1_parameter_offload_keeps_the_gradient_shards_on_the_gpu():
    # universal-llm-trainer docs/gpu_test.md (1c4dca8), Llama 2 13B full fine-tune on 2 H100, FSDP1 FULL_SHARD with
    # CPUOffload(offload_params=True), batch 2 x 8192, gradient checkpointing: 31 GB reserved. Each rank keeps its
    # 6.5 B-parameter gradient shard (13 GB in bf16) on the GPU until the end of backward.
    llama13b = spec_from_hf_config(CONFIGS / "llama-2-13b.config.json")
    w = dict(mode="train", precision="bf16-pure", optimizer="adamw", seq_len_tokens=8192, micro_batch_size=2,
             recompute="full", loss="standard-16bit", gpus=2, sharding="fsdp", offload="all",
             gradient_accumulation=True)
    v1 = estimate_memory(llama13b, MemoryWorkload(**w, fsdp_version=1))
    v2 = estimate_memory(llama13b, MemoryWorkload(**w, fsdp_version=2))
    assert v1.component("gradients") == pytest.approx(llama13b.params * 2 / 2, rel=1e-6)
    assert v2.component("gradients") == 0
    assert v1.reserved_bytes / 1e9 == pytest.approx(31, rel=0.1)
    # Without offload the shards were counted already as the sharded gradients.
    on_gpu = dict(w, offload="none", fsdp1_no_sync=False)  # a loop that syncs every micro-batch: shards only
    assert (estimate_memory(llama13b, MemoryWorkload(**on_gpu, fsdp_version=1)).component("gradients")
            == estimate_memory(llama13b, MemoryWorkload(**on_gpu, fsdp_version=2)).component("gradients"))


def test_fsdp1_mixed_flat_parameters_give_the_frozen_base_gradients():
    llama70b = spec_from_hf_config(CONFIGS / "llama-2-70b.config.json")
    w = dict(mode="qlora", precision="bf16", optimizer="adamw", gpus=2, sharding="fsdp", recompute="full",
             seq_len_tokens=2048)
    apart = estimate_memory(llama70b, MemoryWorkload(**w, fsdp_version=1))
    mixed = estimate_memory(llama70b, MemoryWorkload(**w, fsdp_version=1, fsdp1_mixed_flat_params=True))
    assert apart.component("gradients") == 0
    # The sharded 4-bit storage (~17 GiB a GPU for 70B on 2 GPUs) plus two unsharded blocks.
    assert mixed.component("gradients") == pytest.approx(
        apart.component("weights") + apart.component("gathered_layers"), rel=1e-6)
    # FSDP2 shards per parameter: frozen parameters never get gradients.
    fsdp2 = estimate_memory(llama70b, MemoryWorkload(**w, fsdp_version=2, fsdp1_mixed_flat_params=True))
    assert fsdp2.component("gradients") == 0
    with pytest.raises(SizingError) as err:
        estimate_memory(llama70b, MemoryWorkload(**dict(w, gpus=1, sharding="ddp"), fsdp_version=1,
                                                 fsdp1_mixed_flat_params=True))
    assert err.value.field == "fsdp1_mixed_flat_params"


def test_frozen_base_keeps_adapter_paths_not_linear_inputs():
    llama7b = spec_from_hf_config(CONFIGS / "llama-2-7b.config.json")
    w = dict(precision="bf16", optimizer="adamw", seq_len_tokens=2048, micro_batch_size=1, recompute="none")

    def acts(**kw):
        return estimate_memory(llama7b, MemoryWorkload(**{**w, **kw})).component("activations")

    qv_lora = acts(mode="lora", lora_targets=("q_proj", "v_proj"))
    all_qlora = acts(mode="qlora", lora_targets=("all-linear",), lora_dropout=0.1)
    from gpudesk.sizing.activations import activation_bytes_per_layer
    from gpudesk.sizing.activations_lora import frozen_layer_activation_bytes

    trained_layer = activation_bytes_per_layer(2048, 1, 4096, 32, 11008, gated_mlp=True)  # 34.2 bytes x h a token
    frozen_layer = frozen_layer_activation_bytes(llama7b, 2048, 1, ("q_proj", "v_proj"))  # 30.2
    # q and v share their input and dropout 0 returns it: a frozen layer keeps less than a trained one ...
    assert frozen_layer == pytest.approx(trained_layer - 4 * 2048 * 4096, rel=1e-6)
    # ... while QLoRA on every Linear with dropout keeps a dropout copy and mask per adapter: more than LoRA on q, v.
    assert all_qlora > qv_lora * 1.3
    # Old bitsandbytes (before PR 1270) keeps every 4-bit Linear's input as well.
    legacy = acts(mode="qlora", lora_targets=("q_proj", "v_proj"), legacy_bnb_matmul=True)
    modern = acts(mode="qlora", lora_targets=("q_proj", "v_proj"))
    tokens, h, ffn = 2048, 4096, 11008
    assert legacy - modern == pytest.approx(32 * tokens * 2 * (h + ffn), rel=1e-6)  # MLP and down_proj inputs
    with pytest.raises(SizingError) as legacy_err:  # QLoRA only: LoRA on a 16-bit base has no 4-bit matmul
        acts(mode="lora", lora_targets=("q_proj", "v_proj"), legacy_bnb_matmul=True)
    assert legacy_err.value.field == "legacy_bnb_matmul"
    with pytest.raises(SizingError) as err:
        acts(mode="lora", lora_dropout=1.0)
    assert err.value.field == "lora_dropout"


def test_unchunked_nf4_search_sets_the_reserved_peak_not_the_allocated_one():
    llama7b = spec_from_hf_config(CONFIGS / "llama-2-7b.config.json")
    w = dict(mode="qlora", precision="bf16-pure", optimizer="adamw", seq_len_tokens=512, micro_batch_size=2,
             recompute="full", lora_rank=8)
    streamed = estimate_memory(llama7b, MemoryWorkload(**w))
    searched = estimate_memory(llama7b, MemoryWorkload(**w, weight_loading="nf4-nearest-search"))
    # One bitsandbytes-style per-tensor copy never exceeds a training step's working set.
    assert streamed.component("loading_reserve") == 0
    # torchao 0.1 to_nf4: (value - 16 codes) and its abs(), 2 x 16 x 2 B a weight, cached once for the 4096 x 4096
    # attention projections and again for the larger 4096 x 11008 MLP matrices (the caching allocator cannot serve
    # the larger request from the smaller segments), beside the MLP matrix's input and scaled blocks (2 x 2 B).
    staging = 4096 * 11008 * 2 * 2 + (4096 * 4096 + 4096 * 11008) * 2 * 32
    assert searched.allocated_bytes == streamed.allocated_bytes
    assert searched.reserved_bytes == pytest.approx(streamed.component("weights") + staging, rel=0.05)
    # torchtune's QLoRA tutorial (0914d5cf) logs 9.13 GB reserved after model init; a replay of the allocator over
    # that init gives 9.15 GB (the rest is the resident NF4 blocks splitting cached segments): the sum stays below.
    assert 0.85 * 9.13e9 < searched.reserved_bytes < 9.13e9
    assert searched.reserved_bytes > streamed.reserved_bytes + 1 * GIB
    # A larger batch's training peak overtakes the loading peak: the reserved figure is max(loading, training).
    big = dict(w, micro_batch_size=64, seq_len_tokens=2048)
    assert estimate_memory(llama7b, MemoryWorkload(**big, weight_loading="nf4-nearest-search")).reserved_bytes == \
        estimate_memory(llama7b, MemoryWorkload(**big)).reserved_bytes
    with pytest.raises(SizingError) as err:
        estimate_memory(llama7b, MemoryWorkload(**dict(w, mode="lora"), weight_loading="nf4-nearest-search"))
    assert err.value.field == "weight_loading"


def test_fsdp1_sync_module_states_stages_two_unsharded_root_units():
    llama7b = spec_from_hf_config(CONFIGS / "llama-2-7b.config.json")
    w = dict(mode="qlora", precision="bf16-pure", optimizer="adamw", gpus=2, sharding="fsdp", recompute="full",
             seq_len_tokens=16, fsdp_version=1, lora_rank=8, lora_targets=("q_proj", "v_proj"))
    est = estimate_memory(llama7b, MemoryWorkload(**w, weight_loading="fsdp1-sync-states"))
    plain = estimate_memory(llama7b, MemoryWorkload(**w))
    # Root unit = bf16 embeddings + LM head (2 x 32000 x 4096); moved to the GPU unsharded, then flattened.
    root = 2 * 32000 * 4096 * 2
    assert est.component("loading_reserve") > 0
    # Resident after the wrap: this rank's NF4 shard (bf16 embeddings and head included) and its adapters.
    assert est.reserved_bytes == pytest.approx(plain.component("weights") + 2 * root, rel=0.01)
    # Training's reserve now holds the unsharded root unit too (FSDP1 does not reshard it after forward), so the
    # loading peak is only a little higher.
    assert est.reserved_bytes > plain.reserved_bytes
    assert est.allocated_bytes == plain.allocated_bytes
    with pytest.raises(SizingError) as err:
        estimate_memory(llama7b, MemoryWorkload(**dict(w, gpus=1, sharding="ddp"), weight_loading="fsdp1-sync-states"))
    assert err.value.field == "weight_loading"


def test_nf4_without_double_quantisation_costs_an_fp32_absmax_per_64_weights():
    llama7b = spec_from_hf_config(CONFIGS / "llama-2-7b.config.json")
    w = dict(mode="qlora", precision="bf16-pure", optimizer="adamw", seq_len_tokens=512, recompute="full")
    dq = estimate_memory(llama7b, MemoryWorkload(**w)).component("weights")
    plain = estimate_memory(llama7b, MemoryWorkload(**w, double_quant=False)).component("weights")
    quantised = llama7b.params - llama7b.embedding_params
    assert plain - dq == pytest.approx(quantised * (4.5 - (4 + 8 / 64 + 32 / (64 * 256))) / 8, rel=1e-6)


def test_fp32_upcast_inside_a_compiled_loss_keeps_16_bit_logits_and_gradient(llama8b):
    """torchtitan's compiled cross-entropy (upcast inside the compiled graph) keeps 2 + 2 bytes per logit element,
    a third of the eager upcast's 12; at Llama 3 8B, batch 1 x 8192, that is 7.8 GiB less."""
    w = dict(mode="lora", precision="bf16-pure", optimizer="adamw", seq_len_tokens=8192, micro_batch_size=1,
             recompute="full", compiled=True)
    eager = estimate_memory(llama8b, MemoryWorkload(**w)).component("logits")
    fused = estimate_memory(llama8b, MemoryWorkload(**w, loss="standard-compiled")).component("logits")
    elements = 8192 * llama8b.vocab_size
    assert eager == elements * 12 and fused == elements * 4
    assert (eager - fused) / 2**30 == pytest.approx(7.83, abs=0.01)
    whole = [estimate_memory(llama8b, MemoryWorkload(**w, loss=loss)).total_bytes for loss in ("standard",
                                                                                                "standard-compiled")]
    assert whole[0] - whole[1] == pytest.approx(eager - fused, rel=0.06)  # plus the allocator slack on it


def test_dtensor_sequence_parallel_keeps_the_gathered_linear_inputs():
    """torchtitan's sequence parallel all-gathers before the attention and MLP linears and the output layer, and
    autograd keeps the gathered tensor: under full recompute the layer being recomputed and the output layer hold
    3 x 2*s*b*h*(1 - 1/t) bytes more than Megatron-LM's sharded inputs; nothing changes without TP."""
    spec = spec_from_hf_config(CONFIGS / "llama-3.1-70b.config.json")
    w = dict(mode="train", precision="bf16", optimizer="adamw", seq_len_tokens=8192, micro_batch_size=16,
             recompute="full", gpus=256, sharding="fsdp", tensor_parallel=8, sequence_parallel=True, compiled=True)
    megatron = estimate_memory(spec, MemoryWorkload(**w)).component("activations")
    dtensor = estimate_memory(spec, MemoryWorkload(**w, sp_gathered_inputs=True)).component("activations")
    sbh = 8192 * 16 * spec.hidden_size
    assert dtensor - megatron == pytest.approx(3 * 2 * sbh * 7 / 8)
    assert (dtensor - megatron) / 2**30 == pytest.approx(5.25, abs=0.01)
    no_tp = dict(w, tensor_parallel=1, sequence_parallel=False, micro_batch_size=1)
    assert estimate_memory(spec, MemoryWorkload(**no_tp, sp_gathered_inputs=True)).total_bytes == \
        estimate_memory(spec, MemoryWorkload(**no_tp)).total_bytes


def test_trl_late_2025_notebook_cast_without_upcast_is_estimated_not_refused():
    # TRL examples/notebooks/sft_trl_lora_qlora.ipynb at f6834206a: Qwen3-14B QLoRA on a T4, TRL's own kbit
    # preparation (no upcast) then peft_module_casting_to_bf16; 14.041 GiB reserved. Refused before (0 estimate).
    import json

    from gpudesk.sizing.validation import UNIT_BYTES, case_workload

    path = CONFIGS.parent / "measured_peaks_fresh12.jsonl"
    row = next(r for r in map(json.loads, filter(None, path.read_text(encoding="utf-8").splitlines()))
               if r["id"] == "fresh12-trlnb2510-qlora-qwen3-14b-unsloth-bnb4-t4")
    est = estimate_memory(spec_from_hf_config(CONFIGS / "qwen3-14b.config.json"), case_workload(row))
    assert any("peft_module_casting_to_bf16" in a for a, _ in est.assumptions)
    # Unsloth's dynamic checkpoint keeps some layers in 16 bits (not expressible): the estimate may only be low.
    assert 0.75 <= est.statistic_bytes(row["statistic"]) / (row["value"] * UNIT_BYTES[row["unit"]]) <= 1.0


def test_deepspeed_zero3_steps_one_sub_group_at_a_time():
    # DeepSpeedZeroOptimizer_Stage3.step: per sub-group (sub_group_size 1e9), the fp32 gradient made from the 16-bit
    # partition and the foreach AdamW temporary; PyTorch FSDP (also sharding zero3) steps all shards at once.
    qwen7b = spec_from_hf_config(CONFIGS / "qwen-7b.config.json")
    w = dict(mode="train", precision="bf16", optimizer="adamw", seq_len_tokens=256, micro_batch_size=1,
             gradient_accumulation=True, gpus=2, recompute="full")
    deepspeed = estimate_memory(qwen7b, MemoryWorkload(**w, sharding="zero3"))
    assert deepspeed.component("optimizer_step_temporaries") == pytest.approx(1e9 * (4 + 4))
    fused = estimate_memory(qwen7b, MemoryWorkload(**w, sharding="zero3", optimizer_impl="fused"))
    # Fused AdamW keeps no temporary: the flat bf16 copy the fp32 gradient is cast from is the larger transient
    # (``_prepare_fp32_grad_for_sub_group``, optimizers.zero3_sub_group_step_bytes; memfix43).
    assert fused.component("optimizer_step_temporaries") == pytest.approx(1e9 * (4 + 2))
    # The accounting names are closed per-parameter accountings (adam-18 already holds fp32 gradients).
    accounted = estimate_memory(qwen7b, MemoryWorkload(**dict(w, optimizer="adam-18"), sharding="zero3"))
    assert accounted.component("optimizer_step_temporaries") == 0
    fsdp = estimate_memory(qwen7b, MemoryWorkload(**w, sharding="fsdp"))
    assert fsdp.component("optimizer_step_temporaries") == pytest.approx(qwen7b.params / 2 * 4, rel=1e-6)
    # A partition under one sub-group steps whole: 8 GPUs hold 0.97 B parameters each.
    eight = estimate_memory(qwen7b, MemoryWorkload(**dict(w, gpus=8), sharding="zero3"))
    assert eight.component("optimizer_step_temporaries") == pytest.approx(qwen7b.params / 8 * 8, rel=1e-6)
    # QwenLM/Qwen README (e8e15962) full fine-tuning of Qwen-7B on 2 x A100 with ds_config_zero3 at sequence 256:
    # 139.2 GB over the two GPUs; the sub-group step brings the estimate from +22 % to within 15 %.
    assert deepspeed.total_bytes / 69.6e9 == pytest.approx(1.0, abs=0.15)
    assert any("sub-group" in text for text, _source in deepspeed.assumptions)


def test_autocast_over_a_frozen_fp32_base_keeps_16bit_weight_casts():
    # lit-gpt tutorials/finetune_lora.md at 0cc02afa: StableLM Alpha 3B LoRA, bf16-mixed (fp32 base under
    # torch.autocast), micro-batch 1, no checkpointing: 26.92 GB max_memory_allocated. Autocast does not cache the
    # casts of frozen weights, so every block's Linear keeps its bf16 copy for backward until that block's backward.
    stablelm = spec_from_hf_config(CONFIGS / "stablelm-base-alpha-3b.config.json")
    w = dict(mode="lora", optimizer="adamw", seq_len_tokens=1034, micro_batch_size=1, gradient_accumulation=True,
             loss="standard-16bit", lora_rank=8, lora_targets=("q_proj", "v_proj"), lora_dropout=0.05)
    amp = estimate_memory(stablelm, MemoryWorkload(**w, precision="bf16-amp", recompute="none"))
    casts = 2 * (stablelm.params - stablelm.embedding_params) + 2 * stablelm.vocab_size * stablelm.hidden_size
    assert any("16-bit cast" in text for text, _source in amp.assumptions)
    assert amp.allocated_bytes / 26.92e9 == pytest.approx(1.0, abs=0.15)
    # Recompute keeps only the recomputed block's casts and the LM head's.
    recomputed = estimate_memory(stablelm, MemoryWorkload(**w, precision="bf16-amp", recompute="full"))
    block = (stablelm.params - stablelm.embedding_params) / stablelm.layers
    plain = estimate_memory(stablelm, MemoryWorkload(**w, precision="bf16", recompute="none"))
    assert not any("16-bit cast" in text for text, _source in plain.assumptions)
    head = 2 * stablelm.vocab_size * stablelm.hidden_size
    assert amp.component("activations") - recomputed.component("activations") > casts - 2 * block - head
    # Under FSDP / ZeRO-3 the base is gathered in the 16-bit compute dtype: nothing is cast.
    sharded = estimate_memory(stablelm, MemoryWorkload(**w, precision="bf16-amp", recompute="none", gpus=2,
                                                       sharding="fsdp"))
    assert not any("16-bit cast" in text for text, _source in sharded.assumptions)


def test_zero12_steps_with_an_fp32_copy_of_the_gradient_partition():
    # ColossalChat 'Hardware Requirements' (hpcaitech/ColossalAI d888c378, benchmarks/benchmark_sft.py): Llama-2-7B
    # full SFT under LowLevelZeroPlugin stage 2, bf16, HybridAdam, checkpointing + flash, 2048 tokens.
    # LowLevelZeroOptimizer.step converts every gradient partition to fp32 (grad.to(master_param.dtype)) while the
    # bf16 partition stays in its store: on 2 GPUs that step, not the activations, is the peak ('Max CUDA memory
    # usage' 72390.95 MiB at batch 4).
    llama7b = spec_from_hf_config(CONFIGS / "llama-2-7b.config.json")
    w = dict(mode="train", precision="bf16", optimizer="adamw", optimizer_impl="fused", seq_len_tokens=2048,
             recompute="full", flash_attention=True, sharding="zero2")
    two = estimate_memory(llama7b, MemoryWorkload(**w, gpus=2, micro_batch_size=4))
    assert two.component("optimizer_step_temporaries") == pytest.approx(llama7b.params * 4 / 2, rel=1e-6)
    assert two.component("activations") == 0
    assert two.allocated_bytes / 2**20 == pytest.approx(72390.95, rel=0.05)
    # On 4 GPUs at batch 8 (43446.31 MiB) the partition is half as large and the activations stay the peak.
    four = estimate_memory(llama7b, MemoryWorkload(**w, gpus=4, micro_batch_size=8))
    assert four.component("optimizer_step_temporaries") == 0 and four.component("activations") > 0
    # (rel 0.08: the ZeRO-2 reduce bucket is counted at DeepSpeed's 5e8-element default, gpudesk.sizing.zero2_buffers;
    # ColossalAI's LowLevelZeroOptimizer buckets 12 M elements.)
    assert four.allocated_bytes / 2**20 == pytest.approx(43446.31, rel=0.08)
    # ZeRO-1 copies only this GPU's partition although its bf16 gradients are whole.
    zero1 = estimate_memory(llama7b, MemoryWorkload(**dict(w, sharding="zero1"), gpus=8, micro_batch_size=1))
    assert zero1.component("optimizer_step_temporaries") == pytest.approx(llama7b.params * 4 / 8, rel=1e-6)
    # No copy: PyTorch FSDP SHARD_GRAD_OP, the closed accountings.
    for change in (dict(sharding="fsdp-grad-op"), dict(optimizer="adam-16")):
        est = estimate_memory(llama7b, MemoryWorkload(**dict(w, **change), gpus=2, micro_batch_size=4))
        assert est.component("optimizer_step_temporaries") == 0, change
    # With the optimizer offloaded the gradients go to the host, but DeepSpeed's step moves the updated fp32 master
    # partition back to the GPU whole before casting it (gpudesk.sizing.zero2_buffers): the same P / N x 4 bytes.
    off = estimate_memory(llama7b, MemoryWorkload(**dict(w, offload="optimizer"), gpus=2, micro_batch_size=4))
    assert off.component("optimizer_step_temporaries") == pytest.approx(llama7b.params * 4 / 2, rel=1e-6)


def test_zero_step_fp32_gradient_copy_whatever_the_optimizer():
    # DeepSpeed DeepSpeedZeroOptimizer.step (stage_1_and_2.py at edaa7221) casts the flat gradient partition to the
    # fp32 master's dtype for any optimizer; stage3.py's _prepare_fp32_grad_for_sub_group likewise. The names
    # adam-8bit and sgd are optimizers, not closed accountings: they must cost what adamw_8bit / sgd_momentum cost.
    qwen7b = spec_from_hf_config(CONFIGS / "qwen-7b.config.json")
    w = dict(mode="train", precision="bf16", seq_len_tokens=256, micro_batch_size=1, gradient_accumulation=True,
             gpus=2, recompute="full")
    # ZeRO-3 also holds the flat bf16 copy the fp32 gradient is cast from (optimizers.zero3_sub_group_step_bytes, memfix43).
    for sharding, fp32_grad_bytes in (("zero1", qwen7b.params / 2 * 4), ("zero2", qwen7b.params / 2 * 4),
                                      ("zero3", 1e9 * (4 + 2))):
        for name, alias in (("adam-8bit", "adamw_8bit"), ("sgd", "sgd_momentum")):
            est = estimate_memory(qwen7b, MemoryWorkload(**w, optimizer=name, sharding=sharding))
            assert est.component("optimizer_step_temporaries") == pytest.approx(fp32_grad_bytes), (sharding, name)
            same = estimate_memory(qwen7b, MemoryWorkload(**w, optimizer=alias, sharding=sharding))
            assert est.allocated_bytes == pytest.approx(same.allocated_bytes), (sharding, name)
        # adam-18 counts fp32 gradients already (a closed accounting): nothing more.
        closed = estimate_memory(qwen7b, MemoryWorkload(**w, optimizer="adam-18", sharding=sharding))
        assert closed.component("optimizer_step_temporaries") == 0


def test_staging_sizes_that_need_new_allocator_segments():
    from gpudesk.sizing.loading import largest_matrix_elements, layer_matrix_elements, staging_size_records

    llama7b = spec_from_hf_config(CONFIGS / "llama-2-7b.config.json")
    # q, k, v, o (4096 x 4096), then gate, up, down (4096 x 11008): two sizes, each larger than all before it.
    assert layer_matrix_elements(llama7b) == [4096 * 4096] * 4 + [4096 * 11008] * 3
    assert staging_size_records(llama7b) == [4096 * 4096, 4096 * 11008]
    # Llama 3.1 8B (GQA, 8 KV heads): the k and v projections are smaller than q and reuse its cached segments.
    llama8b = spec_from_hf_config(CONFIGS / "llama-3.1-8b.config.json")
    assert staging_size_records(llama8b) == [4096 * 4096, 4096 * 14336]
    assert staging_size_records(llama8b)[-1] == largest_matrix_elements(llama8b)
