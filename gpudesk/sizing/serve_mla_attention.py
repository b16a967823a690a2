"""The attention FLOPs of multi-head latent attention (MLA: DeepSeek-V2/V3/R1, Kimi K2) by the form each step runs.

MLA has two exact forms of the same attention (DeepSeek-V2 paper, arXiv 2405.04434, section 2.1 and appendix C):

- absorbed: the key up-projection is folded into the query and the value up-projection into the output, so every
  query head attends to the shared cached latent (``kv_lora_rank``) plus the shared RoPE key
  (``qk_rope_head_dim``). Per head and context token QK^T is ``2 x (kv_lora_rank + qk_rope_head_dim)`` FLOPs and PV
  ``2 x kv_lora_rank``: 2 x 576 + 2 x 512 = 2176 for DeepSeek-V3. The engines decode in this form (vLLM
  ``_forward_decode``, SGLang ``forward_absorb``, FlashMLA).
- multi-head (MHA): the prompt's latent is up-projected by ``kv_b_proj`` into per-head keys and values and the
  heads attend as plain attention with ``qk_nope_head_dim + qk_rope_head_dim``-wide keys and ``v_head_dim``-wide
  values: 2 x 192 + 2 x 128 = 640 per head and context token. vLLM runs every prompt token this way, a chunk's
  cached prefix included (its latent up-projected chunk by chunk): ``vllm/v1/attention/backends/mla/common.py``
  ``_forward_prefill`` / ``_compute_prefill_context`` with FlashAttention 3 on Hopper, V not padded
  (vllm-project/vllm as merged in ROCm/vllm tag v0.8.4+rocm, commit 28007b08d67028fcbc6f8da02d33205d1744afc1,
  upstream merge of 2025-04-25).

SGLang up to 0.4.5 takes the multi-head form for an extend batch only when no request in it has a cached prefix and
the absorbed form otherwise: ``python/sglang/srt/models/deepseek_v2.py`` ``DeepseekV2AttentionMLA.no_absorb``
(flashinfer: ``sum(forward_batch.extend_prefix_lens_cpu) == 0``; triton: the same; fa3: always absorbed) at tag
v0.4.5 (commit 57f99608f4fdea03e0450f51a6fcabe726409f25). A chunked prompt's second and later chunks (and every
batch in which one of them rides) therefore attend in the absorbed form, 3.4 times the multi-head FLOPs per
context token. From 0.4.5.post1 SGLang picks the fa3 backend for MLA on Hopper by default
(``python/sglang/srt/model_executor/model_runner.py`` ``model_specific_adjustment``), which runs long cached
prefixes as multi-head attention over chunks of the cached KV (``AttnForwardMethod.MHA_CHUNKED_KV``,
``dispatch_attn_forward_method`` at tag v0.4.5.post1). Its flashinfer and triton MLA backends (``--enable-flashinfer-
mla``, GPUs other than Hopper) keep absorbing in later releases too; the step model has no attention-backend input
to tell them apart, so releases after 0.4.5 are counted like the other engines (below).

What the step model takes: decode steps in every engine count the absorbed widths (before this module the
absorbed KV view of :func:`gpudesk.sizing.shapes.mla_kv_view`, one head of (512 + 64) / 2 = 288, gave the FLOPs too:
4 x 288 = 1152 per head, 53 % of the absorbed 2176). Prompt steps of SGLang up to 0.4.5 count the absorbed widths as
well; every other prompt step counts the multi-head form's 640. The long-prompt DeepSeek-R1 runs of vLLM 0.8.4 and
TensorRT-LLM on 8 H200 (simon-mo/R1-Benchmark, 10 requests/s of 5k-30k tokens) run 1.4-2x slower than predicted with
either count; their prompt steps cost more than the multi-head FLOPs at the modelled attention rate for a reason not
yet found (speedfix81_notes.md). The multi-head count is charged because it is what the kernels compute: keeping the
earlier, too-large 1152 would hide that unexplained cost inside a wrong FLOP count.

The step model counts a prompt step's attention by the sum over its tokens of the context each attends to; which
share of those is a first chunk (multi-head even in SGLang 0.4.5) is not tracked, so SGLang up to 0.4.5 counts all
of a prompt step's attention absorbed: a first chunk's own causal attention is small next to the later chunks'
attention to their prefixes, which sets the long-prompt cost.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpudesk.sizing.engine_version import version_triple
from gpudesk.sizing.shapes import ModelSpec

#: DeepSeek-V2/V3 per-head widths where a config does not give them (config.json qk_nope_head_dim, v_head_dim).
MLA_DEFAULT_HEAD_DIM = 128

ABSORBED_SOURCE = ("MLA absorbed form: per head QK^T over kv_lora_rank + qk_rope_head_dim, PV over kv_lora_rank "
                   "(DeepSeek-V2, arXiv 2405.04434, appendix C)")
VLLM_MHA_SOURCE = ("vLLM MLA prefill in the multi-head form, prefix context up-projected: vllm/v1/attention/backends/"
                   "mla/common.py _forward_prefill, _compute_prefill_context (ROCm/vllm v0.8.4+rocm @28007b0, "
                   "upstream 2025-04-25) (https://github.com/vllm-project/vllm)")
SGLANG_ABSORB_SOURCE = ("SGLang up to 0.4.5 absorbs MLA for any extend batch with a cached prefix: python/sglang/srt/"
                        "models/deepseek_v2.py DeepseekV2AttentionMLA.no_absorb (v0.4.5 @57f9960) "
                        "(https://github.com/sgl-project/sglang)")
#: The last SGLang release whose extend batches with a cached prefix always attend in the absorbed form.
SGLANG_LAST_ABSORBED_EXTEND = (0, 4, 5)


@dataclass(frozen=True)
class MlaAttention:
    """FLOPs per head and context token of a decode step and of a prompt step, and the prompt form's source."""

    decode_flops_per_head: float
    prefill_flops_per_head: float
    prefill_absorbed: bool
    source: str


