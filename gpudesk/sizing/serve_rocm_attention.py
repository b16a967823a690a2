"""vLLM decode attention on AMD Instinct with AITER off: which kernel runs and how many compute units it keeps busy.

The AITER switch (``VLLM_ROCM_USE_AITER``) is an input the user types (``--rocm-aiter on|off``, row field
``rocm_aiter``). Its default cannot be told from the engine version: vLLM's own default is off (``vllm/envs.py``,
``VLLM_ROCM_USE_AITER`` defaults to False since it was added) and so is its official image
``vllm/vllm-openai-rocm``, which sets no environment for it (a maintainer confirmed it is opt-in on purpose,
vllm-project/vllm issue 56945), while AMD's ROCm vLLM recipes and optimisation guide run with
``VLLM_ROCM_USE_AITER=1`` ("AITER MHA ... recommended for most workloads on MI300X/MI355X", ROCm docs
inference-optimization/vllm-optimization, ROCm PR 5554). Unset therefore keeps the AITER kernels the model assumed
before this input existed.

With AITER off vLLM's V1 engine on ROCm runs the ``ROCM_ATTN`` backend. Its decode goes to
``vllm/v1/attention/ops/chunked_prefill_paged_decode.py``:

- ``ops.paged_attention_rocm`` (the custom HIP kernel, split into 256-token partitions) where
  ``use_rocm_custom_paged_attention`` (``vllm/platforms/rocm.py``) holds: a 16-bit query, head size 64 or 128,
  KV block size 16 or 32, 1-16 query heads per KV head, at most 128 Ki context, no sliding window, no sinks. The split
  keeps every compute unit busy: the model's HBM-rate KV stream applies;
- otherwise the Triton ``kernel_paged_attention_2d`` with the grid ``(num_seqs, num_kv_heads)``: one workgroup per
  sequence and KV head walks that head's whole context, with no split of the context across workgroups (the
  split-KV variant, vllm-project/vllm PR 45916, is gated to RDNA). A step of ``B`` decoding sequences on a GPU with
  ``H`` KV heads therefore runs ``B x H`` workgroups, one per compute unit at most, and streams the KV cache at no
  more than ``B x H / CUs`` of the HBM rate (each compute unit's even share). PR 45916 measures the unsplit kernel
  15.8x slower than the split one at 32 Ki context on RDNA 3; vllm-project/vllm issue 56945 measures the AITER-off
  path 1.7x slower at ~200 prompt tokens and 3.7x at ~12k on MI300X / MI325X / MI355X.

CDNA 1 (MI100, gfx908) never takes the custom HIP kernel: ``use_rocm_custom_paged_attention`` returns it only
``ON_GFX9``, the architectures ``gfx90a``, ``gfx942`` and ``gfx950`` (vllm/platforms/rocm.py at tag v0.8.5+rocm and
still at ROCm/vllm f8c9a3852, 2025-08-28), and AITER's attention cannot run there (its CK kernels use gfx90a+
instructions: btbtyler09/mi100-llm-testing README at d662b31, "CK-based ops (GEMM, MoE, Flash Attention, norms) are
disabled on gfx908"; at 3e46add "lack of support for gfx908 in Flash Attention and AITER"). Until vLLM 0.9 the V1
engine on ROCm ran every model through ``TritonAttentionBackend`` (vllm/platforms/rocm.py at v0.8.5+rocm,
``if envs.VLLM_USE_V1``), whose decode is ``chunked_prefill_paged_decode`` above, so on gfx908 the unsplit Triton
kernel decodes whatever the AITER switch says unless it is on. From 0.9 the same backend runs
``unified_attention`` instead (vllm-project/vllm PR 16828, merged 2025-05-06), whose decode-only steps split the
context into segments (``kernel_unified_attention_3d``), so later releases are not charged here.

The even share is a bound, not a measurement: a lone workgroup can draw more than ``1 / CUs`` of the HBM rate, and no
per-workgroup figure for this kernel on CDNA was found. Prefill attention (the Triton ``context_attention_fwd``) and
the MoE / GEMM / RMSNorm paths without AITER are not modelled here (no per-kernel CDNA figure found either).

Compute units per GPU: AMD Instinct datasheets (MI300X and MI325X 304, MI300A 228, MI350X and MI355X 256, MI250X 220,
MI210 104, MI100 120).
"""

