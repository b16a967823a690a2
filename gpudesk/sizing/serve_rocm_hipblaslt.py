"""SGLang's 16-bit dense linears on AMD Instinct: hipBLASLt calls at every step, each with hipBLASLt's fixed excess.

Which kernel: SGLang has no skinny-GEMM dispatch of its own for unquantized linears.
``UnquantizedLinearMethod.apply`` (sgl-project/sglang ``python/sglang/srt/layers/quantization/unquant.py``) runs
``torch.nn.functional.linear`` (on ROCm: hipBLASLt, the library vLLM's PR 15830 measured its skinny kernels against),
or with ``SGLANG_USE_AITER=1`` (set by SGLang's ROCm images, ``docker/rocm.Dockerfile``) AITER's ``tgemm.mm``
(ROCm/aiter ``aiter/tuned_gemm.py``), which looks the shape up in its tuned table and otherwise takes its default:
the skinny kernel only where ``is_skinny_default_shape`` holds for one token (``N <= 2 x compute units`` and
``K <= 9216``), else ``torch`` (``F.linear``, hipBLASLt). The projections of a transformer layer are wider than
that (N of the O and down projections is the hidden size, thousands), so at every step, one token or many, they run
as hipBLASLt GEMMs; only narrow ones (an MoE router of a few hundred experts) take the skinny kernel. No tuned
table for a model's shapes is assumed (the tables ship for the shapes AMD tuned, not for every model). vLLM instead
sends 1-4-token steps to its own skinny kernels (:func:`gpudesk.sizing.serve_rates.library_gemm_extra_s`).

What a hipBLASLt call costs at decode sizes, beyond what the step model already charges for a GEMM (one small-kernel
floor and its weights at the GPU's STREAM rate): vLLM measured it in the engine, CUDA/HIP graphs on, by sending the
same GEMMs to hipBLASLt instead of its skinny kernels, 2.5-3.0 us more per GEMM for Llama 3.1 70B at TP 8 on MI300X
(vllm-project/vllm PR 15830: :data:`gpudesk.sizing.serve_rates.HIPBLASLT_EXTRA_GEMM_S`); that in-engine figure is
taken. It is a fixed time per call: ROCm/rocm-libraries PR 12329 (https://github.com/ROCm/rocm-libraries/pull/12329)
times hipBLASLt one-token FP16 GEMMs on MI300X at 14 shapes (N 4096-76032, K 8192-17792: 32.77 us for 90 MB of
weights ... 497.12 us for 2.02 GB), which a least-squares line fits as 9.73 us + bytes / 4.14 TB/s (every point within
11 us): the rate is the STREAM rate (4.11 TB/s, :data:`gpudesk.sizing.serve_rates.MEASURED_STREAM_COPY_TBPS`), the
rest a fixed time per call, and ROCm/FlyDSL PR 274 (https://github.com/ROCm/FlyDSL/pull/274) measures torch-hipBLASLt
BF16 at M 32, N 384, K 7168 (5.5 MB, under 1 us of streaming) in 12.9 us on MI308 and 10.9 us on MI355, so larger
steps and CDNA 4 keep a fixed time of the same order. Those stand-alone timings (9.73 us against the skinny kernel's
~4 us in the same table) are read as including the host's launch of each call, which graph replay removes; the engine's own 2.76
us is therefore the excess used, at every step and on both generations.
"""

from __future__ import annotations

from gpudesk.catalog.records import GPU
from gpudesk.sizing.serve_rates import HIPBLASLT_EXTRA_GEMM_S
from gpudesk.sizing.shapes import ModelSpec

