"""Engine memory models: vLLM V0/V1, SGLang, TensorRT-LLM, llama.cpp, Ollama, on catalog models."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing import SizingError, spec_from_catalog
from gpudesk.sizing.engines.device import DeviceMemory, apple_wired_limit_bytes, unified_device
from gpudesk.sizing.engines.fit import engine_fit
from gpudesk.sizing.engines.terms import engine_title, memory_rows

GIB = 1024**3
H100 = DeviceMemory("H100", int(79.18 * GIB))
RTX4090 = DeviceMemory("RTX 4090", int(23.61 * GIB))


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def spec(catalog, model_id: str):
    return spec_from_catalog(catalog.model(model_id))


def test_vllm_kv_budget_is_utilization_minus_weights_activation_non_torch(catalog) -> None:
    r = engine_fit("vllm", spec(catalog, "llama-3-8b"), H100, ["max_model_len=8192"], version="0.11.0")
    m = r.per_gpu
    budget = 79.18 * GIB * 0.9 - m.weights_bytes - m.activation_bytes - m.non_torch_bytes
    # blocks of 16 tokens x 128 KiB per token (32 layers x 8 KV heads x 128 x 2 x bf16)
    assert r.kv_cache_blocks == int(budget // (16 * 128 * 1024))
    assert r.kv_cache_tokens == r.kv_cache_blocks * 16
    assert r.max_concurrency == pytest.approx(r.kv_cache_tokens / 8192, rel=1e-6)
    assert r.fits and r.command.startswith("vllm serve ") and "--max-model-len 8192" in r.command


def test_vllm_keeps_cuda_graphs_inside_the_budget_from_0_21(catalog) -> None:
    """vLLM 0.21 profiles the CUDA graph pool inside gpu_memory_utilization (club-3090#104's log); before, graphs
    were captured after the KV cache; enforce_eager has none; ``v1`` is the newest release."""
    from gpudesk.sizing.engines.vllm import graphs_in_budget

    assert [graphs_in_budget(v) for v in ("0.11.0", "0.20.1", "0.21.0", "v1", "0.6.4")] == [
        False, False, True, True, False]
    llama = spec(catalog, "llama-3-8b")
    old, new = (engine_fit("vllm", llama, H100, ["max_model_len=8192"], version=v) for v in ("0.20.1", "0.21.0"))
    eager = engine_fit("vllm", llama, H100, ["max_model_len=8192", "enforce_eager=true"], version="0.21.0")
    assert new.per_gpu.cuda_graph_bytes > 0 and eager.per_gpu.cuda_graph_bytes == 0
    assert old.extra["kv_budget_bytes"] - new.extra["kv_budget_bytes"] == pytest.approx(new.per_gpu.cuda_graph_bytes,
                                                                                        abs=1)
    assert eager.extra["kv_budget_bytes"] == old.extra["kv_budget_bytes"]


def test_vllm_v0_profiles_max_model_len_tokens_without_chunked_prefill(catalog) -> None:
    v0 = engine_fit("vllm", spec(catalog, "llama-3-8b"), H100, ["max_model_len=8192"], version="0.5.4")
    v1 = engine_fit("vllm", spec(catalog, "llama-3-8b"), H100, ["max_model_len=8192"], version="0.8.5")
    assert v0.engine_version == "0.5.4" and v1.engine_version == "0.8.5"
    assert v0.extra["engine_family"] == "v0" and v1.extra["engine_family"] == "v1"
    assert engine_title(v0) == "vLLM 0.5.4 (V0 engine)"
    assert v0.extra["max_num_batched_tokens"] == 8192 and v1.extra["max_num_batched_tokens"] == 8192
    small = engine_fit("vllm", spec(catalog, "llama-3-8b"), RTX4090, [], version="v1")
    assert small.extra["max_num_batched_tokens"] == 2048


def test_vllm_too_long_context_is_refused_with_changes_that_fit(catalog) -> None:
    r = engine_fit("vllm", spec(catalog, "llama-3.1-8b"), RTX4090, [])
    assert not r.fits and "max seq len (131072)" in r.reason
    assert r.changes and all("vllm serve" in c.command for c in r.changes)
    fixed = engine_fit("vllm", spec(catalog, "llama-3.1-8b"), RTX4090,
                       [f"{k}={v}" for k, v in r.changes[0].settings.items()])
    assert fixed.fits


def test_tensor_parallel_splits_weights_and_kv_heads(catalog) -> None:
    one = engine_fit("vllm", spec(catalog, "llama-3-70b"), H100, ["max_model_len=8192"], tensor_parallel=4)
    assert one.gpus == 4
    assert one.per_gpu.weights_bytes == pytest.approx(70.55e9 * 2 / 4, rel=0.01)
    assert "--tensor-parallel-size 4" in one.command


def test_unknown_setting_is_refused_with_the_engines_names(catalog) -> None:
    with pytest.raises(SizingError, match="gpu_memory_utilization"):
        engine_fit("vllm", spec(catalog, "llama-3-8b"), H100, ["gpu_mem=0.9"])
    with pytest.raises(SizingError, match="mem_fraction_static"):
        engine_fit("sglang", spec(catalog, "llama-3-8b"), H100, ["gpu_memory_utilization=0.9"])
    with pytest.raises(SizingError, match="not a valid float"):
        engine_fit("vllm", spec(catalog, "llama-3-8b"), H100, ["gpu_memory_utilization=most"])
    with pytest.raises(SizingError, match="unknown engine"):
        engine_fit("tgi2", spec(catalog, "llama-3-8b"), H100, [])


def test_sglang_pool_and_running_requests(catalog) -> None:
    r = engine_fit("sglang", spec(catalog, "llama-3-8b"), H100, ["mem_fraction_static=0.85"])
    cell = 32 * 8 * 128 * 2 * 2
    # profile_max_num_token: free after the weights - free before them (min_per_gpu_memory) x (1 - fraction)
    free_before = 79.18 * GIB - 0.75 * GIB
    rest = free_before - r.per_gpu.weights_bytes - free_before * 0.15
    assert r.kv_cache_tokens == int(rest // cell)
    assert r.extra["max_running_requests"] == min(r.kv_cache_tokens // 2,
                                                  min(max(int(r.kv_cache_tokens / 8192 * 512), 2048), 4096))
    assert "--mem-fraction-static 0.85" in r.command


def test_trtllm_blocks_of_tokens_per_block(catalog) -> None:
    r = engine_fit("trtllm", spec(catalog, "llama-3-8b"), H100, ["free_gpu_memory_fraction=0.5", "tokens_per_block=64"])
    assert r.kv_cache_tokens == r.kv_cache_blocks * 64
    capped = engine_fit("trtllm", spec(catalog, "llama-3-8b"), H100, ["max_tokens=10000", "tokens_per_block=64"])
    assert capped.kv_cache_tokens == 10000 // 64 * 64


def test_llamacpp_buffers_and_layer_split(catalog) -> None:
    s = spec(catalog, "llama-3-8b")
    full = engine_fit("llamacpp", s, RTX4090, ["n_ctx=8192"], weight_format="q4_k_m")
    cuda, cpu = full.extra["buffers"]
    # llama.cpp logs for Meta-Llama-3-8B Q4_K_M: CUDA0 buffer 4403.49 MiB, CPU 281.81 MiB, KV 1024 MiB at 8192.
    assert cuda["model_bytes"] / 2**20 == pytest.approx(4403.49, rel=0.001)
    assert cpu["model_bytes"] / 2**20 == pytest.approx(281.81, rel=0.001)
    assert cuda["kv_bytes"] == 1024 * 2**20
    half = engine_fit("llamacpp", s, RTX4090, ["n_ctx=8192", "n_gpu_layers=16"], weight_format="q4_k_m")
    assert half.extra["buffers"][0]["layers"] == 16 and half.extra["buffers"][0]["kv_bytes"] == 512 * 2**20
    assert half.host_bytes > full.host_bytes
    q8 = engine_fit("llamacpp", s, RTX4090, ["n_ctx=8192", "flash_attn=true", "cache_type_k=q8_0",
                                             "cache_type_v=q8_0"], weight_format="q4_k_m")
    assert q8.extra["buffers"][0]["kv_bytes"] == 1024 * 2**20 * 34 // 64
    two = engine_fit("llamacpp", s, RTX4090, ["n_ctx=8192", "tensor_split=3,1"], weight_format="q4_k_m", gpus=2)
    assert [b["layers"] for b in two.extra["buffers"][:2]] == [24, 8]


def test_llamacpp_quantised_v_needs_flash_attention(catalog) -> None:
    with pytest.raises(SizingError, match="flash attention"):
        engine_fit("llamacpp", spec(catalog, "llama-3-8b"), RTX4090, ["cache_type_v=q8_0"], weight_format="q4_k_m")


def test_llamacpp_that_does_not_fit_gets_ngl_kv_or_context_changes(catalog) -> None:
    small = DeviceMemory("8 GB", int(7.6 * GIB))
    r = engine_fit("llamacpp", spec(catalog, "llama-3-8b"), small, ["n_ctx=32768"], weight_format="q4_k_m")
    assert not r.fits
    texts = " ".join(c.text for c in r.changes)
    assert "q8_0" in texts and "-ngl" in texts
    assert all(engine_fit("llamacpp", spec(catalog, "llama-3-8b"), small,
                          ["n_ctx=32768"] + [f"{k}={v}" for k, v in c.settings.items()],
                          weight_format="q4_k_m").fits for c in r.changes)


def test_ollama_offloads_all_layers_when_they_fit_and_fewer_when_not(catalog) -> None:
    s = spec(catalog, "llama-3-8b")
    r = engine_fit("ollama", s, RTX4090, ["num_ctx=8192"], weight_format="q4_k_m")
    assert r.fits and r.extra["layers_offload"] == 33 and r.extra["memory_required_kv_bytes"] == 1024 * 2**20
    tight = engine_fit("ollama", s, DeviceMemory("4 GB", 4 * GIB), ["num_ctx=8192"], weight_format="q4_k_m")
    assert not tight.fits and 0 < tight.extra["layers_offload"] < 33


def test_unified_memory_devices() -> None:
    assert apple_wired_limit_bytes(32 * GIB) == 32 * GIB * 2 // 3
    assert apple_wired_limit_bytes(64 * GIB) == 48 * GIB
    assert apple_wired_limit_bytes(64 * GIB, wired_limit_mb=57344) == 56 * GIB
    mac = unified_device("m3-max-128")
    assert mac is not None and mac.unified and mac.backend == "Metal" and mac.total_bytes == 96 * GIB
    spark = unified_device("gb10")
    assert spark is not None and spark.unified and spark.total_bytes < 128 * 10**9
    assert unified_device("h100-sxm5") is None


def test_llamacpp_tied_embedding_is_duplicated_on_the_output_device(catalog) -> None:
    # Llama 3.2 3B Q4_K_M on Metal (ollama#12912): CPU 308.23 MiB, Metal 1918.35 MiB including the copied embedding.
    mac = DeviceMemory("M2", 10 * GIB, "Metal", True)
    r = engine_fit("llamacpp", spec(catalog, "llama-3.2-3b"), mac, ["n_ctx=16384"], weight_format="q4_k_m")
    metal, cpu = r.extra["buffers"]
    assert metal["label"] == "Metal"
    assert cpu["model_bytes"] / 2**20 == pytest.approx(308.23, rel=0.001)
    assert metal["model_bytes"] / 2**20 == pytest.approx(1918.35, rel=0.001)


def test_llamacpp_kv_cells_are_padded_to_32_or_256_with_flash_attention(catalog) -> None:
    s = spec(catalog, "qwen2.5-7b")
    plain = engine_fit("llamacpp", s, RTX4090, ["n_ctx=72000"], weight_format="q8_0")
    flash = engine_fit("llamacpp", s, RTX4090, ["n_ctx=72000", "flash_attn=true"], weight_format="q8_0")
    per_cell = 28 * 4 * 128 * 2 * 2
    assert plain.extra["buffers"][0]["kv_bytes"] == 72000 * per_cell
    assert flash.extra["buffers"][0]["kv_bytes"] == 72192 * per_cell


def test_vllm_default_max_num_seqs_follows_release_and_gpu(catalog) -> None:
    """EngineArgs' V1 defaults as the 0.8.0, 0.8.4, 0.8.5, 0.9.0 and 0.11.0 wheels set them; V0 keeps 256."""
    from gpudesk.sizing.engines.vllm import default_batched_tokens, default_max_num_seqs, v1_batch_defaults

    h100, a100, l40s = int(79.19 * GIB), int(79.15 * GIB), int(44.4 * GIB)
    assert default_max_num_seqs("0.11.0", h100, "NVIDIA H100 80GB HBM3") == 1024
    assert default_max_num_seqs("0.11.0", a100, "NVIDIA A100-SXM4-80GB") == 256  # 0.9.0 on: not an A100
    assert default_max_num_seqs("0.8.5", a100, "NVIDIA A100-SXM4-80GB") == 1024  # 0.8.5: memory alone
    assert default_max_num_seqs("0.8.4", a100, "NVIDIA A100-SXM4-80GB") == 256  # 0.8.4: H100/H200 by name
    assert v1_batch_defaults("0.8.0", l40s, "NVIDIA L40S") == (1024, 2048)  # 0.8.0-0.8.3: 1024 everywhere
    assert default_max_num_seqs("0.11.0", int(23.6 * GIB), "NVIDIA GeForce RTX 3090") == 256
    assert default_max_num_seqs("0.6.4", h100, "NVIDIA H100 80GB HBM3") == 256  # V0
    assert default_batched_tokens(True, 8192, h100, None, "v1", "H100") == 8192
    assert default_batched_tokens(False, 20000, h100, None, "0.6.4", "H100") == 20000


def test_vllm_v1_profiles_the_sampler_with_top_k_and_top_p(catalog) -> None:
    """V1's dummy sampler run sorts min(max_num_seqs, batched tokens) full-vocabulary rows without FlashInfer: the
    sort's peak is 38 bytes a logit from 128 rows (PyTorch SortStable.cu + CUB's alternate buffers), so gpt-oss's
    201,088-token vocabulary at 1024 rows costs 7.3 GiB of the KV budget; FlashInfer's kernels need 14."""
    from gpudesk.sizing.engines.forward import torch_sort_peak_bytes_per_logit, v1_profile_peak_bytes

    oss = spec(catalog, "gpt-oss-120b")
    assert torch_sort_peak_bytes_per_logit(1024) == 38
    assert torch_sort_peak_bytes_per_logit(64) == 50 and torch_sort_peak_bytes_per_logit(1) == 30
    peak = v1_profile_peak_bytes(oss, 1024, 1024)
    assert peak == 1024 * 201088 * 38 + 1024 * oss.hidden_size * 2
    assert v1_profile_peak_bytes(oss, 1024, 1024, flashinfer=True) == 1024 * 201088 * 14 + 1024 * oss.hidden_size * 2
    assert v1_profile_peak_bytes(oss, 1024, 256) < peak / 3
    r = engine_fit("vllm", oss, H100, ["gpu_memory_utilization=0.95", "max_num_batched_tokens=1024"],
                   version="0.11.0")
    assert r.per_gpu.activation_bytes == pytest.approx(peak)
    assert any("FlashInfer" in text for text, _src in r.assumptions)
    fi = engine_fit("vllm", oss, H100, ["gpu_memory_utilization=0.95", "max_num_batched_tokens=1024",
                                        "vllm_use_flashinfer_sampler=true"], version="0.11.0")
    assert fi.per_gpu.kv_cache_bytes > r.per_gpu.kv_cache_bytes
    assert fi.command.startswith("VLLM_USE_FLASHINFER_SAMPLER=1 vllm serve ")
    assert "vllm_use_flashinfer_sampler" not in fi.command and "VLLM_USE_FLASHINFER_SAMPLER" not in r.command


def test_memory_rows_name_each_engines_terms_and_sum_to_the_total(catalog) -> None:
    sg = engine_fit("sglang", spec(catalog, "llama-3-8b"), H100, ["context_length=8192"], version="0.4.3")
    rows = dict(memory_rows(sg))
    assert rows["outside mem_fraction_static (activations, CUDA graphs)"] == pytest.approx(
        (H100.total_bytes - sg.per_gpu.non_torch_bytes) * (1 - sg.extra["mem_fraction_static"]))
    assert "activation peak (profile run)" not in rows
    assert sum(v for k, v in rows.items() if k != "total per GPU") == pytest.approx(rows["total per GPU"])
    assert engine_title(sg) == "SGLang 0.4.3"
    vl = dict(memory_rows(engine_fit("vllm", spec(catalog, "llama-3-8b"), H100, ["max_model_len=8192"])))
    assert "activation peak (profile run)" in vl and "non-torch memory" in vl


def test_vllm_v0_profile_peak_is_the_sorted_sampler_when_it_outgrows_the_forward() -> None:
    from gpudesk.sizing.engines.forward import layer_peak_bytes, v0_profile_peak_bytes
    from gpudesk.sizing.shapes import spec_from_hf_config
    from pathlib import Path

    qwen32 = spec_from_hf_config(Path(__file__).parents[2] / "fixtures" / "engines" / "configs" / "qwen2.5-32b.json")
    # vLLM 0.7.3, TP 2, 10,000 profiled tokens, 256 sequences (issue 15815): the sort of 256 rows, 38 bytes a logit.
    peak = v0_profile_peak_bytes(qwen32, 10_000, 256, 2)
    assert peak == pytest.approx(256 * 152_064 * 38 + 10_000 * 5_120 * 2)
    # 29,000 tokens of Llama-3.1-8B: the forward's MLP outgrows the sampler (issue 10517 printed 2.99 GiB).
    llama = spec_from_catalog(open_catalog().model("llama-3.1-8b"))
    assert v0_profile_peak_bytes(llama, 29_000, 256) == layer_peak_bytes(llama, 29_000)


def test_vllm_v1_sorts_more_sampler_rows_than_v0(catalog) -> None:
    """V0 samples 256 sequences on the driver; V1 (0.8.5, >= 70 GiB: max_num_seqs 1024) sorts 1024 rows, 38 bytes a
    logit at the sort, in its dummy sampler run (gpu_model_runner.py _dummy_sampler_run, topk_topp_sampler.py)."""
    qwen = spec(catalog, "qwen2.5-14b")
    v0 = engine_fit("vllm", qwen, H100, ["max_model_len=8192", "max_num_batched_tokens=2048",
                                         "enable_chunked_prefill=true"], version="0.7.2")
    v1 = engine_fit("vllm", qwen, H100, ["max_model_len=8192", "max_num_batched_tokens=2048"], version="0.8.5")
    assert v0.per_gpu.activation_bytes == pytest.approx(256 * 152_064 * 38 + 2048 * 5120 * 2)
    assert v1.per_gpu.activation_bytes == pytest.approx(1024 * 152_064 * 38 + 2048 * 5120 * 2)


def test_vllm_pads_mxfp4_experts_for_its_moe_kernel(catalog) -> None:
    from gpudesk.sizing.engines.vllm import mxfp4_padding_bytes

    oss = spec(catalog, "gpt-oss-120b")
    experts = 36 * 128
    # Marlin (0.10.1): intermediate 2880 -> 2944, hidden 2880 -> 3072; Triton (0.14.1): hidden only.
    assert mxfp4_padding_bytes(oss, "mxfp4", "0.10.1") == pytest.approx(
        experts * 3 * (2944 * 3072 - 2880 * 2880) * 4.25 / 8)
    assert mxfp4_padding_bytes(oss, "mxfp4", "0.14.1") == pytest.approx(
        experts * 3 * (2880 * 3072 - 2880 * 2880) * 4.25 / 8)
    assert mxfp4_padding_bytes(oss, "bf16", "0.14.1") == 0.0
    assert mxfp4_padding_bytes(spec(catalog, "llama-3-8b"), "mxfp4", "0.14.1") == 0.0
    marlin = engine_fit("vllm", oss, H100, [], version="0.10.1")
    # the log printed "Model loading took 65.9651 GiB" (issue 23278): padded weights plus the bf16 expert biases
    assert marlin.per_gpu.weights_bytes / GIB == pytest.approx(65.9651, rel=0.002)


def test_vllm_triton_mxfp4_pads_the_per_rank_intermediate_size_to_64(catalog) -> None:
    # gpt-oss-20b at TP 2 on vLLM 0.19.0 ("Using 'TRITON' Mxfp4 MoE backend", llm-d-planner's sweep): 1440 columns a
    # rank become 1472, the hidden size 3072; "Model loading took 7.01 GiB" a rank.
    from gpudesk.sizing.engines.vllm import mxfp4_padding_bytes

    oss20 = spec(catalog, "gpt-oss-20b")
    experts = 24 * 32
    assert mxfp4_padding_bytes(oss20, "mxfp4", "0.19.0", tensor_parallel=2) == pytest.approx(
        experts * 3 * (1472 * 3072 - 1440 * 2880) * 4.25 / 8)
    h100 = DeviceMemory("H100", int(79.19 * GIB))
    r = engine_fit("vllm", oss20, h100, ["max_model_len=8192", "enable_prefix_caching=false"], version="0.19.0",
                   gpus=2, tensor_parallel=2)
    assert r.per_gpu.weights_bytes / GIB == pytest.approx(7.01, rel=0.03)


def test_vllm_mxfp4_moe_allocates_padded_bf16_expert_biases(catalog) -> None:
    """mxfp4.py create_weights: w13_bias (experts x 2 x padded intermediate) and w2_bias (experts x hidden), bf16,
    which the parameter count leaves out; with them vLLM 0.11.0's KV cache for gpt-oss-120b on one H100 at
    utilization 0.95 and 1024 batched tokens comes within 5 % of the 1.71 GiB it printed (issue 27508)."""
    from gpudesk.sizing.engines.vllm import mxfp4_expert_bias_bytes

    oss = spec(catalog, "gpt-oss-120b")
    assert mxfp4_expert_bias_bytes(oss, "mxfp4", "0.10.1") == 36 * 128 * (2 * 2944 + 3072) * 2  # Marlin
    assert mxfp4_expert_bias_bytes(oss, "mxfp4", "0.14.1") == 36 * 128 * (2 * 2880 + 2880) * 2  # Triton
    # TP 4 splits the intermediate size (720 -> 768 on Marlin), the hidden size stays whole on every rank.
    assert mxfp4_expert_bias_bytes(oss, "mxfp4", "0.10.1", 4) == 36 * 128 * (2 * 768 + 3072) * 2
    assert mxfp4_expert_bias_bytes(oss, "bf16", "0.10.1") == 0.0
    assert mxfp4_expert_bias_bytes(spec(catalog, "llama-3-8b"), "mxfp4", "0.10.1") == 0.0
    r = engine_fit("vllm", oss, H100, ["gpu_memory_utilization=0.95", "max_num_batched_tokens=1024"],
                   version="0.11.0")
    assert r.per_gpu.kv_cache_bytes / GIB == pytest.approx(1.71, rel=0.05)


def test_sglang_default_mem_fraction_static_follows_the_version() -> None:
    from gpudesk.sizing.engines.sglang import default_mem_fraction_static

    # 0.4 line: by TP only.
    assert default_mem_fraction_static(1, "0.4.9", 80 * GIB) == 0.88
    assert default_mem_fraction_static(8, "0.4.3", 80 * GIB) == 0.81
    # From 0.5.3 (PR 10975): (capacity - reserved) / capacity, reserved in MiB from the capacity buckets.
    rtx4090 = 24564 * 1024**2  # 512 + 2048 x 1.5 + 24 x 2 + 128 = 3760 MiB
    assert default_mem_fraction_static(1, "0.5.4", rtx4090) == round((24564 - 3760) / 24564, 3)
    h100 = 81559 * 1024**2  # 512 + 8192 x 1.5 + 256 x 2 + 128 = 13440 MiB
    assert default_mem_fraction_static(1, "0.5.4", h100) == round((81559 - 13440) / 81559, 3)
    # A smaller prefill chunk shrinks the reserve down to the 10 GiB floor of cards above 60 GiB.
    assert default_mem_fraction_static(1, "0.5.4", h100, chunked_prefill_size=2048) == round(
        (81559 - 10240) / 81559, 3)


def test_sglang_fit_uses_the_versions_default(catalog) -> None:
    old = engine_fit("sglang", spec(catalog, "llama-3-8b"), H100, ["context_length=8192"], version="0.4.4")
    new = engine_fit("sglang", spec(catalog, "llama-3-8b"), H100, ["context_length=8192"], version="0.5.4")
    assert old.extra["mem_fraction_static"] == 0.88
    assert new.extra["mem_fraction_static"] < 0.85
    assert new.kv_cache_tokens < old.kv_cache_tokens
    assert "--mem-fraction-static 0.8" in new.command


def test_vllm_prefix_caching_and_kv_connector_are_typed_and_kept_in_the_command(catalog) -> None:
    plain = engine_fit("vllm", spec(catalog, "llama-3-8b"), H100, ["max_model_len=8192"])
    r = engine_fit("vllm", spec(catalog, "llama-3-8b"), H100, [
        "max_model_len=8192", "enable_prefix_caching=true",
        'kv_transfer_config={"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'])
    assert r.kv_cache_blocks == plain.kv_cache_blocks
    assert "--enable-prefix-caching" in r.command
    assert """--kv-transfer-config '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'""" in r.command


def test_vllm_counts_the_cuda_context_only_while_it_measured_total_minus_free() -> None:
    """vLLM 0.2.5-0.3.0 measured ``total - free`` after profiling (PR 2031), so the CUDA context and NCCL count;
    0.3.1-0.6.3 measured from the free memory at init (NCCL counts, the context does not); 0.2.4 and 0.6.4 on
    measured PyTorch's peak (worker.py of those wheels)."""
    from gpudesk.sizing.engines.common import CONTEXT_BYTES, nccl_device_bytes
    from gpudesk.sizing.engines.vllm import profiling_era

    assert [profiling_era(v) for v in ("0.2.4", "0.2.5", "0.3.0", "0.3.1", "0.5.4", "0.6.3.post1", "0.6.4", "v0",
                                       "0.10.1")] == [
        "allocated", "device", "device", "since_init", "since_init", "since_init", "torch_peak", "torch_peak",
        "torch_peak"]
    spec = spec_from_catalog(open_catalog().model("llama-2-13b"))
    args = ["gpu_memory_utilization=0.9", "max_model_len=4096", "tensor_parallel_size=2"]
    device = DeviceMemory("A100", 80 * 1024**3)  # no NVLink given: NCCL over PCIe
    nccl = nccl_device_bytes(2, "pcie")
    old, dev, init, new = (engine_fit("vllm", spec, device, args, version=v)
                           for v in ("0.2.4", "0.3.0", "0.5.4", "0.6.4"))
    assert dev.per_gpu.non_torch_bytes - old.per_gpu.non_torch_bytes == pytest.approx(
        CONTEXT_BYTES + nccl)
    assert init.per_gpu.non_torch_bytes - old.per_gpu.non_torch_bytes == pytest.approx(nccl)
    block = dev.per_gpu.kv_cache_bytes / dev.kv_cache_blocks
    assert old.kv_cache_blocks - dev.kv_cache_blocks == pytest.approx((CONTEXT_BYTES + nccl) / block,
                                                                      abs=1)
    assert new.extra["profiling_era"] == "torch_peak" and init.extra["profiling_era"] == "since_init"


def test_vllm_dtype_float32_caches_kv_in_fp32(catalog) -> None:
    """``--dtype float32`` with ``kv_cache_dtype auto`` caches in fp32: half the tokens of bf16 in the same bytes
    (vLLM 0.19.0 on Llama-3.1-8B: 42.8 GiB for 175,296 tokens, llm-d-planner accuracy logs)."""
    from gpudesk.sizing.engines.vllm import kv_precision

    assert kv_precision("auto", "float32") == "fp32" and kv_precision("auto", "float") == "fp32"
    assert kv_precision("auto", "half") == "fp16" and kv_precision("auto", "auto") == "bf16"
    assert kv_precision("fp8_e5m2", "float32") == "fp8"
    args = ["max_model_len=8192", "num_gpu_blocks_override=1000"]
    bf16 = engine_fit("vllm", spec(catalog, "llama-3.1-8b"), H100, args, version="0.19.0")
    fp32 = engine_fit("vllm", spec(catalog, "llama-3.1-8b"), H100, [*args, "dtype=float32"], version="0.19.0")
    assert fp32.per_gpu.kv_cache_bytes == pytest.approx(2 * bf16.per_gpu.kv_cache_bytes)


def test_vllm_tensor_parallel_profile_counts_collective_buffers_from_0_16(catalog) -> None:
    """From vLLM 0.16 the profile run at TP > 1 creates ~1.85 GiB outside PyTorch per rank (all-reduce fusion
    workspace, NCCL connections), inside the KV budget; not at TP 1, not before 0.16, not without peer access."""
    from gpudesk.sizing.engines.vllm import TP_PROFILE_NON_TORCH_BYTES, tp_profile_non_torch_bytes

    assert tp_profile_non_torch_bytes("0.19.0", 2, "nvlink") == TP_PROFILE_NON_TORCH_BYTES
    assert tp_profile_non_torch_bytes("0.19.0", 1, "nvlink") == 0.0
    assert tp_profile_non_torch_bytes("0.11.0", 2, "nvlink") == 0.0
    assert tp_profile_non_torch_bytes("0.19.0", 2, "shm") == 0.0
    model = spec(catalog, "llama-3.1-8b")
    args = ["max_model_len=8192", "tensor_parallel_size=2"]
    new = engine_fit("vllm", model, H100, args, version="0.19.0")
    no_peer = engine_fit("vllm", model, H100, [*args, "nccl_transport=shm"], version="0.19.0")
    assert new.per_gpu.non_torch_bytes - no_peer.per_gpu.non_torch_bytes == pytest.approx(TP_PROFILE_NON_TORCH_BYTES)
    assert new.kv_cache_tokens < no_peer.kv_cache_tokens


def test_llamacpp_metal_maps_the_quantised_files_range_from_output_to_last_block() -> None:
    # ggml-org/ci ed2571e0 (build b4754) on an Apple M4, Pythia 1.4B Q3_K_M written by llama-quantize: "Metal_Mapped
    # model buffer size = 724.28 MiB" spans the whole file, the embedding ("CPU_Mapped ... 42.22 MiB") included.
    from pathlib import Path

    from gpudesk.sizing.shapes import spec_from_hf_config

    pythia = spec_from_hf_config(Path(__file__).parents[2] / "fixtures" / "engines" / "configs" / "pythia-1.4b.json")
    m4 = DeviceMemory("Apple M4", int(10.67 * GIB), "Metal", True)
    args = ["n_gpu_layers=99", "n_ctx=2048"]

    def buffers_mib(device, fmt, version, extra=()):
        r = engine_fit("llamacpp", pythia, device, [*args, *extra], version=version, weight_format=fmt)
        gpu, cpu = r.extra["buffers"]
        return gpu["model_bytes"] / 2**20, cpu["model_bytes"] / 2**20

    metal, cpu = buffers_mib(m4, "q3_k_m", "b4754")
    assert cpu == pytest.approx(42.22, rel=0.001)
    assert metal == pytest.approx(724.28, rel=0.01)
    # Without the mapping (--no-mmap), on CUDA, or from a quantizer older than the sorted weights_map (b3999), the
    # GPU holds its own tensors only.
    alone = metal - cpu
    assert buffers_mib(m4, "q3_k_m", "b4754", ["no_mmap=true"])[0] == pytest.approx(alone)
    assert buffers_mib(DeviceMemory("V100", 31 * GIB), "q3_k_m", "b4754")[0] == pytest.approx(alone)
    assert buffers_mib(m4, "q3_k_m", "b3998")[0] == pytest.approx(alone)
    # A converted F16 file (build b4164 CI: Metal_Mapped 2502.97 MiB, CPU_Mapped 196.50 MiB) keeps the embedding out.
    metal16, cpu16 = buffers_mib(m4, "f16", "b4164")
    assert cpu16 == pytest.approx(196.5, rel=0.001)
    assert metal16 == pytest.approx(2502.97, rel=0.01)


def test_llamacpp_n_ctx_zero_takes_the_models_training_context(catalog) -> None:
    # ROCm/ROCm#4903 ran `llama-server -c 0` ("0 = loaded from model"): llama.cpp sizes the KV cache for the model's
    # n_ctx_train (src/llama-context.cpp). The first scoring of that held-out log crashed here (no KV cells).
    s = spec(catalog, "qwen3-8b")
    zero = engine_fit("llamacpp", s, RTX4090, ["n_ctx=0", "flash_attn=true"], weight_format="q8_0")
    full = engine_fit("llamacpp", s, RTX4090, [f"n_ctx={s.context_length}", "flash_attn=true"], weight_format="q8_0")
    assert zero.kv_cache_tokens == full.kv_cache_tokens >= s.context_length
    assert zero.per_gpu.kv_cache_bytes == full.per_gpu.kv_cache_bytes
    assert "-c 0" in zero.command
    with pytest.raises(SizingError, match="n_ctx"):
        engine_fit("llamacpp", s, RTX4090, ["n_ctx=-1"], weight_format="q8_0")


def test_vllm_quantization_method_names_a_kernel_not_a_storage_format(catalog) -> None:
    # Arm's DGX Spark learning path: `vllm serve ... --quantization gptq` on TheBloke's 4-bit group-128 Mistral-7B
    # ("Model loading took 3.8844 GiB", vLLM 0.11.0). gptq keeps the checkpoint's layout; fp8 quantises at load time.
    s = spec(catalog, "mistral-7b")
    spark = DeviceMemory("GB10", int(119.7 * GIB))
    gptq = engine_fit("vllm", s, spark, ["quantization=gptq", "dtype=float16"], version="0.11.0")
    assert gptq.per_gpu.weights_bytes / GIB == pytest.approx(3.8844, rel=0.03)
    same = engine_fit("vllm", s, spark, ["quantization=gptq"], version="0.11.0", weight_format="int4-g128")
    assert same.per_gpu.weights_bytes == gptq.per_gpu.weights_bytes
    fp8 = engine_fit("vllm", s, spark, ["quantization=fp8"], version="0.11.0")
    assert fp8.per_gpu.weights_bytes > 1.5 * gptq.per_gpu.weights_bytes
