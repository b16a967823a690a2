"""Engine fit mechanisms of round four: the vision tower of multimodal checkpoints with SGLang's static-fraction cut,
and vLLM's MXFP4 MoE path by whether ``triton_kernels`` is installed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing import spec_from_catalog
from gpudesk.sizing.engines.device import DeviceMemory
from gpudesk.sizing.engines.fit import engine_fit
from gpudesk.sizing.engines.sglang import multimodal_fraction_factor
from gpudesk.sizing.engines.vllm import mxfp4_marlin
from gpudesk.sizing.shapes import spec_from_hf_config
from gpudesk.sizing.vision_tower import VisionTower, vision_tower_from_config

GIB = 1024**3
GEMMA3_4B = Path(__file__).parents[2] / "fixtures" / "engines" / "configs" / "gemma-3-4b-it.json"
H200 = DeviceMemory("H200", int(139.21 * GIB))
H100 = DeviceMemory("H100", int(79.18 * GIB))


def test_siglip_tower_of_gemma3_is_counted_from_its_vision_config() -> None:
    tower = vision_tower_from_config(json.loads(GEMMA3_4B.read_text()))
    assert tower is not None and (tower.layers, tower.hidden_size) == (27, 1152)
    # SigLIP-So400m without its pooling head, plus the 1152 x 2560 projector: about 0.42 B parameters.
    assert 0.40e9 < tower.params < 0.43e9
    assert spec_from_hf_config(GEMMA3_4B).vision_tower == tower
    assert vision_tower_from_config({"hidden_size": 4096}) is None
    assert vision_tower_from_config({"vision_config": {"hidden_size": 1024}}) is None  # no depth


def test_sglang_cuts_the_static_fraction_of_multimodal_models_by_release() -> None:
    tower = VisionTower(27, 1152, 420_000_000)
    assert multimodal_fraction_factor("0.4.4", None, False) == 1.0
    assert multimodal_fraction_factor("0.4.4", tower, True) == 0.95  # ModelRunner, given or not
    assert multimodal_fraction_factor("0.4.6", tower, True) == 0.90
    assert multimodal_fraction_factor("0.4.9", tower, True) == 1.0  # server_args: the default only
    assert multimodal_fraction_factor("0.4.9", tower, False) == 0.90
    # 0.5.3 adjust_mem_fraction_for_vlm: 27 x 1152^2 / (24 x 1024^2) = 1.424 -> 0.95 x (1 - 0.0424)
    assert multimodal_fraction_factor("0.5.3", tower, False) == pytest.approx(0.95 * (1 - 0.1 * (27 * 1152**2 / (24 * 1024**2) - 1)))
    assert multimodal_fraction_factor("0.5.3", VisionTower(64, 2048, 0), False) == pytest.approx(0.95 * 0.8)


def test_sglang_gemma3_4b_on_h200_loads_the_tower_and_shrinks_its_pool() -> None:
    """sgl-project/sglang PR 4826: 8.13 GiB of weights, 834,615 KV tokens at mem_fraction_static 0.88."""
    r = engine_fit("sglang", spec_from_hf_config(GEMMA3_4B), H200, ["mem_fraction_static=0.88"], version="0.4.4")
    assert r.per_gpu.weights_bytes / GIB == pytest.approx(8.13, rel=0.03)
    assert r.kv_cache_tokens == pytest.approx(834_615, rel=0.05)
    assert r.extra["mem_fraction_static"] == pytest.approx(0.88 * 0.95)


def test_vllm_mxfp4_runs_marlin_without_triton_kernels() -> None:
    assert mxfp4_marlin("0.10.1") and mxfp4_marlin("0.10.1", triton_kernels=True)
    assert mxfp4_marlin("0.11.0") and not mxfp4_marlin("0.11.0", triton_kernels=True)
    assert not mxfp4_marlin("0.14.1") and mxfp4_marlin("0.14.1", triton_kernels=False)
    oss = spec_from_catalog(open_catalog().model("gpt-oss-120b"))
    pip = engine_fit("vllm", oss, H100, ["gpu_memory_utilization=0.95"], version="0.11.0")
    tk = engine_fit("vllm", oss, H100, ["gpu_memory_utilization=0.95", "triton_kernels=true"], version="0.11.0")
    # Marlin pads the per-rank intermediate size too: about 1.35 GiB more weights, that much less KV cache.
    assert (pip.per_gpu.weights_bytes - tk.per_gpu.weights_bytes) / GIB == pytest.approx(1.35, abs=0.05)
    assert pip.per_gpu.kv_cache_bytes < tk.per_gpu.kv_cache_bytes
    assert "triton_kernels" not in pip.command and "triton_kernels" not in tk.command


def test_memory_other_processes_hold_shrinks_sglang_pool_and_stops_vllm() -> None:
    """SGLang sizes from the memory free before the weights; vLLM V1 keeps total x utilization but refuses to start
    when less than that is free (gpu_worker.py init_device)."""
    llama = spec_from_catalog(open_catalog().model("llama-3.1-8b"))
    card = DeviceMemory("RTX 4090", int(23.99 * GIB))
    args = ["mem_fraction_static=0.88", "context_length=8192"]
    alone = engine_fit("sglang", llama, card, args, version="0.4.9")
    shared = engine_fit("sglang", llama, card, args + ["gpu_used_gib=0.85"], version="0.4.9")
    # the pool loses 0.85 GiB x mem_fraction_static: 0.748 GiB of 128 KiB tokens
    assert alone.kv_cache_tokens - shared.kv_cache_tokens == pytest.approx(0.85 * 0.88 * GIB / 131072, abs=2)
    assert "gpu_used_gib" not in shared.command
    ok = engine_fit("vllm", llama, card, ["max_model_len=8192", "gpu_used_gib=1"], version="0.11.0")
    stop = engine_fit("vllm", llama, card, ["max_model_len=8192", "gpu_used_gib=3"], version="0.11.0")
    assert ok.fits and ok.kv_cache_tokens == stop.kv_cache_tokens
    assert not stop.fits and "less than gpu_memory_utilization" in stop.reason


def test_nccl_buffers_follow_the_transport_not_the_group_size() -> None:
    from gpudesk.sizing.engines.common import nccl_device_bytes, resolve_nccl_transport
    from gpudesk.sizing.errors import SizingError

    mib = 1024 * 1024
    # 16 channels x 3 connections x (4 MiB Simple + 512 KiB LL + 4.6875 MiB LL128) over NVLink
    assert nccl_device_bytes(2, "nvlink") == 16 * 3 * (4 * mib + 512 * 1024 + 120 * 640 * 64)
    assert nccl_device_bytes(8, "nvlink") == nccl_device_bytes(2, "nvlink")
    assert nccl_device_bytes(4, "pcie") == 2 * 3 * (4 * mib + 512 * 1024)
    assert nccl_device_bytes(4, "shm") == 0.0 and nccl_device_bytes(1, "nvlink") == 0.0
    assert resolve_nccl_transport(None, True) == "nvlink" and resolve_nccl_transport(None, False) == "pcie"
    with pytest.raises(SizingError):
        resolve_nccl_transport("infiniband", False)
    llama = spec_from_catalog(open_catalog().model("llama-3.1-8b"))
    args = ["mem_fraction_static=0.85", "tp_size=4", "context_length=8192"]
    linked = engine_fit("sglang", llama, DeviceMemory("H100", int(79.18 * GIB), nvlink=True), args, version="0.4.9")
    pcie = engine_fit("sglang", llama, DeviceMemory("L40S", int(79.18 * GIB)), args, version="0.4.9")
    assert linked.kv_cache_tokens < pcie.kv_cache_tokens
    assert "nccl_transport" not in linked.command and linked.settings["nccl_transport"] == "nvlink"


def test_rotary_table_is_loaded_with_the_weights() -> None:
    """One cos/sin table of max_position x rotary_dim 16-bit values: 32 MiB for Llama-3.1's 131,072 positions,
    2 MiB for Llama-3's 8,192 (vLLM printed 14.99 and 14.96 GiB, PR 10511 / issue 10517)."""
    from gpudesk.sizing.engines.common import rope_table_bytes

    catalog = open_catalog()
    assert rope_table_bytes(spec_from_catalog(catalog.model("llama-3.1-8b"))) == 131072 * 128 * 2
    assert rope_table_bytes(spec_from_catalog(catalog.model("llama-3-8b"))) == 8192 * 128 * 2
    l31 = engine_fit("vllm", spec_from_catalog(catalog.model("llama-3.1-8b")), H100, ["max_model_len=8192"],
                     version="0.6.4")
    assert round(l31.per_gpu.weights_bytes / GIB, 2) == 14.99