from __future__ import annotations

from gpudesk.i18n import _

ROCM_COMPUTE_UNITS = {"mi300x": 304, "mi325x": 304, "mi300a": 228, "mi350x": 256, "mi355x": 256, "mi250x": 220,
                      "mi210": 104, "mi100": 120}
VLLM_DEFAULT_BLOCK_SIZE = 16  # vllm/platforms/rocm.py check_and_update_config: block_size 16 where the user set none
CUSTOM_PAGED_BLOCK_SIZES = (16, 32)
CUSTOM_PAGED_HEAD_SIZES = (64, 128)
CUSTOM_PAGED_MAX_GQA = 16
CUSTOM_PAGED_MAX_CONTEXT = 128 * 1024
# The catalog's architecture of the GPUs vLLM's ``ON_GFX9`` leaves out of the custom kernel (gfx908, CDNA 1).
NO_CUSTOM_PAGED_ARCHITECTURES = ("CDNA",)
# The first vLLM release whose V1 Triton backend decodes with unified_attention (PR 16828), not the paged kernel.
UNIFIED_TRITON_ATTENTION_RELEASE = (0, 9, 0)
ROCM_ATTENTION_SOURCE = (
    "vLLM ROCM_ATTN decode: vllm/v1/attention/ops/chunked_prefill_paged_decode.py (kernel_paged_attention_2d grid "
    "(num_seqs, num_kv_heads)) and vllm/platforms/rocm.py use_rocm_custom_paged_attention "
    "(https://github.com/vllm-project/vllm); VLLM_ROCM_USE_AITER opt-in: vllm/envs.py, issue 56945 "
    "(https://github.com/vllm-project/vllm/issues/56945); unsplit vs split-KV: PR 45916 "
    "(https://github.com/vllm-project/vllm/pull/45916); ON_GFX9 gating of the custom kernel (gfx90a, gfx942, gfx950) and "
    "the V1 Triton backend before unified attention (PR 16828): vllm/platforms/rocm.py and "
    "vllm/v1/attention/backends/triton_attn.py at v0.8.5 (https://github.com/ROCm/vllm/tree/v0.8.5%2Brocm); "
    "compute units: AMD Instinct datasheets")


def uses_unsplit_decode(engine: str, gpu_id: str, vendor: str, rocm_aiter: bool | None, head_size: int,
                        gqa_ratio: int, block_size: int | None, max_context_tokens: int, architecture: str = "",
                        engine_release: tuple[int, int, int] | None = None) -> bool:
    """True where vLLM on an AMD Instinct GPU decodes with the unsplit Triton paged-attention kernel (module
    docstring): not on other engines or vendors; on CDNA 1 (``architecture``) in releases before 0.9
    (``engine_release``; unknown: not charged) unless AITER is on; elsewhere only with AITER off and where the custom
    HIP kernel does not take the step (block size 16 / 32, head size 64 / 128, 1-16 query heads per KV head, context
    up to 128 Ki)."""
    if engine.lower() != "vllm" or vendor.upper() != "AMD" or gpu_id not in ROCM_COMPUTE_UNITS:
        return False
    if architecture in NO_CUSTOM_PAGED_ARCHITECTURES:
        return (rocm_aiter is not True and engine_release is not None
                and engine_release < UNIFIED_TRITON_ATTENTION_RELEASE)
    if rocm_aiter is not False:
        return False
    block = block_size or VLLM_DEFAULT_BLOCK_SIZE
    custom = (block in CUSTOM_PAGED_BLOCK_SIZES and head_size in CUSTOM_PAGED_HEAD_SIZES
              and 1 <= gqa_ratio <= CUSTOM_PAGED_MAX_GQA and max_context_tokens <= CUSTOM_PAGED_MAX_CONTEXT)
    return not custom


def unsplit_note(kv_heads_per_gpu: float, compute_units: int, block_size: int | None) -> str:
    """The assumption line of the unsplit decode kernel."""
    return _("AITER off: decode attention runs vLLM's Triton paged-attention kernel without a context split (KV "
             "block size {block}), one workgroup per sequence and KV head ({heads:g} KV heads per GPU), so the KV "
             "cache streams at no more than that many of the {cus} compute units' share of the HBM rate").format(
        block=block_size or VLLM_DEFAULT_BLOCK_SIZE, heads=kv_heads_per_gpu, cus=compute_units)
