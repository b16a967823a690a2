"""vLLM V1's piecewise CUDA/HIP graphs: attention, multi-head latent attention (MLA) above all, issued op by op.

The V1 engine (vLLM 0.8 on) compiles the model and captures it in pieces: the attention op is a splitting op
(``CompilationConfig.splitting_ops``, filled by ``set_splitting_ops_for_v1`` with the unified attention ops), so each
step replays one graph per piece between layers and runs every layer's attention eagerly from Python. Until the
full-graph mode became the default this held for every attention backend: ``CompilationConfig.full_cuda_graph``
defaults to False ("By default, V1 uses piecewise CUDA graphs", vllm/config.py at ROCm/vllm f8c9a3852, 2025-08-28,
which carries vLLM 0.10.1); vLLM 0.11.0 replaced it with ``cudagraph_mode`` whose default ``FULL_AND_PIECEWISE``
replays a decode batch from one full graph where the attention backend supports it (vllm-project/vllm PR
25444, merged 2025-09-23). A backend without full-graph support keeps the piecewise graphs: on ROCm the Triton MLA
backend (``vllm/v1/attention/backends/mla/triton_mla.py`` declares no ``full_cudagraph_supported``, while
``rocm_aiter_mla.py`` and ``flashmla.py`` declare it for decode) until PR 42885 ("Enable FULL cudagraph capture for
TRITON_MLA decode", merged 2026-05-18 while main prepared 0.21: PR 43358 of 2026-05-26 removes what was "scheduled
for v0.21.0"; read in the history of the 1CatAI/1Cat-vLLM fork at ae13773, which carries upstream), which
``RocmPlatform.get_attn_backend_cls`` picks for MLA models unless AITER MLA is on (``VLLM_ROCM_USE_AITER=1`` with ``VLLM_ROCM_USE_AITER_MLA``, on by default under it) or the KV block size is 1
(``--block-size 1`` selects AITER MLA whatever the switch; vllm/platforms/rocm.py at f8c9a3852) - and AITER runs
only on CDNA 3 and CDNA 4 (gfx942, gfx950).

The eager part of an MLA layer's decode is long (``MLACommonImpl.forward`` in vllm/v1/attention/backends/mla/
common.py and the backends' ``_forward_decode`` at f8c9a3852): ``concat_and_cache_mla``, the ``W_UK_T`` batched
matmul, the query concatenation, the zero-filled output, the decode kernel in two launches (Triton
``decode_attention_fwd`` stage 1 and 2; AITER ``mla_decode_fwd`` and its reduction), the ``W_UV`` batched matmul
(``_v_up_proj``), the copy of its transposed result and the copy into the output buffer: 9 kernels per layer. The CPU
issues them, with the Python around them, at vLLM's measured eager figure per kernel
(:data:`gpudesk.sizing.serve_eager_prefill.VLLM_EAGER_LAUNCH_S_PER_KERNEL`) while the GPU runs what was already
issued, so a step lasts at least the CPU's time for every layer's eager attention. For DeepSeek-R1 (61 MLA layers)
that is about 21 ms, whatever the batch: the floor a small-batch decode step meets before the GPU's work outgrows it.
The graph replays between the pieces also cost CPU time; no figure for them was found, so they are not counted.
Other attention issues fewer kernels eagerly: the KV-cache write (``reshape_and_cache_flash``) and the attention
kernel (FlashAttention's ``flash_attn_varlen_func``, the Triton ``unified_attention``; vllm/v1/attention/backends/
flash_attn.py, triton_attn.py at f8c9a3852), 2 per layer, a floor that binds only where a layer's GPU work is
shorter. After 0.11 every non-MLA backend the rows use is taken as replayed whole (not counted), although chunked
local attention (Llama 4) declares ``AttentionCGSupport.NEVER`` since PR 26034 (2025-10-01) and so keeps the whole
model piecewise: the model spec does not carry ``attention_chunk_size`` yet.
"""

from __future__ import annotations

from gpudesk.sizing.shapes import ModelSpec

# the vLLM releases whose V1 engine replays piecewise graphs only by default (V1 from 0.8; full graphs from 0.11)
VLLM_V1_SINCE = (0, 8)
FULL_GRAPH_DEFAULT_SINCE = (0, 11)
TRITON_MLA_FULL_GRAPH_SINCE = (0, 21)  # PR 42885 (module docstring)
MLA_EAGER_DECODE_KERNELS = 9  # per MLA layer and step (module docstring)
ATTENTION_EAGER_KERNELS = 2  # per layer and step of other attention: KV-cache write + attention kernel
# the architectures AITER's MLA decode kernel runs on (gfx942, gfx950)
AITER_MLA_ARCHITECTURES = ("CDNA 3", "CDNA 4")
PIECEWISE_SOURCE = (
    "vLLM V1 piecewise graphs run attention eagerly: vllm/config.py CompilationConfig.full_cuda_graph=False, "
    "set_splitting_ops_for_v1 (ROCm/vllm f8c9a3852, vLLM 0.10.1); FULL_AND_PIECEWISE default from vLLM 0.11.0 "
    "(vllm-project/vllm PR 25444); Triton MLA full decode graphs from PR 42885 (0.21); "
    "ROCm MLA backend choice vllm/platforms/rocm.py get_attn_backend_cls (Triton MLA without AITER, no full-graph "
    "support); MLA decode ops vllm/v1/attention/backends/mla/common.py MLACommonImpl.forward, triton_mla.py / "
    "rocm_aiter_mla.py _forward_decode (https://github.com/ROCm/vllm)")


def attention_runs_piecewise(spec: ModelSpec, engine: str, version: tuple[int, int] | None, vendor: str,
                       architecture: str, rocm_aiter: bool | None, cuda_graphs: bool,
                       kv_block_size: int | None = None, v0: bool = False) -> bool:
    """Whether vLLM issues this model's attention eagerly between piecewise graphs on every step (module
    docstring): the V1 engine before 0.11 on any GPU and model, and from 0.11 to 0.20 an MLA model on AMD GPUs where
    the Triton MLA backend runs (AITER switched off and a KV block size other than 1, or an architecture AITER does
    not support). No version given means the current defaults: full decode graphs for every MLA backend.
    ``rocm_aiter`` None (unset) keeps AITER on where it can run (:mod:`gpudesk.sizing.serve_rocm_attention`).
    False for another engine, vLLM V0 (``v0``: its V0 fallback, :func:`gpudesk.sizing.serve_vllm_v0.vllm_v0_fallback`),
    or an engine run without graphs (already eager)."""
    if (engine.lower() != "vllm" or not cuda_graphs or v0
            or (version is not None and version < VLLM_V1_SINCE)):
        return False
    if version is not None and version < FULL_GRAPH_DEFAULT_SINCE:
        return True
    if spec.attention_kind != "mla" or not spec.kv_lora_rank:
        return False
    if vendor.upper() != "AMD" or version is None or version >= TRITON_MLA_FULL_GRAPH_SINCE:
        return False
    aiter_mla = architecture in AITER_MLA_ARCHITECTURES and (rocm_aiter is not False or kv_block_size == 1)
    return not aiter_mla


def piecewise_attention_kernels(spec: ModelSpec, runs_piecewise: bool) -> int:
    """Kernels the CPU issues eagerly per step for the layers' attention (module docstring); 0 where the
    attention is replayed from graphs."""
    if not runs_piecewise:
        return 0
    per_layer = MLA_EAGER_DECODE_KERNELS if spec.attention_kind == "mla" and spec.kv_lora_rank \
        else ATTENTION_EAGER_KERNELS
    return per_layer * spec.transformer_dims.layers
