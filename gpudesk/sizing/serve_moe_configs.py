"""Whether the engines ship a tuned Triton fused-MoE configuration for a block-FP8 expert shape.

vLLM's and SGLang's Triton fused MoE picks its tile configuration (``BLOCK_SIZE_M`` among others) from a JSON file
named by the layer's LOCAL expert shape, ``E=<experts on the GPU>,N=<expert width on the GPU>,device_name=<GPU>,
dtype=fp8_w8a8,block_shape=[128,128]`` (vLLM ``try_get_optimal_moe_config(w1.size(), w2.size(), ...)`` and
``get_config_file_name``, vllm/model_executor/layers/fused_moe/fused_moe.py and configs/; SGLang the same under
python/sglang/srt/layers/moe/fused_moe_triton/configs/triton_<version>/; https://github.com/vllm-project/vllm,
https://github.com/sgl-project/sglang). ``E`` and ``N`` are those of the weights a GPU holds: with tensor parallelism
``tp`` and expert parallelism ``ep`` each GPU holds ``E / ep`` experts sliced ``tp / ep`` ways, ``N = width / (tp /
ep)`` (vLLM ``FusedMoEParallelConfig``: ``--enable-expert-parallel`` makes the MoE tensor-parallel size 1; SGLang
``moe_tp_size = tp_size / ep_size``). Where no file matches, vLLM logs "Using default MoE config. Performance might be
sub-optimal!" and both engines run ``get_default_config``, whose block-FP8 tiles are 64 rows
(:mod:`gpudesk.sizing.serve_moe_tiles`).

The files are tuned by contributors for the shapes they serve, so a shape either has files (for several GPUs) or has
none: a DeepSeek-V3 / R1 layer at TP 8 (E 256, N 256; SGLang's E 257 with the shared expert fused in) has them for
H100, H200, B200, H20, MI300X and more, while MiniMax-M2's at TP 8 (E 256, N 192) or at EP 8 (E 32, N 1536) has none
(checked for H200 and H100 in vLLM's folder; none in SGLang's). :data:`TUNED_BLOCK_FP8_SHAPES` lists the block-FP8
shapes found with files in either engine's repository, GPU left out: a shape tuned for one GPU is taken as tuned on
all of them, since the file list per GPU is not known completely here.
"""

from __future__ import annotations

MOE_CONFIG_SOURCE = ("fused-MoE config files keyed by the GPU's local shape E, N (vllm/model_executor/layers/"
                     "fused_moe/configs, sglang python/sglang/srt/layers/moe/fused_moe_triton/configs); no file: "
                     "get_default_config, 'Using default MoE config. Performance might be sub-optimal!' "
                     "(https://github.com/vllm-project/vllm, https://github.com/sgl-project/sglang)")

# (E, N) of the dtype=fp8_w8a8,block_shape=[128,128] files found in the engines' config folders (the GPUs of one file
# each as example): vLLM E=256,N=256 (NVIDIA_H200, AMD_Instinct_MI300X), E=256,N=384 (NVIDIA_H100_80GB_HBM3),
# E=256,N=512 (NVIDIA_H200, named in vllm-project/vllm PR 43506), E=32,N=2048 (NVIDIA_H200), E=128,N=176 (NVIDIA_H100_NVL),
# E=128,N=192 (NVIDIA_H100_80GB_HBM3), E=128,N=352 (NVIDIA_B100), E=128,N=384 (NVIDIA_H200, AMD_Instinct_MI300X),
# E=128,N=512 (AMD_Radeon_R9700), E=128,N=768 (AMD_Instinct_MI300X, vllm-project/vllm PR 17530), E=128,N=1536
# (AMD_Instinct_MI308X), E=128,N=2048 (NVIDIA_RTX_PRO_6000_Blackwell_Workstation_Edition); SGLang triton_3_3_1 /
# 3_4_0 / 3_5_1: E=257,N=256 (NVIDIA_H200, NVIDIA_B200), E=257,N=128 (NVIDIA_H100_80GB_HBM3), E=256,N=256
# (NVIDIA_H800), E=256,N=512 (NVIDIA_H200_NVL), E=128,N=384 (NVIDIA_H200), E=128,N=768 (NVIDIA_B200), E=160,N=640
# (NVIDIA_H200), E=32,N=768 (NVIDIA_H200), E=384,N=128 (NVIDIA_H20), E=384,N=256 (NVIDIA_B200), E=385,N=128
# (NVIDIA_B200), E=512,N=128 (NVIDIA_H20).
TUNED_BLOCK_FP8_SHAPES: frozenset[tuple[int, int]] = frozenset({
    (256, 256), (256, 384), (256, 512), (32, 2048),
    (128, 176), (128, 192), (128, 352), (128, 384), (128, 512), (128, 768), (128, 1536), (128, 2048),
    (257, 256), (257, 128), (160, 640), (32, 768), (384, 128), (384, 256), (385, 128), (512, 128),
})


def local_expert_shape(experts: int, expert_width: int, tp: int, ep: int) -> tuple[int, int]:
    """(experts a GPU holds, expert width on the GPU) of a routed-MoE layer over ``tp`` tensor-parallel GPUs with
    expert-parallel size ``ep`` (module docstring); ``ep`` above ``tp`` (data-parallel attention) counts as ``tp``.

    Raises:
        ValueError: a count below 1.
    """
    if experts < 1 or expert_width < 1 or tp < 1 or ep < 1:
        raise ValueError(f"experts, width, tp and ep must be at least 1, got {experts}, {expert_width}, {tp}, {ep}")
    moe_tp = max(1, tp // ep)
    return max(1, experts // ep), max(1, expert_width // moe_tp)


def tuned_block_fp8_config(local_experts: int, local_width: int) -> bool:
    """Whether a tuned block-FP8 fused-MoE configuration ships for this local shape (module docstring)."""
    return (local_experts, local_width) in TUNED_BLOCK_FP8_SHAPES