def test_vllm_0_17_sampler_masks_top_k_top_p_without_sorting() -> None:
    """From 0.17 (topk_topp_triton.py) 8+ rows are masked in place: 14 bytes a logit instead of the sort's 38."""
    from gpudesk.sizing.engines.forward import v1_sampler_bytes_per_logit
    from gpudesk.sizing.engines.vllm import triton_top_k_top_p

    assert v1_sampler_bytes_per_logit(1024, triton_top_k_top_p=True) == 14
    assert v1_sampler_bytes_per_logit(4, triton_top_k_top_p=True) == v1_sampler_bytes_per_logit(4)
    assert v1_sampler_bytes_per_logit(1024) == 38
    assert [triton_top_k_top_p(v) for v in ("0.16.0", "0.17.0", "0.19.0", "v1", "0.6.4")] == [
        False, True, True, True, False]
    llama = spec_from_catalog(open_catalog().model("llama-3.1-8b"))
    old = engine_fit("vllm", llama, H100, ["max_model_len=8192"], version="0.16.0")
    new = engine_fit("vllm", llama, H100, ["max_model_len=8192"], version="0.17.0")
    # 1,024 rows x 128,256 logits x (38 - 14) bytes more KV cache, less the kernel's 132 cached fp32 rows
    assert (new.per_gpu.kv_cache_bytes - old.per_gpu.kv_cache_bytes) / GIB == pytest.approx(
        (1024 * 128256 * 24 - 132 * 128256 * 4) / GIB, abs=0.01)