def absorbed_flops_per_head(spec: ModelSpec) -> float:
    """QK^T + PV FLOPs per head and context token in the absorbed form (module docstring)."""
    latent = spec.kv_lora_rank or 0
    return 2.0 * (latent + (spec.qk_rope_head_dim or 0)) + 2.0 * latent


def multi_head_flops_per_head(spec: ModelSpec) -> float:
    """QK^T + PV FLOPs per head and context token in the multi-head form (module docstring)."""
    nope = spec.qk_nope_head_dim or MLA_DEFAULT_HEAD_DIM
    value = spec.v_head_dim or MLA_DEFAULT_HEAD_DIM
    return 2.0 * (nope + (spec.qk_rope_head_dim or 0)) + 2.0 * value


def prefill_runs_absorbed(engine: str, version: str | None) -> bool:
    """Whether a prompt step attends in the absorbed form: SGLang releases up to 0.4.5 (module docstring)."""
    if engine.lower() != "sglang":
        return False
    release = version_triple(version)
    if release is None:
        return False
    if release[:3] == SGLANG_LAST_ABSORBED_EXTEND:
        return "post" not in str(version).lower()
    return release[:3] < SGLANG_LAST_ABSORBED_EXTEND


def mla_attention(spec: ModelSpec, engine: str, version: str | None) -> MlaAttention | None:
    """The MLA attention FLOPs of ``spec`` served by ``engine`` ``version``; None for a model without MLA."""
    if spec.attention_kind != "mla" or not spec.kv_lora_rank:
        return None
    absorbed = absorbed_flops_per_head(spec)
    if prefill_runs_absorbed(engine, version):
        return MlaAttention(absorbed, absorbed, True, f"{ABSORBED_SOURCE}; {SGLANG_ABSORB_SOURCE}")
    return MlaAttention(absorbed, multi_head_flops_per_head(spec), False, f"{ABSORBED_SOURCE}; {VLLM_MHA_SOURCE}")
