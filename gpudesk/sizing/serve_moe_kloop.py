"""The K loop of the Triton fused-MoE kernel: at a small decode batch a grouped GEMM lasts at least one program's
serial chain of weight-tile loads.

vLLM's and SGLang's Triton fused MoE (``fused_moe_kernel``, vllm/model_executor/layers/fused_moe/fused_moe.py;
sglang python/sglang/srt/layers/moe/fused_moe_triton/fused_moe_triton_kernels.py; https://github.com/vllm-project/
vllm, https://github.com/sgl-project/sglang) launches one program per ``BLOCK_SIZE_M`` x ``BLOCK_SIZE_N`` output tile
of each active expert, and each program walks the whole reduction dimension ``K`` itself: ``for k in range(0,
tl.cdiv(K, BLOCK_SIZE_K))`` loads one ``BLOCK_SIZE_K`` x ``BLOCK_SIZE_N`` weight tile per iteration, with
``num_stages - 1`` loads in flight (Triton's software pipelining). The kernel has no split-K: however few tokens the
step has, no program finishes before ``ceil(K / BLOCK_SIZE_K) / (num_stages - 1)`` memory round trips. At a decode
step of a few tokens on a tensor-parallel slice (a few MB per expert) the weight stream at the HBM rate takes a few
microseconds while this chain takes longer: the gate/up GEMM's ``K`` is the hidden size (4096-7168, 64-112 tiles of
64), its programs one per 32-64 columns of the slice's ``2 x width / tp`` (tens of programs, far below what the GPU
holds at once), so the kernel is latency bound, not bandwidth bound. The down GEMM's ``K`` is the slice's width
(192-2048): a short chain.

Time of each grouped GEMM of a MoE layer: ``max(weight bytes / HBM rate, ceil(K / BLOCK_SIZE_K) / (num_stages - 1)
x memory latency)``, added over the layer's two GEMMs; the difference to the weight stream alone is what this module
adds. Tiles: the tuned configurations at 1-16 tokens use ``BLOCK_SIZE_K`` 64 (16-bit) or 128 (8-bit) with
``num_stages`` 3-5 (e.g. ``configs/E=128,N=192,device_name=NVIDIA_B200.json`` at commit 47c4439: M 1 ``BLOCK_SIZE_K``
64, ``num_stages`` 4; ``E=128,N=192,device_name=NVIDIA_H200.json`` at 4652ef5: 64 and 5);
:data:`KLOOP_TILE_K_BYTES` and :data:`KLOOP_IN_FLIGHT` take 128 bytes of a weight row per tile and 3 loads in
flight.

Memory latency: a tile load that misses L2 and goes to HBM while the other programs' loads are queued,
:data:`HBM_LOAD_LATENCY_S`. ASSUMED, not measured here: the order of magnitude of published pointer-chase latencies to
device memory on Hopper (a few hundred ns unloaded; Luo et al., "Benchmarking and Dissecting the Nvidia Hopper GPU
Architecture", arXiv 2402.13499) plus queueing under load; one figure for NVIDIA's HBM GPUs. Replace it with a
measured loaded latency where one is found.

Where it applies (:func:`kloop_applies`): vLLM and SGLang with 16-bit or per-tensor FP8 routed experts on NVIDIA GPUs
(the Triton fused MoE is their default for these formats at tensor parallelism). On a TP 1 slice the experts' bytes
outlast the chain and nothing is added; at TP 8 a 128-expert layer's eight active slices of a few MB stream in a few
microseconds and the gate/up chain (hidden 4096: 64 tiles, 22 round trips) sets the GEMM. Not where another kernel runs the
experts and is modelled elsewhere: block-scaled FP8 (its own tiles, :mod:`gpudesk.sizing.serve_moe_tiles`), 4-bit
formats (Marlin, :mod:`gpudesk.sizing.serve_marlin_moe`), MXFP4/NVFP4 (FlashInfer / CUTLASS), AMD GPUs (AITER / CK
MoE), TensorRT-LLM and LMDeploy (CUTLASS grouped GEMMs). AMD GPUs run the same Triton kernel where AITER is off
(and SGLang by default), with ``num_stages`` 2 in their shipped configurations, so a longer chain; left out until
a loaded HBM latency for CDNA is sourced.
"""

from __future__ import annotations

from gpudesk.catalog.records import GPU

KLOOP_SOURCE = ("Triton fused_moe_kernel walks K in one program, no split-K (vllm/model_executor/layers/fused_moe/"
                "fused_moe.py; sglang fused_moe_triton); tuned decode tiles BLOCK_SIZE_K 64, num_stages 4-5 "
                "(vllm configs E=128,N=192 NVIDIA_B200 at 47c4439, NVIDIA_H200 at 4652ef5)")
# Bytes of one weight row a K tile covers: BLOCK_SIZE_K 64 x 2 bytes (16-bit) = 128 x 1 byte (FP8, BLOCK_SIZE_K 128).
KLOOP_TILE_K_BYTES = 128
# Loads in flight per program: num_stages - 1 with the decode configurations' 4 stages.
KLOOP_IN_FLIGHT = 3
HBM_LOAD_LATENCY_S = 0.6e-6
HBM_LATENCY_SOURCE = ("HBM load latency under load 0.6 us, ASSUMED from published pointer-chase latencies (Luo et al., "
                      "arXiv 2402.13499) plus queueing")
KLOOP_ENGINES = ("vllm", "sglang")
KLOOP_FORMATS = ("bf16", "fp16", "fp8")


def kloop_applies(engine: str, gpu: GPU, weight_format: str, block_fp8: bool) -> bool:
    """Whether ``engine`` runs the routed experts through the Triton fused MoE whose K loop is modelled here."""
    return (engine.lower() in KLOOP_ENGINES and gpu.vendor.upper() == "NVIDIA"
            and weight_format.lower() in KLOOP_FORMATS and not block_fp8)


def kloop_chain_s(k_elements: int, weight_bytes_per_element: float) -> float:
    """Seconds of one program's serial chain of weight-tile loads over a reduction of ``k_elements`` weights of
    ``weight_bytes_per_element`` bytes: ``ceil(ceil(K bytes / tile bytes) / loads in flight)`` latencies."""
    tiles = -(-int(k_elements * weight_bytes_per_element) // KLOOP_TILE_K_BYTES)
    rounds = -(-tiles // KLOOP_IN_FLIGHT)
    return rounds * HBM_LOAD_LATENCY_S