def test_vllm_triton_sampler_scratch_rows_stay_cached_one_per_sm() -> None:
    """topk_topp_triton.py (0.17.0, 0.19.0) keeps min(next_pow2(min(SMs, rows)), SMs) fp32 vocabulary rows in
    _TRITON_BUFFER_CACHE through the sampler's peak; Qwen2.5-72B at TP 2 on H100s, vLLM 0.19.0 printed 3.04 GiB of
    KV cache (llm-d-planner v0.19.0 log)."""
    from gpudesk.sizing.engines.device import streaming_multiprocessors
    from gpudesk.sizing.engines.forward import triton_buffer_bytes

    assert [streaming_multiprocessors(n) for n in ("H100 80GB", "NVIDIA H100 PCIe", "NVIDIA A100 80GB SXM4",
                                                   "rtx4090", "NVIDIA GeForce RTX 4090 D 24GB", "L40S", "L4",
                                                   "AMD Instinct MI300X")] == [132, 114, 108, 128, 114, 142, 58, 0]
    assert triton_buffer_bytes(1024, 152064, 132) == 132 * 152064 * 4
    assert triton_buffer_bytes(40, 152064, 132) == 64 * 152064 * 4  # next power of two of 40 programs
    assert triton_buffer_bytes(4, 152064, 132) == 0  # sort path below 8 rows
    qwen = spec_from_catalog(open_catalog().model("qwen2.5-72b"))
    fit = engine_fit("vllm", qwen, DeviceMemory("H100 80GB", int(79.19 * GIB)),
                     ["gpu_memory_utilization=0.95", "max_model_len=8192", "tensor_parallel_size=2"],
                     version="0.19.0")
    assert fit.per_gpu.kv_cache_bytes / GIB == pytest.approx(3.04, rel=0.05)


def test_vllm_refuses_amd_targets_its_rocm_build_does_not_support() -> None:
    """vLLM's ROCm docs list gfx90a, gfx942, gfx950, gfx1100/1101, gfx1200/1201, gfx1150/1151: an MI50 (gfx906) runs
    only forks (nlzy/vllm-gfx906), so the launch is refused with that reason; an MI300X is sized."""
    from gpudesk.sizing.engines.device import amd_gfx_target
    from gpudesk.sizing.errors import SizingError

    assert [amd_gfx_target(n) for n in ("MI50 32GB", "AMD Instinct MI300X 192GB", "AMD Instinct MI100",
                                        "NVIDIA H100 80GB")] == ["gfx906", "gfx942", "gfx908", None]
    qwen = spec_from_catalog(open_catalog().model("qwen2.5-7b"))
    with pytest.raises(SizingError) as err:
        engine_fit("vllm", qwen, DeviceMemory("MI50 32GB", int(31.98 * GIB), "ROCm"), ["max_model_len=4096"],
                   version="v0")
    assert err.value.field == "gpu" and "gfx906" in str(err.value)
    fit = engine_fit("vllm", qwen, DeviceMemory("AMD Instinct MI300X 192GB", 192 * GIB, "ROCm"),
                     ["max_model_len=4096"], version="0.10.1")
    assert fit.fits


