"""Block-scaled FP8 dense GEMMs on CDNA 3 (MI300X, MI325X) at decode sizes: a Triton kernel without split-K.

The DeepSeek-V3 / R1 checkpoints ship their linears as FP8 with 128 x 128 weight blocks and 1 x 128 activation
groups. On a CDNA 3 GPU (gfx942) both engines run these dense (non-expert) linears through a Triton GEMM:

- SGLang: its ROCm images set ``SGLANG_USE_AITER=1`` (sgl-project/sglang ``docker/rocm.Dockerfile``, the
  ``ENV`` block at its end), and ``aiter_w8a8_block_fp8_linear`` (``python/sglang/srt/layers/quantization/
  fp8_utils.py``) sends every shape to AITER's Triton ``gemm_a8w8_blockscale`` except on gfx95x, where listed shapes
  go to the CK preshuffled kernel; without AITER it runs SGLang's own Triton ``w8a8_block_fp8_matmul``.
- vLLM: ``w8a8_block_fp8_matmul`` (Triton) unless ``VLLM_ROCM_USE_AITER=1``, off by default (vllm/envs.py).

At decode sizes such a kernel tiles the output in blocks of 16-128 columns and walks K = 7168 in 56 serial steps of
128 (one per scale group) without splitting it, so a TP slice's narrow N keeps a few dozen of the 304 compute units
busy, each latency bound: the weight stream runs far below the HBM roofline whatever the batch. Measured for
DeepSeek-V3's fused q_a / kv_a projection (N 2112, K 7168: 15.1 MB of FP8 weights), AITER's Triton kernel with its
default configuration: 128.8 / 127.3 / 117.5 us at M = 64 / 128 / 256 tokens, 123.6 / 131.8 / 154.8 GB/s as the
benchmark counts the bytes (ROCm/aiter PR 1232, "FP8 blockscale fix and finetuning for Deepseek on MI300 series",
Oct 2025; the table was run on an MI350X host); tuned configurations (with split-K) halve M = 64 (68.5 us). No
MI300X kernel table was found; the MI300X serving figures below agree with it. The tuned gfx942 entry for this shape was still missing in January 2026, when
adding it cut SGLang's DeepSeek-R1 TPOT on 8 x MI300X from 28.8 to 22.1 ms at concurrency 4 and from 47.2 to 30.8
ms at 16 (ROCm/aiter PR 1930): 0.11 ms per layer and step at concurrency 4 from that one GEMM's configuration, the
order of its measured default-configuration time.

The measured default-configuration rate at M = 64, 123.6 GB/s, is taken as the rate at which a CDNA 3 GPU streams
its block-FP8 dense weights in a decode step, whatever the batch (latency bound, not a share of the bandwidth).
It is not scaled by the GEMM's output tiles as the NVIDIA rate is (:mod:`gpudesk.sizing.serve_block_fp8_tiles`).
CDNA 4 (gfx950) runs tuned and CK-preshuffled kernels for these shapes and keeps the vendor-neutral share of
:data:`gpudesk.sizing.serve_rates.BLOCK_FP8_WEIGHT_STREAM_SHARE`.
"""

from __future__ import annotations

from gpudesk.catalog.records import GPU
from gpudesk.sizing.serve_rates import BLOCK_FP8_SOURCE, BLOCK_FP8_WEIGHT_STREAM_SHARE

# AITER Triton gemm_a8w8_blockscale, default configuration, N 2112 K 7168 at M 64: 128.8 us, 123.6 GB/s.
CDNA3_BLOCK_FP8_STREAM_BYTES_PER_S = 123.6e9
CDNA3_ARCHITECTURES = ("CDNA 3",)
CDNA3_BLOCK_FP8_SOURCE = (
    "block-FP8 dense GEMMs on CDNA 3 run a Triton kernel without split-K: AITER gemm_a8w8_blockscale N 2112 K 7168 "
    "at M 64, 128.8 us = 123.6 GB/s (https://github.com/ROCm/aiter/pull/1232); gfx942 tuned entry missing until "
    "Jan 2026, SGLang DeepSeek-R1 TPOT on MI300X 28.8 -> 22.1 ms at concurrency 4 "
    "(https://github.com/ROCm/aiter/pull/1930); SGLang ROCm image sets SGLANG_USE_AITER=1 (docker/rocm.Dockerfile) "
    "and fp8_utils.py aiter_w8a8_block_fp8_linear uses the Triton GEMM off gfx95x "
    "(https://github.com/sgl-project/sglang); vLLM w8a8_block_fp8_matmul (https://github.com/vllm-project/vllm)")


def block_fp8_dense_stream_bytes_per_s(gpu: GPU) -> tuple[float, str]:
    """(bytes per second at which ``gpu`` streams block-scaled FP8 dense weights in a decode step, source): the
    measured Triton rate on CDNA 3 (module docstring), else the vendor-neutral share of the datasheet bandwidth."""
    if gpu.architecture in CDNA3_ARCHITECTURES:
        return CDNA3_BLOCK_FP8_STREAM_BYTES_PER_S, CDNA3_BLOCK_FP8_SOURCE
    return gpu.memory_bandwidth_gbps * 1e9 * BLOCK_FP8_WEIGHT_STREAM_SHARE, BLOCK_FP8_SOURCE