# Least-squares line through PR 12329's 14 hipBLASLt one-token FP16 points on MI300X, timed call by call outside a
# graph (module docstring): the evidence that the cost is fixed per call, not the figure charged.
HIPBLASLT_CALL_FIXED_S = 9.73e-6
# The in-engine excess of a hipBLASLt call over the skinny kernel (vLLM PR 15830, graphs on): charged per call.
SGLANG_HIPBLASLT_EXTRA_S = HIPBLASLT_EXTRA_GEMM_S
SGLANG_HIPBLASLT_ARCHITECTURES = ("CDNA 3", "CDNA 4")
# aiter/tuned_gemm.py is_skinny_default_shape, one token: N <= 2 x compute units and K <= 9216.
AITER_SKINNY_N_PER_CU = 2
AITER_SKINNY_MAX_K = 9216
MLA_ATTENTION_GEMMS = 5  # q (or q_a, q_b), kv_a, kv_b, o: as gpudesk.sizing.serve_rates.dense_gemms_per_step counts
SGLANG_HIPBLASLT_SOURCE = (
    "SGLang runs 16-bit linears through F.linear or AITER tgemm, whose default for shapes wider than its skinny "
    "rule is torch/hipBLASLt (sgl-project/sglang python/sglang/srt/layers/quantization/unquant.py; ROCm/aiter "
    "aiter/tuned_gemm.py is_skinny_default_shape); a hipBLASLt call costs 2.5-3.0 us more than the skinny kernel "
    "in the engine (vllm-project/vllm PR 15830), a fixed time per call (hipBLASLt one-token GEMMs on MI300X: "
    "9.73 us + bytes / 4.14 TB/s, https://github.com/ROCm/rocm-libraries/pull/12329)")


def sglang_hipblaslt_applies(engine: str, gpu: GPU, linear_format: str | None) -> bool:
    """True where SGLang's 16-bit dense linears run as hipBLASLt calls: SGLang on a CDNA 3 / CDNA 4 GPU with
    16-bit linears (``bf16``: BF16/FP16 weights and MXFP4 checkpoints whose attention stays 16-bit)."""
    return (engine.lower() == "sglang" and gpu.vendor.upper() == "AMD"
            and gpu.architecture in SGLANG_HIPBLASLT_ARCHITECTURES and linear_format == "bf16")


def _library_shape(n: float, k: float, compute_units: int) -> bool:
    """True where AITER's default dispatch hands a one-token GEMM of ``n`` outputs and ``k`` inputs to hipBLASLt
    (not its skinny kernel)."""
    return not (n <= AITER_SKINNY_N_PER_CU * compute_units and k <= AITER_SKINNY_MAX_K)


def sglang_hipblaslt_gemms(spec: ModelSpec, tp: int, compute_units: int) -> int:
    """hipBLASLt GEMM calls one step of ``spec`` makes on one of ``tp`` GPUs of ``compute_units`` compute units:
    per layer the fused QKV and O projections (five for MLA), the gate_up and down GEMMs of dense MLP layers and of
    shared experts, the router of routed-MoE layers where it is wider than AITER's skinny rule, and the LM head."""
    dims = spec.transformer_dims
    h, layers = dims.hidden_size, dims.layers
    head = spec.head_dim_resolved
    moe_layers = (spec.moe_layers if spec.moe_layers is not None else layers) if spec.moe_experts else 0

    def count(n: float, k: float) -> int:
        return 1 if _library_shape(n, k, compute_units) else 0

    if spec.attention_kind == "mla":
        attention = MLA_ATTENTION_GEMMS
    else:
        qkv = (dims.num_attention_heads + 2 * spec.kv_heads_resolved) * head / tp
        attention = count(qkv, h) + count(h, dims.num_attention_heads * head / tp)
    ffn = spec.ffn_size or 0
    up = 2 if spec.gated else 1
    dense_mlp = count(up * ffn / tp, h) + count(h, ffn / tp) if ffn else 0
    moe = 0
    if moe_layers:
        moe = count(spec.moe_experts or 0, h)
        shared = spec.moe_shared_experts * (spec.moe_ffn_size or ffn)
        if shared:
            moe += count(2 * shared / tp, h) + count(h, shared / tp)
    head_gemm = count((spec.vocab_size or 0) / tp, h) if spec.vocab_size else 0
    return layers * attention + moe_layers * moe + (layers - moe_layers) * dense_mlp + head_gemm