def test_validation_scores_a_model_refusal_as_refused(tmp_path) -> None:
    """A log the engine model refuses (vLLM on an MI50) is refused with the model's reason, not an error."""
    from gpudesk.sizing.engines.validation import evaluate

    case = {"id": "t-mi50", "url": "https://github.com/nlzy/vllm-gfx906/issues/10", "engine": "vllm",
            "engine_version": "v0", "platform": "ROCm", "model": "qwen2.5-7b", "weight_format": "bf16",
            "gpu": "MI50 32GB", "gpu_total_gib": 31.98, "gpus": 1, "engine_args": ["max_model_len=4096"],
            "inputs": "test", "printed": {"kv_cache_gib": 10.0}}
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps(case) + "\n", encoding="utf-8")
    (result,) = evaluate(path)
    assert not result.error and "gfx906" in result.refused and not result.figures


def test_linear_rope_scaling_and_gemma3_local_rope_tables() -> None:
    """vLLM caches max_position x factor rows for linear RoPE scaling (linear_scaling_rope.py) and Gemma 3's local
    layers an unscaled table (gemma3.py): Gemma-3-4B-it's weights come to vLLM 0.19.0's printed 8.58 GiB; SGLang
    0.4.4's gemma3_causal.py computes RoPE on the fly and printed 8.13 (PR 4826)."""
    from gpudesk.sizing.engines.common import rope_table_bytes
    from gpudesk.sizing.shapes import rope_table_positions_from_config, spec_from_hf_config

    base = Path(__file__).parents[2] / "fixtures" / "engines" / "configs"
    gemma = spec_from_hf_config(base / "gemma-3-4b-it.json")
    assert gemma.rope_table_positions == (131072 * 8, 131072)
    assert rope_table_bytes(gemma) == (131072 * 9) * 256 * 2
    assert rope_table_bytes(gemma, config_tables=False) == 131072 * 256 * 2
    assert rope_table_positions_from_config({"rope_scaling": {"type": "linear", "factor": 4}}, 4096) == (16384,)
    assert rope_table_positions_from_config({"rope_scaling": {"rope_type": "llama3", "factor": 8}}, 131072) == ()
    vllm_fit = engine_fit("vllm", gemma, DeviceMemory("H100 80GB", int(79.19 * GIB)),
                          ["gpu_memory_utilization=0.95", "max_model_len=8192"], version="0.19.0")
    assert vllm_fit.per_gpu.weights_bytes / GIB == pytest.approx(8.58, rel=0.01)
    sglang_fit = engine_fit("sglang", gemma, DeviceMemory("H200", 140 * GIB), ["mem_fraction_static=0.88"],
                            version="0.4.4")
    assert sglang_fit.per_gpu.weights_bytes / GIB == pytest.approx(8.13, rel=0.02)


def test_sglang_distributed_init_takes_what_its_log_prints() -> None:
    """init_torch_distributed's "mem usage" (two NCCL communicators, custom all-reduce): 1.25 GiB on 8 x H100 HGX
    (sglang v0.5.2rc2), 0.13 GiB on 4 x L4 over PCIe (0.4.3); none at TP 1. With it, Qwen3-235B-A22B-FP8 at TP 4 on
    H100 and mem_fraction_static 0.93 (SGLang 0.4.9) gets within 5 % of the 367,404 tokens it printed
    (vllm-project/vllm#21348)."""
    from gpudesk.sizing.engines.sglang import distributed_init_bytes

    assert distributed_init_bytes(1, "nvlink") == 0.0
    assert distributed_init_bytes(8, "nvlink") == pytest.approx(1.25 * GIB)
    assert distributed_init_bytes(4, "pcie") == pytest.approx(0.13 * GIB)
    qwen = spec_from_catalog(open_catalog().model("qwen3-235b-a22b"))
    card = DeviceMemory("H100", int(79.18 * GIB), nvlink=True)
    r = engine_fit("sglang", qwen, card, ["mem_fraction_static=0.93", "context_length=40960"], version="0.4.9",
                   weight_format="fp8", gpus=4, tensor_parallel=4)
    assert r.kv_cache_tokens == pytest.approx(367_404, rel=0.05)
    pcie = engine_fit("sglang", qwen, DeviceMemory("H100 PCIe", int(79.18 * GIB)),
                      ["mem_fraction_static=0.93", "context_length=40960"], version="0.4.9", weight_format="fp8",
                      gpus=4, tensor_parallel=4)
    # over PCIe the init takes 1.12 GiB less, so the pool keeps 0.93 of it
    assert (pcie.per_gpu.kv_cache_bytes - r.per_gpu.kv_cache_bytes) / GIB == pytest.approx(1.12 * 0.93, abs=0.01)
