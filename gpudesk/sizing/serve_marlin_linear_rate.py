"""Math rate of the 4-bit weight-only dense linears on NVIDIA Hopper and datacenter Blackwell, beyond decode sizes.

vLLM runs the dense linears of AWQ, GPTQ and compressed-tensors W4A16 checkpoints on NVIDIA GPUs of compute
capability 8.0 and later through mixed-input GEMMs that unpack the 4-bit weights in registers inside the main loop:
``awq_marlin`` (``AWQMarlinConfig.override_quantization_method`` takes over ``awq`` checkpoints wherever
``check_marlin_supported`` allows), ``gptq_marlin`` and compressed-tensors ``WNA16`` through
``choose_mp_linear_kernel`` (Marlin; Machete on compute capability 9.0 for the formats it takes), all under
``vllm/model_executor/layers/quantization/`` (https://github.com/vllm-project/vllm); SGLang imports the same
kernels (``python/sglang/srt/layers/quantization/``). At decode sizes they run at the weight stream's time, where
the model already charges the 4-bit weight bytes: Marlin is near-ideal (4x over FP16) up to batch 16-32 and loses
that advantage gradually at larger batch, where the math sets the time (Frantar et al., MARLIN: Mixed-Precision
Auto-Regressive Parallel Inference on Large Language Models, arXiv 2408.11743, sections 3-4).

Where the math is slower than the dense GEMMs. Marlin issues Ampere-style warp-level ``mma.sync`` (m16n8k16). On
Ampere, Ada and the GeForce / workstation Blackwell parts (compute capability 8.x and 12.x) that is the tensor cores'
full-rate instruction, and Marlin keeps up with cuBLAS at large batch. Hopper (9.0) and datacenter Blackwell (10.x)
reach their tensor peak only through the asynchronous warpgroup ``wgmma`` / ``tcgen05.mma`` with TMA loads
(PTX ISA, https://docs.nvidia.com/cuda/parallel-thread-execution/); Marlin's math falls well below the dense
GEMMs there, the gap Neural Magic built Machete (CUTLASS 3 / wgmma, 2024) to close for some formats.

Rate. The dense Marlin GEMM and the Marlin MoE kernel share one main loop (vLLM
``csrc/quantization/gptq_marlin/marlin_template.h``, used by ``csrc/moe/marlin_moe_wna16`` too). Its rate measured
on Hopper (:mod:`gpudesk.sizing.serve_marlin_moe_rate`: 38.7 % of the BF16 dense peak on H20 at 1024-8192 rows,
flagos-ai/FlagGems PR 3375) is applied to the dense linears' FLOPs of vLLM and SGLang steps on compute capability
9.x-10.x in the same form as there (extra seconds = tokens x linear FLOPs x (1 / kernel rate - 1 / dense rate)).
At decode sizes the term is small against the weight stream (one token: well under 1 %); at prompt steps and
large decode batches it is the kernel's math. The embeddings and LM head stay 16-bit in these checkpoints and keep
the dense rate. Machete is not separated: vLLM gives AWQ checkpoints to Marlin on every GPU, and the measured
end-to-end W4A16 runs on H100 / H200 are no closer to BF16 than Marlin's rate says (speedfix91 notes).

Not applied: TensorRT-LLM (its own CUTLASS / FPA-INTB kernels), LMDeploy (TurboMind), AMD GPUs (no Marlin on ROCm:
vLLM runs GPTQ there through its exllama-derived ``gptq_gemm``), formats other than integer 4-bit weight-only
(MXFP4 / NVFP4 / FP8 / INT8).
"""

from __future__ import annotations

from gpudesk.sizing.serve_int4_moe_shape import WEIGHT_ONLY_4BIT_PREFIXES
from gpudesk.sizing.serve_marlin_moe import MARLIN_MOE_ENGINES
from gpudesk.sizing.serve_marlin_moe_rate import MARLIN_MOE_PEAK_SHARE, MARLIN_MOE_VENDOR

MARLIN_LINEAR_PEAK_SHARE = MARLIN_MOE_PEAK_SHARE
# Datacenter Hopper (9.0) and Blackwell (10.x) reach their tensor peak only through wgmma / tcgen05; Marlin's
# mma.sync runs below it there. Ampere, Ada and the GeForce / workstation Blackwell parts (12.x, no wgmma or
# tcgen05) run mma.sync at their full tensor rate, so Marlin keeps up with the dense GEMMs at large batch.
MARLIN_SLOW_MIN_CAPABILITY = 9.0
MARLIN_SLOW_BELOW_CAPABILITY = 12.0
MARLIN_LINEAR_SOURCE = (
    "4-bit weight-only dense linears in vLLM / SGLang on NVIDIA run Marlin-family mixed-input GEMMs "
    "(vllm/model_executor/layers/quantization/awq_marlin.py, gptq_marlin.py, kernels/mixed_precision; "
    "https://github.com/vllm-project/vllm): near-ideal at batch <= 16-32, math-bound beyond (Frantar et al., "
    "arXiv 2408.11743); Marlin's mma.sync below the wgmma / tcgen05 peak of compute capability 9.x-10.x (PTX "
    "ISA); rate: the shared Marlin main loop (csrc/quantization/gptq_marlin/"
    "marlin_template.h) measured at 38.7 % of the BF16 peak on H20, flagos-ai/FlagGems PR 3375")


def marlin_linear_peak_share(engine: str, vendor: str, weight_format: str, compute_capability: str | None) -> float:
    """Share of the BF16 dense peak the dense linears' math reaches in the Marlin-family kernel for ``engine`` on a
    GPU of ``vendor`` and ``compute_capability`` with weights stored in ``weight_format``; 0 where this module does
    not apply (module docstring)."""
    if engine.lower() not in MARLIN_MOE_ENGINES or vendor.upper() != MARLIN_MOE_VENDOR:
        return 0.0
    try:
        capability = float(compute_capability or 0)
    except ValueError:
        return 0.0
    if not MARLIN_SLOW_MIN_CAPABILITY <= capability < MARLIN_SLOW_BELOW_CAPABILITY:
        return 0.0
    if not weight_format.lower().startswith(WEIGHT_ONLY_4BIT_PREFIXES):
        return 0.0
    return MARLIN_LINEAR_PEAK_SHARE
