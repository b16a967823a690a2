"""The GGML type llama.cpp's quantizer gives each tensor of a model for a file type (q4_k_m, q5_k_s, iq4_xs ...).

A file type is a mix, not one type: ``llama_tensor_get_type`` in ggml-org/llama.cpp ``src/llama-quant.cpp``
(commit 42ea59bc) keeps some tensors at more bits. The rules modelled here (the ones the common file types use):

- ``output.weight`` (or the tied ``token_embd`` when there is no output tensor) becomes ``q6_K`` unless the file
  type is q8_0 (it stays ``q8_0``); the token embedding keeps the file type's base type.
- ``attn_v``: q4_k_m / q5_k_m give ``q6_K`` to the layers ``use_more_bits`` picks (the first and last eighth and
  every third layer between: ``i < n/8 || i >= 7n/8 || (i - n/8) % 3 == 2``); q4_k_s gives ``q5_K`` to the first 4;
  q3_k_m gives ``q5_K`` to the first 2 and ``q4_K`` to the rest; q3_k_l ``q5_K``; q2_k ``q4_K`` when the model has
  GQA of 4 or more (else ``q3_K``); in a 70B-class model (80 layers, ``LLM_TYPE_70B``) an attn_v left at ``q3_K``
  or ``q4_K`` becomes ``q5_K`` ("8 heads sharing the same attn_v weights ... nearly negligible increase in model
  size"); 8-expert MoE models get ``q8_0`` for attn_v and attn_k.
- ``ffn_down``: q4_k_m / q5_k_m ``q6_K`` where ``use_more_bits``; q4_k_s ``q5_K`` for the first eighth; q3_k_m
  ``q5_K`` for the first sixteenth and ``q4_K`` for the rest (``q3_K`` only where Falcon's layers miss
  ``use_more_bits``); q3_k_l ``q5_K``; q2_k ``q3_K``.
- ``attn_qkv`` (one fused projection: GPT-NeoX, Phi-3/4, Falcon ...): q3_k_m / q3_k_l ``q4_K``, q4_k_m ``q5_K``,
  q5_k_m ``q6_K``; the attn_v rules do not apply to it.
- ``attn_output``: q3_k_m ``q4_K``, q3_k_l ``q5_K``, q2_k ``q3_K`` (dense models).
- A k- or i-quant tensor whose rows are not a multiple of 256 falls back (``q4_K`` -> ``q5_0``, ``q5_K`` ->
  ``q5_1``, ``q6_K`` -> ``q8_0``, 2-3 bit and iq4_xs -> ``iq4_nl``).
- ``mxfp4_moe`` (``LLAMA_FTYPE_MOSTLY_MXFP4_MOE``, gpt-oss; ``mxfp4`` as users type it): the routed experts (the
  3-D tensors, ``ne[2] > 1``) become ``MXFP4`` (``block_mxfp4``: one E8M0 scale byte + 16 bytes of 32 4-bit values,
  4.25 bits per weight, ggml ``ggml-common.h``), every other matrix ``q8_0``, the output and token embedding
  included (``llama_tensor_get_type``, ``// MoE tensors -> MXFP4 // other tensors -> Q8_0``, ggml-org/llama.cpp
  ``src/llama-quant.cpp`` at 8784689f).
- One-dimensional tensors (norms, biases) and the MoE router ``ffn_gate_inp`` stay ``f32``.
- Files made before llama.cpp stored a layer's experts as one 3-D tensor (``ffn_down_exps``; PR #6387, "ggml :
  update mul_mat_id to use the same tensor for all the experts", merged April 2024, about build b2600) hold one
  tensor per expert, ``blk.N.ffn_down.E.weight``; the quantizer of that time gave those no ``q6_K`` (TheBloke's
  Mixtral-8x7B-Instruct Q4_K_M of December 2023 lists ``blk.31.ffn_down.5.weight q4_K``, abetlen/llama-cpp-python
  #1014, and weighs 26,441,533,376 bytes, 4.53 bits per weight), so their experts keep the base type
  (``split_experts``).

Tensor shapes follow the GGUF names of a Llama-style decoder (``convert_hf_to_gguf.py``): token_embd, output,
per block attn_q/k/v/output, ffn_gate/up/down (``*_exps`` for routed experts, ``*_shexp`` for shared ones). Parameters
the shape does not name (MLA projections, vision towers) are counted at the base type so the total matches the
model's parameter count.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpudesk.i18n import _
from gpudesk.sizing.engines.ggml_types import canonical_file_type, ggml_row_bytes
from gpudesk.sizing.errors import ShapeError, SizingError
from gpudesk.sizing.shapes import ModelSpec

#: Base GGML type of each file type (llama-quant.cpp ``llama_model_quantize_impl`` switch on ftype).
BASE_TYPE: dict[str, str] = {
    "q4_0": "q4_0", "q4_1": "q4_1", "q5_0": "q5_0", "q5_1": "q5_1", "q8_0": "q8_0", "f16": "f16", "bf16": "bf16",
    "f32": "f32", "q2_k": "q2_K", "q2_k_s": "q2_K", "q3_k_s": "q3_K", "q3_k_m": "q3_K", "q3_k_l": "q3_K",
    "q4_k_s": "q4_K", "q4_k_m": "q4_K", "q5_k_s": "q5_K", "q5_k_m": "q5_K", "q6_k": "q6_K", "iq2_xxs": "iq2_xxs",
    "iq2_xs": "iq2_xs", "iq2_s": "iq2_xs", "iq2_m": "iq2_s", "iq1_s": "iq1_s", "iq1_m": "iq1_m",
    "iq3_xxs": "iq3_xxs", "iq3_xs": "iq3_s", "iq3_s": "iq3_s", "iq3_m": "iq3_s", "iq4_nl": "iq4_nl",
    "iq4_xs": "iq4_xs", "tq1_0": "tq1_0", "tq2_0": "tq2_0", "mxfp4_moe": "mxfp4", "mxfp4": "mxfp4",
}
#: The first llama.cpp build whose converter writes a layer's experts as one 3-D tensor (PR #6387, April 2024).
MERGED_EXPERTS_BUILD = 2600
_FALLBACK = {"q4_K": "q5_0", "q5_K": "q5_1", "q6_K": "q8_0", "q2_K": "iq4_nl", "q3_K": "iq4_nl", "iq4_xs": "iq4_nl",
             "iq2_xxs": "iq4_nl", "iq2_xs": "iq4_nl", "iq2_s": "iq4_nl", "iq3_xxs": "iq4_nl", "iq3_s": "iq4_nl",
             "iq1_s": "iq4_nl", "iq1_m": "iq4_nl"}


@dataclass(frozen=True)
class GgmlTensor:
    """One stored tensor: GGUF name, block index (None outside the blocks), element count, row width, GGML type."""

    name: str
    layer: int | None
    values: int
    row_values: int
    ggml_type: str

    @property
    def bytes(self) -> int:
        """Stored bytes (whole blocks per row: ``rows x ggml_row_size(type, row_values)``)."""
        rows = max(1, self.values // max(1, self.row_values))
        return rows * ggml_row_bytes(self.ggml_type, self.row_values)


def _use_more_bits(i: int, n: int) -> bool:
    return i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2


def _typed(ftype: str, kind: str, i: int, n: int, gqa: int, experts: int) -> str:
    if kind == "ffn_down_expert":
        return BASE_TYPE[ftype]
    t = _typed_rule(ftype, kind, i, n, gqa, experts)
    if kind == "attn_v" and n == 80 and t in ("q3_K", "q4_K"):
        return "q5_K"  # LLM_TYPE_70B
    return t


def _typed_rule(ftype: str, kind: str, i: int, n: int, gqa: int, experts: int) -> str:
    base = BASE_TYPE[ftype]
    if base in ("f16", "bf16", "f32"):
        return base
    if kind == "output":
        return "q8_0" if base == "q8_0" else "q6_K"
    if kind in ("attn_v", "attn_k") and experts == 8 and ftype.startswith(("q2", "q3", "q4", "q5")):
        return "q8_0"
    if kind == "attn_v":
        if ftype in ("q4_k_m", "q5_k_m") and _use_more_bits(i, n):
            return "q6_K"
        if ftype == "q4_k_s" and i < 4:
            return "q5_K"
        if ftype == "q3_k_m":
            return "q5_K" if i < 2 else "q4_K"
        if ftype == "q3_k_l":
            return "q5_K"
        if ftype in ("q2_k", "q2_k_s"):
            return "q4_K" if gqa >= 4 or experts >= 4 else "q3_K"
        if ftype in ("iq4_xs", "iq4_nl") and (gqa >= 4 or experts >= 4):
            return "q5_K"
    if kind == "attn_qkv":
        return {"q3_k_m": "q4_K", "q3_k_l": "q4_K", "q4_k_m": "q5_K", "q5_k_m": "q6_K"}.get(ftype, base)
    if kind == "ffn_down":
        if ftype in ("q4_k_m", "q5_k_m") and _use_more_bits(i, n):
            return "q6_K"
        if ftype == "q4_k_s" and i < n // 8:
            return "q5_K"
        if ftype == "q3_k_m":
            return "q5_K" if i < n // 16 else "q4_K"
        if ftype == "q3_k_l":
            return "q5_K"
        if ftype == "q2_k":
            return "q3_K"
        if ftype == "q2_k_s" and i < n // 8:
            return "q4_K"
    if kind == "attn_output" and experts < 8:
        if ftype == "q3_k_m":
            return "q4_K"
        if ftype == "q3_k_l":
            return "q5_K"
        if ftype == "q2_k":
            return "q3_K"
    return base


def _fit_rows(ggml_type: str, row_values: int) -> str:
    if ggml_type in _FALLBACK and row_values % 256:
        return _FALLBACK[ggml_type]
    return ggml_type


def gguf_tensors(spec: ModelSpec, file_type: str, split_experts: bool = False) -> list[GgmlTensor]:
    """Every tensor of ``spec`` quantised as llama.cpp's ``file_type`` (module docstring), in GGUF order;
    ``split_experts``: a file of the one-tensor-per-expert era (before PR #6387), whose expert ``ffn_down`` tensors
    keep the base type.

    Raises:
        SizingError: unknown file type; ShapeError: the model has no decoder shape.
    """
    key = canonical_file_type(file_type) or file_type.strip().lower()
    if key not in BASE_TYPE:
        raise SizingError("weight_format", _("unknown GGUF quantisation {name!r}; use one of {names}.").format(
            name=file_type, names=", ".join(BASE_TYPE)))
    if not (spec.is_transformer and spec.vocab_size and spec.ffn_size):
        raise ShapeError("model", _("{model}: a GGUF layout needs layers, hidden size, heads, FFN and vocabulary "
                                    "sizes.").format(model=spec.name))
    h, n = int(spec.hidden_size or 0), int(spec.layers or 0)
    heads, kv, hd = spec.transformer_dims.num_attention_heads, spec.kv_heads_resolved, spec.head_dim_resolved
    gqa = max(1, heads // kv)
    experts = int(spec.moe_experts or 0)
    moe_layers = (spec.moe_layers if spec.moe_layers is not None else n) if experts else 0
    first_moe = n - moe_layers
    vocab = int(spec.vocab_size or 0)
    out: list[GgmlTensor] = []

    def add(name: str, layer: int | None, values: int, row: int, kind: str) -> None:
        if kind == "norm":
            out.append(GgmlTensor(name, layer, values, values, "f32"))
            return
        if BASE_TYPE[key] == "mxfp4":  # MXFP4_MOE: experts MXFP4, every other matrix Q8_0 (module docstring)
            t = "mxfp4" if "_exps." in name else "q8_0"
        else:
            t = _fit_rows(_typed(key, kind, layer or 0, n, gqa, experts), row)
        out.append(GgmlTensor(name, layer, values, row, t))

    add("token_embd.weight", None, vocab * h, h, "output" if spec.tied_embeddings else "embd")
    for i in range(n):
        add(f"blk.{i}.attn_norm.weight", i, h, h, "norm")
        if spec.fused_qkv:
            add(f"blk.{i}.attn_qkv.weight", i, h * (heads + 2 * kv) * hd, h, "attn_qkv")
        else:
            add(f"blk.{i}.attn_q.weight", i, h * heads * hd, h, "attn_q")
            add(f"blk.{i}.attn_k.weight", i, h * kv * hd, h, "attn_k")
            add(f"blk.{i}.attn_v.weight", i, h * kv * hd, h, "attn_v")
        add(f"blk.{i}.attn_output.weight", i, heads * hd * h, heads * hd, "attn_output")
        add(f"blk.{i}.ffn_norm.weight", i, h, h, "norm")
        if i >= first_moe:
            width = int(spec.moe_ffn_size or spec.ffn_size)
            add(f"blk.{i}.ffn_gate_inp.weight", i, h * experts, h, "norm")
            add(f"blk.{i}.ffn_gate_exps.weight", i, h * width * experts, h, "ffn_gate")
            add(f"blk.{i}.ffn_up_exps.weight", i, h * width * experts, h, "ffn_up")
            add(f"blk.{i}.ffn_down_exps.weight", i, width * h * experts, width,
                "ffn_down_expert" if split_experts else "ffn_down")
            if spec.moe_shared_experts:
                shared = width * spec.moe_shared_experts
                add(f"blk.{i}.ffn_gate_shexp.weight", i, h * shared, h, "ffn_gate")
                add(f"blk.{i}.ffn_up_shexp.weight", i, h * shared, h, "ffn_up")
                add(f"blk.{i}.ffn_down_shexp.weight", i, shared * h, shared, "ffn_down")
        else:
            ffn = int(spec.ffn_size)
            if spec.gated:
                add(f"blk.{i}.ffn_gate.weight", i, h * ffn, h, "ffn_gate")
            add(f"blk.{i}.ffn_up.weight", i, h * ffn, h, "ffn_up")
            add(f"blk.{i}.ffn_down.weight", i, ffn * h, ffn, "ffn_down")
    add("output_norm.weight", None, h, h, "norm")
    if not spec.tied_embeddings:
        add("output.weight", None, vocab * h, h, "output")
    named = sum(t.values for t in out)
    rest = spec.params - named
    if rest > h:  # projections the Llama layout does not name (MLA, vision, biases), spread over the blocks
        per_layer = rest // n
        for i in range(n):
            add(f"blk.{i}.other.weight", i, per_layer, h, "other")
    return out


def gguf_weight_bytes(spec: ModelSpec, file_type: str) -> int:
    """Bytes of all tensors of ``spec`` in llama.cpp ``file_type`` (:func:`gguf_tensors`)."""
    return sum(t.bytes for t in gguf_tensors(spec, file_type))
