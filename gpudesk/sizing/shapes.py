"""Model shapes: from the catalog, from a bare parameter count (shape inferred, flagged as a guess), or from a
local Hugging Face ``config.json`` read offline.

Parameter counting follows the module layout of the Hugging Face implementations (Llama/Mistral/Qwen gated
MLP with ``3*h*ffn``; GPT-2/BERT with ``2*h*ffn`` plus biases; T5 encoder-decoder with cross-attention), so a
known config reproduces the published size: Llama-2-7B 6,738,415,616 parameters, bert-base-cased 108,310,272
(accelerate ``estimate-memory`` docs: 413.18 MB fp32), t5-3b 2,851,598,336 (DeepSpeed memory docs: 2851M).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from gpudesk.catalog.records import ModelShape
from gpudesk.sizing.checks import MAX_PARAMS, positive_int
from gpudesk.sizing.config_validation import check_config_numbers, check_config_shape, read_config_json
from gpudesk.i18n import N_, _, marked
from gpudesk.sizing.errors import ConfigFileError, ShapeError, SizingError
from gpudesk.sizing.quant_ignore import decoder_linear_modules, unquantized_linear_params
from gpudesk.sizing.vision_tower import VisionTower, vision_tower_from_config, vision_tower_from_fields

_REPO_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.\-]{0,95}")

MODEL_KINDS = ("decoder", "encoder", "encoder-decoder", "vision", "diffusion", "cnn")

# (hidden_size, layers) of published dense decoders, used to infer a shape from a parameter count.
_REFERENCE_SHAPES: tuple[tuple[int, int], ...] = (
    (128, 2), (256, 4), (512, 8), (768, 12), (1024, 24), (2048, 24), (2560, 32), (4096, 32), (5120, 40), (6656, 60), (8192, 80),
    (12288, 96), (16384, 126), (20480, 128),
)
_GATED_MODEL_TYPES = frozenset({
    "llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "gemma", "gemma2", "gemma3_text",
    "phi3", "deepseek_v2", "deepseek_v3", "olmo", "olmo2", "internlm2", "yi", "baichuan", "cohere", "granite",
    "llama4", "llama4_text", "gpt_oss", "mistral3", "qwen3_vl", "qwen3_vl_moe", "qwen2_5_vl", "gemma3", "qwen",
})
# Qwen v1 (model_type ``qwen``, ``QWenLMHeadModel``, remote code): its config.json names the sum of the two
# gated-MLP input widths as ``intermediate_size`` (Qwen-7B: 22016) and ``modeling_qwen.py`` ``QWenMLP`` builds
# ``w1`` and ``w2`` as hidden_size x (intermediate_size // 2) and ``c_proj`` as (intermediate_size // 2) x hidden_size,
# output ``w1(x) * silu(w2(x))`` (https://huggingface.co/Qwen/Qwen-7B/blob/main/modeling_qwen.py): a SwiGLU MLP
# 11008 wide, 7.72 B parameters for Qwen-7B (the model card's 7.7 B). The config has no ``hidden_act``.
_HALVED_FFN_MODEL_TYPES = frozenset({"qwen"})
#: ``model_type`` -> 16-bit parameters per token and KV head its int8 KV cache stores beside K and beside V. Qwen v1
#: (``use_cache_quantization``, https://huggingface.co/Qwen/Qwen-7B/blob/main/modeling_qwen.py ``quantize_cache_v``):
#: K and V are permuted to (batch, heads, tokens, head_dim), quantised to uint8 with ``scale = (max - min) / 255``
#: and ``zero = qmin - min / scale`` taken over each head's values of the step and repeated for every token, both in
#: the activation dtype, so ``layer_past`` holds (int8 K, scale, zero) and the same for V: head_dim + 2 x 2 bytes per
#: token, head and K or V (Qwen-7B: 132 of the 256 bytes a bf16 cache needs).
INT8_KV_AFFINE_MODEL_TYPES: dict[str, int] = {"qwen": 2}
# Not in the set: Phi-1/1.5/2 (model_type ``phi``) has a
# two-matrix MLP ``fc1`` -> gelu_new -> ``fc2`` (transformers ``models/phi/modeling_phi.py`` ``PhiMLP``,
# https://github.com/huggingface/transformers/blob/main/src/transformers/models/phi/modeling_phi.py); only ``phi3``
# (Phi-3/3.5/4) fuses gate and up into ``gate_up_proj``.


@dataclass(frozen=True)
class TransformerDims:
    """The figures every transformer shape has (:attr:`ModelSpec.is_transformer`), never None."""

    layers: int
    hidden_size: int
    num_attention_heads: int


@dataclass(frozen=True)
class ModelSpec:
    """The shape of a model, as the memory and time formulas need it.

    Attributes:
        name: display name.
        params: total parameters (int).
        kind: one of :data:`MODEL_KINDS`.
        layers, hidden_size, num_attention_heads, num_kv_heads, ffn_size, vocab_size, context_length: transformer
            shape (None for CNNs or where unknown; formulas that need them raise ShapeError).
        head_dim: attention head width; defaults to hidden_size / num_attention_heads.
        tied_embeddings: input embedding and LM head share one matrix.
        gated_mlp: SwiGLU-style MLP (gate, up, down); None = unknown (a decoder whose ffn is not 4h counts as gated).
        moe_experts, moe_active_experts: mixture-of-experts routing (None for dense models): routed experts per
            MoE layer and how many of them each token uses.
        kv_latent_dim: multi-head latent attention (DeepSeek-V2/V3 MLA): the per-token KV cache is one latent of
            ``kv_lora_rank + qk_rope_head_dim`` values per layer instead of K and V per head (DeepSeek-V2,
            arXiv 2405.04434, section 2.1). None for ordinary attention.
        shape_is_guess: True when the shape was inferred from a parameter count.
        source: where the shape came from (catalog source URL, config path, or "inferred from N params").
        moe_ffn_size: width of one routed expert (``moe_intermediate_size``; None: ``ffn_size``, as in Mixtral).
        moe_shared_experts: always-active shared experts per MoE layer (DeepSeek ``n_shared_experts``, Llama 4: 1).
        moe_shared_ffn_size: width of the shared MLP of an MoE layer when the config names it (Qwen2-MoE
            ``shared_expert_intermediate_size``); None: ``moe_shared_experts x moe_ffn_size`` (DeepSeek's one
            ``shared_experts`` MLP of ``moe_intermediate_size x n_shared_experts``).
        moe_layers: how many layers are MoE (DeepSeek-V3: 58 of 61 after ``first_k_dense_replace`` 3; Llama 4
            Maverick: every second layer); None: all of them.
        decoder_layers: an encoder-decoder's decoder layers (of ``layers``, which counts both stacks); None: unknown.
        attention_kind: "mha", "gqa", "mqa" or "mla" (multi-head latent attention, DeepSeek-V2/V3).
        kv_lora_rank, q_lora_rank, qk_rope_head_dim: MLA ranks (DeepSeek-V2 paper, arXiv 2405.04434 section 2.1):
            the KV cache holds ``kv_lora_rank + qk_rope_head_dim`` values per token per layer.
        qk_nope_head_dim, v_head_dim: MLA per-head widths of the non-RoPE query/key part and of the values (the
            ``kv_b_proj`` up-projection is ``kv_lora_rank x heads * (qk_nope_head_dim + v_head_dim)``).
        sliding_window: tokens a sliding-window layer attends to (gpt-oss 128, Gemma 3 1024), None when global.
        sliding_window_layers: how many of the layers use that window (Gemma 3: 52 of 62, five local per global
            layer; gpt-oss and Gemma 2: every second layer); None with a window set: every layer (Mistral 7B
            v0.1). From the config's ``layer_types`` or ``sliding_window_pattern`` (transformers
            ``configuration_gemma3.py`` / ``configuration_gpt_oss.py``).
        global_kv_heads, global_head_dim: KV heads and head width of the global (full-attention) layers where they
            differ from those of the sliding-window layers, which ``num_kv_heads`` / ``head_dim`` then describe
            (Gemma 4 31B: 16 KV heads x 256 on its 50 sliding layers, 4 x 512 on its 10 global ones; transformers
            ``modeling_gemma4.py`` ``Gemma4TextAttention``: ``global_head_dim`` and, with ``attention_k_eq_v``,
            ``num_global_key_value_heads`` on non-sliding layers). None: the same as the other layers.
        checkpoint_weight_format: the storage format of the published checkpoint (gpt-oss ``mxfp4`` from its
            ``quantization_config``; DeepSeek-V3 ``fp8``), the default for inference; None: 16-bit.
        published_active_params: the model card's active-parameter count where one is published (information;
            :attr:`active_params` is counted from the shape).
        hf_repo: the Hugging Face repository id (``meta-llama/Llama-3.1-8B``) of the config the shape comes from.
        unquantized_linear_params: attention/MLP Linear parameters the quantised checkpoint keeps at 16 bits (its
            ``quantization_config`` ignore list, :mod:`gpudesk.sizing.quant_ignore`); 0 when every Linear is
            quantised or the checkpoint is 16-bit.
        fused_qkv: the architecture stores Q, K and V as one projection, which llama.cpp's converter writes as one
            ``attn_qkv`` GGUF tensor (GPT-NeoX, Phi-3/4, Falcon, BLOOM, MPT, GPT-2; :data:`FUSED_QKV_MODEL_TYPES`).
        expert_bias: the routed experts' linears carry a bias per expert (gpt-oss: ``GptOssExperts``
            ``gate_up_proj_bias`` / ``down_proj_bias``, transformers ``modeling_gpt_oss.py``; :data:`EXPERT_BIAS_MODEL_TYPES`).
        clamped_glu: the gated activation clamps its inputs (the config's ``swiglu_limit``, gpt-oss 7.0).
        hf_dense_routed_experts: Hugging Face transformers' modeling of the architecture runs every token through
            every routed expert, the router's score zeroing the unselected ones (Llama 4:
            :data:`HF_DENSE_ROUTED_MODEL_TYPES`); a trainer on those modules computes all experts' GEMMs.
        layer_qk_norm: the attention's QK RMSNorm normalises each token's whole q and k projections (every head
            at once, one weight per element: the config's ``qk_norm_type`` ``per_layer``, MiniMax-M2 / M2.5 / M2.7;
            :data:`LAYER_QK_NORM_FAMILIES`), not each head apart; under tensor parallelism a rank holds only its
            heads, so the engines sum the squares across the ranks (:mod:`gpudesk.sizing.serve_qk_norm`).
        vision_tower: a multimodal checkpoint's vision encoder (:mod:`gpudesk.sizing.vision_tower`), loaded by
            serving engines besides the language model this shape describes; None for text-only models.
    """

    name: str
    params: int
    kind: str = "decoder"
    layers: int | None = None
    hidden_size: int | None = None
    num_attention_heads: int | None = None
    num_kv_heads: int | None = None
    ffn_size: int | None = None
    vocab_size: int | None = None
    context_length: int | None = None
    head_dim: int | None = None
    tied_embeddings: bool = False
    gated_mlp: bool | None = None
    moe_experts: int | None = None
    moe_active_experts: int | None = None
    kv_latent_dim: int | None = None
    shape_is_guess: bool = False
    source: str = ""
    moe_ffn_size: int | None = None
    moe_shared_experts: int = 0
    moe_layers: int | None = None
    moe_shared_ffn_size: int | None = None
    decoder_layers: int | None = None
    attention_kind: str | None = None
    kv_lora_rank: int | None = None
    q_lora_rank: int | None = None
    qk_rope_head_dim: int | None = None
    qk_nope_head_dim: int | None = None
    v_head_dim: int | None = None
    sliding_window: int | None = None
    published_active_params: int | None = None
    hf_repo: str | None = None
    sliding_window_layers: int | None = None
    checkpoint_weight_format: str | None = None
    global_kv_heads: int | None = None
    global_head_dim: int | None = None
    unquantized_linear_params: int = 0
    fused_qkv: bool = False
    vision_tower: VisionTower | None = None
    expert_bias: bool = False
    clamped_glu: bool = False
    layer_qk_norm: bool = False
    hf_dense_routed_experts: bool = False
    #: Positions of each distinct rotary cos/sin table the engines cache, when not the one table of
    #: ``context_length`` (linear RoPE scaling, Gemma 3's local RoPE: :func:`rope_table_positions_from_config`).
    rope_table_positions: tuple[int, ...] = ()
    #: 16-bit quantisation parameters the architecture's own int8 KV cache keeps per token and KV head beside the
    #: int8 values of K and of V (:data:`INT8_KV_AFFINE_MODEL_TYPES`); 0 where no such layout is known.
    kv_int8_affine_params: int = 0
    #: The config's ``model_type`` (``chatglm``, ``qwen``, ``internlm2``) where the shape comes from a config, which
    #: names the architecture's own module names (LoRA targets, :mod:`gpudesk.sizing.lora_modules`); None otherwise.
    model_type: str | None = None
    #: The config's ``architectures[0]`` (``Qwen3MoeForCausalLM``), from the config file or, for a catalog model, its
    #: family (:data:`FAMILY_MOE_ARCHITECTURES`); engines pick kernels by it (:mod:`gpudesk.sizing.serve_allreduce_fusion`).
    hf_architecture: str | None = None

    @property
    def is_transformer(self) -> bool:
        """True when layers, hidden size and heads are known."""
        return bool(self.layers and self.hidden_size and self.num_attention_heads)

    @property
    def transformer_dims(self) -> TransformerDims:
        """Layers, hidden size and attention heads of a transformer shape.

        Raises:
            ShapeError: one of them is unknown (the shape is not :attr:`is_transformer`).
        """
        if not (self.layers and self.hidden_size and self.num_attention_heads):
            raise ShapeError("model", _("{model}: layers, hidden size or attention heads are unknown.").format(
                model=self.name))
        return TransformerDims(self.layers, self.hidden_size, self.num_attention_heads)

    @property
    def gated(self) -> bool:
        """Whether the MLP has three matrices (SwiGLU), from ``gated_mlp`` or the ffn/hidden ratio of a decoder."""
        if self.gated_mlp is not None:
            return self.gated_mlp
        return bool(self.kind == "decoder" and self.ffn_size and self.hidden_size and self.ffn_size != 4 * self.hidden_size)

    @property
    def head_dim_resolved(self) -> int:
        """Attention head width (``head_dim`` or ``hidden_size // num_attention_heads``).

        Raises:
            ShapeError: the shape lacks hidden size or heads.
        """
        if self.head_dim:
            return self.head_dim
        if not (self.hidden_size and self.num_attention_heads):
            raise ShapeError("model", _("{model}: hidden size and attention heads are unknown.").format(model=self.name))
        return self.hidden_size // self.num_attention_heads

    @property
    def kv_heads_resolved(self) -> int:
        """KV heads (grouped-query attention); equal to attention heads for multi-head attention."""
        if self.num_kv_heads:
            return self.num_kv_heads
        if not self.num_attention_heads:
            raise ShapeError("model", _("{model}: attention heads are unknown.").format(model=self.name))
        return self.num_attention_heads

    @property
    def expert_params(self) -> int:
        """Parameters of one routed expert (gate, up, down of width ``moe_ffn_size``, else ``ffn_size``); 0 for
        dense models or an unknown shape.

        Three matrices when the MLP is gated; a separate expert width without a known ``gated_mlp`` (catalog rows)
        also counts as gated (the fine-grained experts of DeepSeek / Qwen-MoE are SwiGLU). A config that states a
        plain MLP (``gated_mlp`` False, e.g. a GELU Megatron GPT MoE with ``moe_intermediate_size`` unlike
        ``intermediate_size``) gets two, as :func:`_decoder_params` counts its parameters."""
        width = self.moe_ffn_size or self.ffn_size
        if not (self.moe_experts and self.hidden_size and width):
            return 0
        gated = self.gated_mlp if self.gated_mlp is not None else (self.gated or bool(self.moe_ffn_size))
        return (3 if gated else 2) * self.hidden_size * width

    @property
    def active_params(self) -> int:
        """Parameters touched per token: all of them for dense models; for MoE, everything but the routed experts
        a token skips: ``params - moe_layers x (experts - active) x expert_params`` (shared experts, attention,
        dense layers, embeddings and LM head all count). DeepSeek-V3: 671.0 B total -> 37.6 B active (the model
        card's 37 B); Qwen3-30B-A3B: 30.5 B -> 3.35 B."""
        if not (self.moe_experts and self.moe_active_experts and self.layers):
            return self.params
        skipped = self.moe_experts - self.moe_active_experts
        moe_layers = self.moe_layers if self.moe_layers is not None else self.layers
        return max(1, self.params - moe_layers * skipped * self.expert_params)

    @property
    def kv_cache_elements_per_token(self) -> int:
        """Values cached per token over all layers: ``layers x (kv_lora_rank + qk_rope_head_dim)`` for MLA (one
        compressed latent shared by all heads, DeepSeek-V2 paper section 2.1.3), else ``2 x layers x kv_heads x
        head_dim`` (keys and values), the global layers with their own heads and width where the model gives them
        (:attr:`global_kv_heads`). Sliding-window layers are not capped here.

        Raises:
            ShapeError: layers or heads unknown.
        """
        if not self.layers:
            raise ShapeError("model", _("{model}: the layer count is unknown.").format(model=self.name))
        if self.attention_kind == "mla" and self.kv_lora_rank:
            return self.layers * (self.kv_lora_rank + (self.qk_rope_head_dim or 0))
        local = self.local_attention_layers
        return 2 * (local * self.kv_heads_resolved * self.head_dim_resolved
                    + self.global_attention_layers * self.global_kv_heads_resolved * self.global_head_dim_resolved)

    @property
    def local_attention_layers(self) -> int:
        """Layers whose KV cache is capped by ``sliding_window`` (0 without a window)."""
        if not (self.sliding_window and self.layers):
            return 0
        if self.sliding_window_layers is None:
            return self.layers
        return min(self.layers, self.sliding_window_layers)

    @property
    def global_attention_layers(self) -> int:
        """Layers that attend to the whole context (all layers less :attr:`local_attention_layers`)."""
        return max(0, (self.layers or 0) - self.local_attention_layers)

    @property
    def global_kv_heads_resolved(self) -> int:
        """KV heads of a global layer: ``global_kv_heads`` where given, else :attr:`kv_heads_resolved`."""
        return self.global_kv_heads or self.kv_heads_resolved

    @property
    def global_head_dim_resolved(self) -> int:
        """Head width of a global layer: ``global_head_dim`` where given, else :attr:`head_dim_resolved`."""
        return self.global_head_dim or self.head_dim_resolved

    @property
    def embedding_params(self) -> int:
        """Input embedding (+ untied LM head) parameters; 0 when the vocabulary is unknown."""
        if not (self.vocab_size and self.hidden_size):
            return 0
        return self.vocab_size * self.hidden_size * (1 if self.tied_embeddings else 2)

    @property
    def largest_layer_params(self) -> int:
        """Parameters of the biggest single module: the embedding / LM head or one linear layer.

        DeepSpeed's ZeRO-3 estimator gathers this much at once (``4 * largest_layer_params`` bytes); for t5-3b
        it is the 32128 x 1024 shared embedding, "32M" in DeepSpeed's memory docs.
        """
        sizes = []
        h = self.hidden_size
        if self.vocab_size and h:
            sizes.append(self.vocab_size * h)
        if h and self.num_attention_heads:
            sizes.append(h * self.num_attention_heads * self.head_dim_resolved)
        if h and self.ffn_size:
            sizes.append(h * self.ffn_size)
        if not sizes:
            return self.params
        return max(sizes)


@dataclass(frozen=True)
class _Mla:
    """Multi-head latent attention sizes (DeepSeek-V2/V3 config keys)."""

    kv_lora_rank: int
    q_lora_rank: int | None
    qk_rope_head_dim: int
    qk_nope_head_dim: int
    v_head_dim: int


@dataclass(frozen=True)
class _Moe:
    """Mixture-of-experts layout: routed experts of width ``ffn``, shared experts, how many layers are MoE."""

    experts: int
    ffn: int
    shared: int = 0
    shared_ffn: int | None = None
    moe_layers: int | None = None


def _mla_params(h: int, heads: int, mla: _Mla) -> int:
    """MLA projections (DeepSeek-V2 paper, arXiv 2405.04434, section 2.1; HF ``DeepseekV3Attention``): queries
    through an optional low-rank ``q_lora_rank`` (with its RMSNorm), keys/values through the ``kv_lora_rank``
    latent plus the shared RoPE key, then up-projections and the output projection."""
    qk_head = mla.qk_nope_head_dim + mla.qk_rope_head_dim
    if mla.q_lora_rank:
        q = h * mla.q_lora_rank + mla.q_lora_rank + mla.q_lora_rank * heads * qk_head
    else:
        q = h * heads * qk_head
    kv = h * (mla.kv_lora_rank + mla.qk_rope_head_dim) + mla.kv_lora_rank
    kv += mla.kv_lora_rank * heads * (mla.qk_nope_head_dim + mla.v_head_dim)
    return q + kv + heads * mla.v_head_dim * h


def _decoder_params(h: int, layers: int, ffn: int, vocab: int, heads: int, kv_heads: int, head_dim: int,
                    gated: bool, tied: bool, experts: int | None = None, *, moe: _Moe | None = None,
                    mla: _Mla | None = None) -> int:
    """Parameter count of a pre-norm decoder without biases (Llama layout).

    ``experts`` alone: every layer's MLP (width ``ffn``) is replicated per expert (Mixtral). ``moe``: routed
    experts of width ``moe.ffn`` plus shared experts and a router on ``moe.moe_layers`` layers, the other layers
    dense with width ``ffn`` (DeepSeek-V3 ``first_k_dense_replace``, Llama 4 interleaving). ``mla``: latent
    attention instead of grouped-query attention.
    """
    attn = _mla_params(h, heads, mla) if mla else h * heads * head_dim + 2 * h * kv_heads * head_dim + heads * head_dim * h
    per_matrix = 3 if gated else 2
    dense_mlp = per_matrix * h * ffn
    if moe is None and experts:
        moe = _Moe(experts=experts, ffn=ffn)
    if moe is None:
        mlp_total = layers * dense_mlp
    else:
        n_moe = layers if moe.moe_layers is None else moe.moe_layers
        moe_mlp = (moe.experts * per_matrix * h * moe.ffn + moe.shared * per_matrix * h * (moe.shared_ffn or moe.ffn)
                   + h * moe.experts)  # routed experts + shared experts + router
        mlp_total = n_moe * moe_mlp + (layers - n_moe) * dense_mlp
    return vocab * h * (1 if tied else 2) + layers * (attn + 2 * h) + mlp_total + h


def spec_from_params(params: float, name: str | None = None) -> ModelSpec:
    """A decoder shape inferred from a parameter count, flagged ``shape_is_guess``.

    Picks the published (hidden, layers) pair whose Llama-style size (``12*L*h^2`` + embeddings, vocab 32000 or
    a tenth of the parameters for small models,
    gated MLP ffn = 8h/3, multi-head attention) is nearest, then sets the layer count to match ``params``.
    The KV cache of a guessed shape assumes multi-head attention (the larger, safer figure).

    Raises:
        ShapeError: params not a positive number or above 100 T.
    """
    n = parse_param_count(params)
    best: tuple[float, int, int, int] | None = None
    for h, layers in _REFERENCE_SHAPES:
        # Small models keep the embedding to about a tenth of the parameters (a 32000-token vocabulary would
        # otherwise exceed the whole count below ~50 M parameters).
        vocab = min(32000, max(256, int(0.1 * n / h)))
        per_layer = 12 * h * h
        fitted = max(1, round((n - 2 * vocab * h) / per_layer)) if n > 2 * vocab * h else 1
        size = 2 * vocab * h + fitted * per_layer
        score = abs(math.log(size / n)) + 0.05 * abs(math.log(fitted / layers))
        if best is None or score < best[0]:
            best = (score, h, fitted, vocab)
    assert best is not None, "_REFERENCE_SHAPES is not empty"
    _score, h, layers, vocab = best
    heads = max(1, h // 128) if h >= 1024 else max(1, h // 64)
    head_dim = h // heads
    ffn = int(round(8 * h / 3 / 256)) * 256 or 4 * h
    return ModelSpec(
        name=name or _("{count}-parameter model").format(count=_human_count(n)),
        params=n, kind="decoder", layers=layers, hidden_size=h, num_attention_heads=heads, num_kv_heads=heads,
        ffn_size=ffn, vocab_size=vocab, context_length=4096, head_dim=head_dim, tied_embeddings=False,
        gated_mlp=True, shape_is_guess=True, source=_("inferred from {params} parameters (Llama-style layout; a guess)").format(params=n),
    )


def mla_kv_view(kv_lora_rank: int, qk_rope_head_dim: int) -> tuple[int, int]:
    """(KV heads, head width) under which the key/value formulas see MLA's cache exactly.

    At inference MLA is computed in its "absorbed" form: every query head attends to one shared latent of
    ``kv_lora_rank`` values plus one shared RoPE key of ``qk_rope_head_dim`` (DeepSeek-V2 paper, arXiv
    2405.04434, section 2.1.3 and appendix C), i.e. multi-query attention over a 576-wide cache entry for
    DeepSeek-V3. One KV head of width (512 + 64) / 2 = 288 gives ``2 x kv_heads x head_dim`` = 576 cached
    values per token and layer, the figure vLLM/SGLang allocate for MLA.
    """
    return 1, (kv_lora_rank + qk_rope_head_dim) // 2


#: Hugging Face ``model_type`` values whose attention is one fused QKV projection (``attn_qkv`` in GGUF:
#: ggml-org/llama.cpp ``convert_hf_to_gguf.py`` / ``gguf-py/gguf/tensor_mapping.py`` MODEL_TENSOR.ATTN_QKV).
FUSED_QKV_MODEL_TYPES = frozenset({"gpt_neox", "phi3", "falcon", "bloom", "mpt", "gpt2", "gpt_bigcode"})
#: Catalog families whose checkpoints are of those types (Phi-3 and Phi-4 are ``Phi3ForCausalLM``).
FUSED_QKV_FAMILIES = frozenset({"Phi-3", "Phi-4"})
#: ``model_type`` values whose routed experts have biases (transformers ``GptOssExperts``: ``gate_up_proj_bias``,
#: ``down_proj_bias``); the config has no key for it, the architecture fixes it.
EXPERT_BIAS_MODEL_TYPES = frozenset({"gpt_oss"})
#: Catalog families of that architecture; their configs also set ``swiglu_limit`` (gpt-oss 7.0).
EXPERT_BIAS_FAMILIES = frozenset({"gpt-oss"})
CLAMPED_GLU_FAMILIES = frozenset({"gpt-oss"})
#: ``model_type`` values whose transformers MoE block sends every token to every routed expert: Llama 4's
#: ``Llama4TextMoe.forward`` repeats the hidden states once per expert (``routed_in = hidden_states.repeat(
#: router_scores.shape[1], 1)``), multiplies them by the router scores (zero off the top-k) and runs
#: ``Llama4TextExperts`` (a ``torch.bmm`` over the (experts, tokens, hidden) view) on all of them
#: (transformers src/transformers/models/llama4/modeling_llama4.py, v4.51.0 to v4.56; axolotl's linearized experts,
#: src/axolotl/monkeypatch/models/llama4/modeling.py at 9f986f5, keep that input and loop over the 16 experts with
#: one ``nn.Linear`` each). Megatron-Core and torchtitan route the tokens sparsely.
HF_DENSE_ROUTED_MODEL_TYPES = frozenset({"llama4", "llama4_text"})
#: Catalog families of that architecture.
HF_DENSE_ROUTED_FAMILIES = frozenset({"Llama 4"})
#: Catalog families whose QK RMSNorm spans every head of the layer (``qk_norm_type`` ``per_layer`` in their configs:
#: MiniMaxAI/MiniMax-M2 .. M2.7 config.json; transformers ``modeling_minimax_m2.py`` normalises ``q_proj`` /
#: ``k_proj``'s whole output before splitting it into heads).
LAYER_QK_NORM_FAMILIES = frozenset({"MiniMax M2"})
#: Catalog family -> the ``architectures[0]`` of its MoE checkpoints' config.json (deepseek-ai/DeepSeek-V3,
#: openai/gpt-oss-120b, Qwen/Qwen3-235B-A22B config.json).
FAMILY_MOE_ARCHITECTURES = {"DeepSeek V3": "DeepseekV3ForCausalLM", "gpt-oss": "GptOssForCausalLM",
                            "Qwen3": "Qwen3MoeForCausalLM"}


def _first_architecture(cfg: dict[str, Any]) -> str | None:
    """The config's first ``architectures`` entry, or None."""
    arch = cfg.get("architectures")
    return arch[0] if isinstance(arch, list) and arch and isinstance(arch[0], str) else None


def spec_from_catalog(shape: ModelShape) -> ModelSpec:
    """Convert a catalog ``ModelShape`` (gpudesk.catalog) to a ModelSpec (fields per the catalog contract).

    MLA rows keep their config's heads in the catalog; the spec takes the absorbed-MLA view (:func:`mla_kv_view`).
    A multimodal row's ``vision_*`` columns (its config's ``vision_config``) give the vision tower and its
    ``rope_linear_factor`` / ``rope_local_base_freq`` the rotary tables, as the config file would
    (:func:`_catalog_vision_tower`, :func:`rope_table_positions_from_config`).
    """
    kv_heads, head_dim = shape.num_kv_heads, getattr(shape, "head_dim", None)
    kv_lora_rank = getattr(shape, "kv_lora_rank", None)
    if getattr(shape, "attention_kind", None) == "mla" and kv_lora_rank:
        kv_heads, head_dim = mla_kv_view(kv_lora_rank, shape.qk_rope_head_dim or 0)
    return ModelSpec(
        name=shape.name, params=int(shape.params), kind=shape.kind or "decoder", layers=shape.layers,
        hidden_size=shape.hidden_size, num_attention_heads=shape.num_attention_heads,
        num_kv_heads=kv_heads, ffn_size=shape.ffn_size, vocab_size=shape.vocab_size,
        context_length=shape.context_length, head_dim=head_dim,
        tied_embeddings=bool(shape.tied_embeddings),
        moe_experts=shape.moe_experts, moe_active_experts=shape.moe_active_experts,
        shape_is_guess=False, source=shape.source_url or f"catalog model {shape.id}",
        moe_ffn_size=getattr(shape, "moe_ffn_size", None), moe_shared_experts=getattr(shape, "moe_shared_experts", None) or 0,
        moe_layers=getattr(shape, "moe_layers", None), attention_kind=getattr(shape, "attention_kind", None),
        kv_lora_rank=getattr(shape, "kv_lora_rank", None), q_lora_rank=getattr(shape, "q_lora_rank", None),
        qk_rope_head_dim=getattr(shape, "qk_rope_head_dim", None), sliding_window=getattr(shape, "sliding_window", None),
        published_active_params=getattr(shape, "active_params", None), hf_repo=getattr(shape, "hf_repo", None),
        sliding_window_layers=getattr(shape, "sliding_window_layers", None),
        checkpoint_weight_format=getattr(shape, "checkpoint_weight_format", None),
        global_kv_heads=getattr(shape, "global_kv_heads", None), global_head_dim=getattr(shape, "global_head_dim", None),
        fused_qkv=getattr(shape, "family", None) in FUSED_QKV_FAMILIES,
        expert_bias=bool(shape.moe_experts) and getattr(shape, "family", None) in EXPERT_BIAS_FAMILIES,
        clamped_glu=getattr(shape, "family", None) in CLAMPED_GLU_FAMILIES,
        hf_dense_routed_experts=bool(shape.moe_experts) and getattr(shape, "family", None) in HF_DENSE_ROUTED_FAMILIES,
        layer_qk_norm=getattr(shape, "family", None) in LAYER_QK_NORM_FAMILIES,
        hf_architecture=FAMILY_MOE_ARCHITECTURES.get(getattr(shape, "family", None) or "") if shape.moe_experts else None,
        vision_tower=_catalog_vision_tower(shape),
        rope_table_positions=rope_table_positions_from_config(_catalog_rope_config(shape), shape.context_length),
    )


def _catalog_vision_tower(shape: ModelShape) -> VisionTower | None:
    """The vision tower of a catalog row with ``vision_layers`` and ``vision_hidden_size``; None for text models."""
    layers, hidden = getattr(shape, "vision_layers", None), getattr(shape, "vision_hidden_size", None)
    if not (layers and hidden):
        return None
    return vision_tower_from_fields(
        getattr(shape, "vision_model_type", None) or "", int(hidden), int(layers),
        int(getattr(shape, "vision_intermediate_size", None) or 4 * hidden),
        int(getattr(shape, "vision_patch_size", None) or 0), int(getattr(shape, "vision_image_size", None) or 0),
        int(shape.hidden_size or 0), spatial_merge_size=int(getattr(shape, "vision_spatial_merge_size", None) or 0),
        tokens_per_image=int(getattr(shape, "vision_tokens_per_image", None) or 0),
        output_dim=int(getattr(shape, "vision_output_dim", None) or 0),
        pixel_shuffle_ratio=float(getattr(shape, "vision_pixel_shuffle_ratio", None) or 0.0),
        position_embeddings=int(getattr(shape, "vision_position_embeddings", None) or 0),
        deepstack_layers=int(getattr(shape, "vision_deepstack_layers", None) or 0),
        temporal_patch_size=int(getattr(shape, "vision_temporal_patch_size", None) or 0))


def _catalog_rope_config(shape: ModelShape) -> dict[str, Any]:
    """The config keys :func:`rope_table_positions_from_config` reads, from a catalog row's rope columns."""
    cfg: dict[str, Any] = {}
    factor = getattr(shape, "rope_linear_factor", None)
    if factor:
        cfg["rope_scaling"] = {"rope_type": "linear", "factor": float(factor)}
    local = getattr(shape, "rope_local_base_freq", None)
    if local:
        cfg["rope_local_base_freq"] = float(local)
    return cfg


def _first(cfg: dict[str, Any], *keys: str, default: Any = None) -> Any:
    for key in keys:
        value = cfg.get(key)
        if value is not None:
            return value
    return default


#: Config keys that bound a decoder's context, as vLLM reads them (``vllm/config`` ``_get_and_verify_max_len``
#: ``possible_keys``, https://github.com/vllm-project/vllm/blob/main/vllm/config/model.py).
_CONTEXT_KEYS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "max_sequence_length",
                 "max_seq_length", "seq_len")


def _context_length(cfg: dict[str, Any]) -> int | None:
    """The context a serving engine derives from a config: the smallest of :data:`_CONTEXT_KEYS` present (vLLM
    "Choose the smallest max_length from the possible keys"; SGLang ``get_context_length`` reads ``seq_length``
    before ``max_position_embeddings``). Qwen v1 names 32768 positions for its dynamic-NTK rotary but was trained
    on ``seq_length`` 8192, so both engines default to 8192; a config with one key keeps it."""
    found = [int(v) for v in (cfg.get(k) for k in _CONTEXT_KEYS)
             if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0]
    return min(found) if found else None


def _config_model_name(cfg: dict[str, Any], path: Path) -> str:
    """A display name for a model read from ``path``: the config's ``_name_or_path`` (Hugging Face writes the hub
    id there), else its first ``architectures`` entry or ``model_type`` with the file it came from, e.g.
    ``"LlamaForCausalLM (llama-2-7b-hf.config.json)"``. The parent folder alone is not a model name."""
    named = cfg.get("_name_or_path")
    if isinstance(named, str) and named.strip():
        return named.strip()
    arch = cfg.get("architectures")
    kind = arch[0] if isinstance(arch, list) and arch and isinstance(arch[0], str) else cfg.get("model_type")
    where = path.name if path.name != "config.json" or not path.parent.name else f"{path.parent.name}/{path.name}"
    return f"{kind} ({where})" if isinstance(kind, str) and kind else where


def spec_from_hf_config(path: str | Path) -> ModelSpec:
    """Read a local Hugging Face ``config.json`` (no network) and count its parameters.

    Understands decoder configs (Llama, Mistral, Qwen, Gemma, GPT-2, GPT-NeoX, Falcon-style key names,
    Mixtral/Qwen-MoE experts), BERT-style encoders and T5-style encoder-decoders; multimodal configs are read
    through their ``text_config``.

    Raises:
        ConfigFileError: the file is missing/unreadable, not a JSON object, or lacks hidden size / layers /
            heads / vocabulary; the message names the missing key.
    """
    p = Path(path)
    cfg = read_config_json(p)
    cfg_top = cfg
    checkpoint_format = checkpoint_weight_format(cfg)
    if isinstance(cfg.get("text_config"), dict) and "hidden_size" not in cfg:
        merged = dict(cfg["text_config"])
        merged.setdefault("model_type", cfg["text_config"].get("model_type", cfg.get("model_type")))
        cfg = merged
    check_config_numbers(cfg, p)
    check_config_shape(cfg, p)
    name = _config_model_name(cfg, p)
    model_type = str(cfg.get("model_type", "")).lower()
    try:
        if model_type in ("t5", "mt5", "umt5", "longt5") or "d_kv" in cfg:
            spec = _t5_spec(cfg, name, p)
        elif "encoder_layers" in cfg and "decoder_layers" in cfg:
            spec = _bart_spec(cfg, name, p)
        elif model_type in ("bert", "roberta", "xlm-roberta", "electra", "deberta", "distilbert") or "type_vocab_size" in cfg:
            spec = _bert_spec(cfg, name, p)
        else:
            spec = _decoder_spec(cfg, name, p, model_type)
    except SizingError as exc:
        raise ConfigFileError("config", _("{path}: {reason}").format(path=p, reason=exc.message)) from exc
    tower = vision_tower_from_config(cfg_top)
    if tower is not None:
        spec = replace(spec, vision_tower=tower)
    rope_tables = rope_table_positions_from_config(cfg, spec.context_length)
    if rope_tables:
        spec = replace(spec, rope_table_positions=rope_tables)
    if spec.params > MAX_PARAMS:
        raise ConfigFileError("config", _("{path} describes more than 100 T parameters; check its sizes (hidden_size, "
                                          "num_hidden_layers, vocab_size, intermediate_size).").format(path=p))
    if not checkpoint_format:
        return spec
    return replace(spec, checkpoint_weight_format=checkpoint_format,
                   unquantized_linear_params=_unquantized_params(cfg_top, spec))


def rope_table_positions_from_config(cfg: dict[str, Any], context_length: int | None) -> tuple[int, ...]:
    """The positions of each rotary table a config makes vLLM/SGLang cache, or ``()`` for the usual one table of
    ``max_position_embeddings`` rows. Linear scaling (``rope_scaling`` ``{"rope_type"|"type": "linear", "factor":
    f}``) caches ``max_position x f`` rows (vLLM ``rotary_embedding/linear_scaling_rope.py``
    ``_compute_cos_sin_cache``: "the maximum length after applying the rope scaling is max_position_embeddings x
    scaling_factor", read in the 0.19.0 wheel); Gemma 3's sliding layers use an unscaled table of their own
    (``rope_local_base_freq``; ``models/gemma3.py``: "Local attention. Override the values in config.json")."""
    if not context_length:
        return ()
    scaling = cfg.get("rope_scaling")
    factor = 1.0
    if isinstance(scaling, dict) and str(scaling.get("rope_type", scaling.get("type", ""))).lower() == "linear":
        try:
            factor = max(1.0, float(scaling.get("factor", 1.0)))
        except (TypeError, ValueError):
            factor = 1.0
    local = "rope_local_base_freq" in cfg
    if factor == 1.0 and not local:
        return ()
    tables = (int(context_length * factor),)
    return tables + (context_length,) if local else tables


def _unquantized_params(cfg: dict[str, Any], spec: ModelSpec) -> int:
    """Linear parameters the checkpoint's ignore list keeps at 16 bits (dense decoders; 0 otherwise)."""
    quant = cfg.get("quantization_config")
    if not isinstance(quant, dict) or spec.kind != "decoder" or spec.moe_experts or spec.kv_latent_dim:
        return 0
    if not (spec.layers and spec.hidden_size and spec.num_attention_heads and spec.ffn_size):
        return 0
    modules = decoder_linear_modules(spec.layers, spec.hidden_size, spec.num_attention_heads,
                                     spec.kv_heads_resolved, spec.head_dim_resolved, spec.ffn_size,
                                     bool(spec.gated_mlp))
    return unquantized_linear_params(quant, modules)


# quantization_config.quant_method -> gpudesk weight format (transformers ``utils/quantization_config.py``
# QuantizationMethod names; gpt-oss ships "mxfp4", DeepSeek-V3 and Qwen3-FP8 ship "fp8").
_QUANT_METHOD_FORMATS = {"mxfp4": "mxfp4", "fp8": "fp8", "fbgemm_fp8": "fp8"}


def checkpoint_weight_format(cfg: dict[str, Any]) -> str | None:
    """The weight format a config's ``quantization_config`` declares (``mxfp4``, ``fp8``, ``int4-gN`` for GPTQ /
    AWQ 4-bit with its ``group_size``), or None for a 16-bit checkpoint or a method gpudesk does not size."""
    quant = cfg.get("quantization_config")
    if not isinstance(quant, dict):
        return None
    method = str(quant.get("quant_method", "")).lower()
    if method in _QUANT_METHOD_FORMATS:
        return _QUANT_METHOD_FORMATS[method]
    if method in ("gptq", "awq") and quant.get("bits") == 4:
        group = quant.get("group_size")
        return f"int4-g{group}" if isinstance(group, int) and group > 0 else "int4-g128"
    return None


def sliding_window_layout(cfg: dict[str, Any], model_type: str, layers: int) -> tuple[int | None, int | None]:
    """(window tokens, layers that use it) from a decoder config; (None, None) when attention is global.

    Sources, in order: ``layer_types`` (transformers >= 4.53 writes it for Gemma 2/3, gpt-oss, Qwen 2/3: the
    count of "sliding_attention"); ``sliding_window_pattern`` (Gemma 3: every N-th layer global, the rest local;
    ``configuration_gemma3.py``); Gemma 2 alternates local and global (``configuration_gemma2.py``); otherwise a
    window applies to every layer (Mistral 7B v0.1) unless ``use_sliding_window`` is false (Qwen2 ships a
    ``sliding_window`` it does not use).
    """
    window = cfg.get("sliding_window")
    if not isinstance(window, int) or isinstance(window, bool) or window <= 0 or cfg.get("use_sliding_window") is False:
        return None, None
    types = cfg.get("layer_types")
    if isinstance(types, list) and types:
        local = sum(1 for t in types[:layers] if t == "sliding_attention")
        return (window, local) if local else (None, None)
    pattern = cfg.get("sliding_window_pattern")
    if isinstance(pattern, int) and not isinstance(pattern, bool) and pattern > 0:
        return window, layers - layers // pattern
    if model_type == "gemma2":
        return window, layers - layers // 2
    return window, None


def global_attention_layout(cfg: dict[str, Any], kv_heads: int, head_dim: int) -> tuple[int | None, int | None]:
    """(KV heads, head width) of the global layers where the config gives them apart from the sliding ones, else
    None for each: ``global_head_dim``, and ``num_global_key_value_heads`` when ``attention_k_eq_v`` is set
    (transformers ``modeling_gemma4.py`` ``Gemma4TextAttention``: a non-sliding layer takes ``global_head_dim`` and,
    with ``attention_k_eq_v``, ``num_global_key_value_heads``; SGLang ``models/gemma4_causal.py`` and vLLM size the
    global layers' cache from the same two keys). Keys and values stay two cached tensors under
    ``attention_k_eq_v``: the keys pass ``k_norm`` and RoPE, the values only the unscaled ``v_norm``."""
    dim = cfg.get("global_head_dim")
    heads = cfg.get("num_global_key_value_heads") if cfg.get("attention_k_eq_v") is True else None
    global_dim = positive_int("global_head_dim", dim) if dim is not None else None
    global_kv = positive_int("num_global_key_value_heads", heads) if heads is not None else None
    return (global_kv if global_kv != kv_heads else None), (global_dim if global_dim != head_dim else None)


def hf_hub_cache_dirs(env: dict[str, str] | None = None) -> list[Path]:
    """Where the Hugging Face hub keeps downloaded models, in huggingface_hub's order: ``HF_HUB_CACHE``, else
    ``HF_HOME``/hub, else ``XDG_CACHE_HOME``/huggingface/hub, else ~/.cache/huggingface/hub (huggingface_hub
    ``constants.py``; https://huggingface.co/docs/huggingface_hub/guides/manage-cache)."""
    env = dict(os.environ) if env is None else env
    if env.get("HF_HUB_CACHE"):
        return [Path(env["HF_HUB_CACHE"]).expanduser()]
    if env.get("HF_HOME"):
        return [Path(env["HF_HOME"]).expanduser() / "hub"]
    base = Path(env["XDG_CACHE_HOME"]).expanduser() if env.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return [base / "huggingface" / "hub"]


def find_cached_config(repo_id: str, env: dict[str, str] | None = None) -> Path:
    """The ``config.json`` of ``repo_id`` in the local Hugging Face cache (offline: no network, ever).

    The cache layout is ``models--{owner}--{name}/snapshots/{revision}/config.json`` with ``refs/main`` naming
    the revision last downloaded; without that ref the newest snapshot holding a config.json is used.

    Raises:
        ConfigFileError: not a repo id, or not in the cache (the message names the folders looked in).
    """
    if not is_repo_id(repo_id):
        raise ConfigFileError("model", _("{repo_id!r} is not a Hugging Face repo id (owner/name, e.g. "
                                         "meta-llama/Llama-3.1-8B).").format(repo_id=repo_id))
    owner, name = repo_id.split("/")
    looked = []
    for root in hf_hub_cache_dirs(env):
        folder = root / f"models--{owner}--{name}"
        looked.append(str(folder))
        try:
            ref = (folder / "refs" / "main").read_text(encoding="utf-8").strip()
        except OSError:
            ref = ""
        if ref and (folder / "snapshots" / ref / "config.json").is_file():
            return folder / "snapshots" / ref / "config.json"
        try:
            found = [p for p in (folder / "snapshots").glob("*/config.json") if p.is_file()]
        except OSError:
            found = []
        if found:
            return max(found, key=lambda p: p.stat().st_mtime)
    raise ConfigFileError("model", _("{repo_id} is not in the local Hugging Face cache (looked in {folders}); download "
                                     "its config once (huggingface-cli download {repo_id} config.json) or give the "
                                     "path of its config.json.").format(repo_id=repo_id, folders=", ".join(looked)))


def spec_from_hf_repo(repo_id: str, env: dict[str, str] | None = None) -> ModelSpec:
    """The shape of ``repo_id`` from its config.json in the local Hugging Face cache (see :func:`find_cached_config`).

    Raises:
        ConfigFileError: not cached, unreadable or incomplete config.
    """
    spec = spec_from_hf_config(find_cached_config(repo_id, env))
    return replace(spec, name=repo_id, hf_repo=repo_id)


def _need(cfg: dict[str, Any], missing: str, *keys: str) -> int:
    """The first of ``keys`` in ``cfg`` as a positive whole number; ``missing`` (marked with ``N_``, with a ``{keys}``
    field) is the sentence for a config that has none of them."""
    value = _first(cfg, *keys)
    if value is None:
        raise ShapeError("config", marked(missing).format(keys=", ".join(keys)))
    return positive_int(keys[0], value)


def _decoder_spec(cfg: dict[str, Any], name: str, path: Path, model_type: str) -> ModelSpec:
    h = _need(cfg, N_("no hidden size (looked for {keys})."), "hidden_size", "n_embd", "d_model")
    layers = _need(cfg, N_("no layer count (looked for {keys})."),
                   "num_hidden_layers", "n_layer", "num_layers", "n_layers")
    heads = _need(cfg, N_("no attention head count (looked for {keys})."),
                  "num_attention_heads", "n_head", "num_heads", "n_heads")
    vocab = _need(cfg, N_("no vocabulary size (looked for {keys})."), "vocab_size")
    kv_default = 1 if cfg.get("multi_query") is True else heads  # GPTBigCode (StarCoder, octocoder): one KV head
    kv_heads = positive_int("num_key_value_heads", _first(cfg, "num_key_value_heads", "num_kv_heads", "multi_query_group_num", default=kv_default))
    if kv_heads > heads or heads % kv_heads:
        # Grouped-query attention: each KV head serves heads / kv_heads query heads (Ainslie et al. 2023).
        raise ShapeError("num_key_value_heads", _("{kv_heads} does not divide the {heads} attention heads (grouped-query "
                                                  "attention shares each KV head among a whole group).").format(
            kv_heads=kv_heads, heads=heads))
    # Qwen v1 and ChatGLM name the head width kv_channels (QWenAttention: projection_size = kv_channels x heads).
    head_dim = positive_int("head_dim", _first(cfg, "head_dim", "kv_channels", default=h // heads))
    gated = model_type in _GATED_MODEL_TYPES or "silu" in str(cfg.get("hidden_act", "")).lower()
    # Llama 4 names its dense-layer width intermediate_size_mlp and its expert width intermediate_size.
    # MPT (llm-foundry MPTConfig) gives the MLP width as expansion_ratio x d_model.
    mlp_ratio = _first(cfg, "expansion_ratio")
    dense_ffn = _first(cfg, "intermediate_size_mlp", "intermediate_size", "n_inner", "ffn_dim", "moe_intermediate_size",
                       default=int(mlp_ratio * h) if isinstance(mlp_ratio, (int, float)) and mlp_ratio > 0 else 4 * h)
    ffn = positive_int("intermediate_size", dense_ffn)
    if model_type in _HALVED_FFN_MODEL_TYPES:
        ffn = positive_int("intermediate_size", ffn // 2)
    experts = _first(cfg, "num_local_experts", "num_experts", "n_routed_experts")
    active = _first(cfg, "num_experts_per_tok", "moe_topk", "experts_per_token")
    tied = bool(cfg.get("tie_word_embeddings", model_type in ("gpt2", "gemma", "gemma2", "gemma3_text", "bloom", "gpt_bigcode", "mpt")))
    moe = _moe_layout(cfg, model_type, layers, ffn) if experts else None
    mla = _mla_layout(cfg)
    params = _decoder_params(h, layers, ffn, vocab, heads, kv_heads, head_dim, gated, tied,
                             None if moe else experts, moe=moe, mla=mla)
    if mla:
        kv_heads, head_dim = mla_kv_view(mla.kv_lora_rank, mla.qk_rope_head_dim)
    if model_type == "gpt2" or (not gated and "n_embd" in cfg):
        # GPT-2 style: learned positions, biases on every linear, two LayerNorms with bias per block.
        positions = int(_first(cfg, "n_positions", "max_position_embeddings", default=1024))
        # Attention: q and out projections h x h, k and v h x (kv_heads * head_dim): 4h^2 for multi-head attention,
        # 2h^2 + 2h*d for GPTBigCode multi-query attention.
        attn = 2 * h * h + 2 * h * kv_heads * head_dim + 2 * h + 2 * kv_heads * head_dim
        params = (vocab * h + positions * h + layers * (attn + 2 * h * ffn + ffn + h + 4 * h) + 2 * h)
        if not tied:
            params += vocab * h
    window, local_layers = sliding_window_layout(cfg, model_type, layers)
    global_kv, global_dim = global_attention_layout(cfg, kv_heads, head_dim) if window else (None, None)
    return ModelSpec(
        name=name, params=params, kind="decoder", layers=layers, hidden_size=h, num_attention_heads=heads,
        num_kv_heads=kv_heads, ffn_size=ffn, vocab_size=vocab,
        context_length=_context_length(cfg), head_dim=head_dim,
        tied_embeddings=tied, gated_mlp=gated, moe_experts=experts, moe_active_experts=active, source=str(path),
        moe_ffn_size=moe.ffn if moe and moe.ffn != ffn else None, moe_shared_experts=moe.shared if moe else 0,
        moe_layers=moe.moe_layers if moe else None, moe_shared_ffn_size=moe.shared_ffn if moe else None,
        attention_kind="mla" if mla else ("mha" if kv_heads == heads else "mqa" if kv_heads == 1 else "gqa"),
        kv_lora_rank=mla.kv_lora_rank if mla else None, q_lora_rank=mla.q_lora_rank if mla else None,
        qk_rope_head_dim=mla.qk_rope_head_dim if mla else None, sliding_window=window,
        qk_nope_head_dim=mla.qk_nope_head_dim if mla else None, v_head_dim=mla.v_head_dim if mla else None,
        sliding_window_layers=local_layers, global_kv_heads=global_kv, global_head_dim=global_dim,
        hf_repo=name if is_repo_id(name) else None,
        kv_latent_dim=(mla.kv_lora_rank + mla.qk_rope_head_dim) if mla else None,
        fused_qkv=model_type in FUSED_QKV_MODEL_TYPES, model_type=model_type or None,
        hf_architecture=_first_architecture(cfg), kv_int8_affine_params=INT8_KV_AFFINE_MODEL_TYPES.get(model_type, 0),
        expert_bias=bool(experts) and model_type in EXPERT_BIAS_MODEL_TYPES,
        hf_dense_routed_experts=bool(experts) and model_type in HF_DENSE_ROUTED_MODEL_TYPES,
        clamped_glu=isinstance(cfg.get("swiglu_limit"), (int, float)) and not isinstance(cfg.get("swiglu_limit"), bool),
        layer_qk_norm=str(cfg.get("qk_norm_type", "")).lower() == "per_layer" and cfg.get("use_qk_norm", True) is not False,
    )


def _moe_layout(cfg: dict[str, Any], model_type: str, layers: int, dense_ffn: int) -> _Moe:
    """Where the experts are and how wide (config keys of the HF implementations).

    DeepSeek-V2/V3: ``moe_intermediate_size``, ``n_shared_experts``, the first ``first_k_dense_replace`` layers
    dense. Qwen2/3-MoE: ``moe_intermediate_size``, ``decoder_sparse_step``, ``mlp_only_layers``, Qwen2-MoE's
    ``shared_expert_intermediate_size``. Llama 4: experts of width ``intermediate_size`` plus one shared expert,
    MoE every ``interleave_moe_layer_step`` layers. Mixtral / gpt-oss: every layer, experts of ``intermediate_size``.
    """
    experts = positive_int("num_experts", _first(cfg, "num_local_experts", "num_experts", "n_routed_experts"))
    width = positive_int("moe_intermediate_size", _first(cfg, "moe_intermediate_size", "intermediate_size", default=dense_ffn))
    shared = int(_first(cfg, "n_shared_experts", "num_shared_experts", default=0) or 0)
    shared_ffn = _first(cfg, "shared_expert_intermediate_size")
    if shared_ffn and not shared:
        shared = 1
    if model_type.startswith("llama4"):
        shared = 1
    moe_layers = layers
    first_dense = int(cfg.get("first_k_dense_replace") or 0)
    step = int(_first(cfg, "interleave_moe_layer_step", "decoder_sparse_step", "moe_layer_freq", default=1) or 1)
    if first_dense or step > 1 or cfg.get("mlp_only_layers"):
        dense_only = set(cfg.get("mlp_only_layers") or [])
        moe_layers = sum(1 for i in range(layers)
                         if i >= first_dense and (i + 1) % step == 0 and i not in dense_only)
    return _Moe(experts=experts, ffn=width, shared=shared, shared_ffn=int(shared_ffn) if shared_ffn else None,
                moe_layers=moe_layers)


def _mla_layout(cfg: dict[str, Any]) -> _Mla | None:
    """MLA sizes when the config has ``kv_lora_rank`` (DeepSeek-V2/V3, Kimi K2), else None."""
    rank = cfg.get("kv_lora_rank")
    if not rank:
        return None
    return _Mla(kv_lora_rank=positive_int("kv_lora_rank", rank),
                q_lora_rank=int(cfg["q_lora_rank"]) if cfg.get("q_lora_rank") else None,
                qk_rope_head_dim=positive_int("qk_rope_head_dim", cfg.get("qk_rope_head_dim", 64)),
                qk_nope_head_dim=positive_int("qk_nope_head_dim", cfg.get("qk_nope_head_dim", 128)),
                v_head_dim=positive_int("v_head_dim", cfg.get("v_head_dim", 128)))


def is_repo_id(text: str) -> bool:
    """``owner/name`` with the characters Hugging Face allows (no spaces, one slash)."""
    return bool(_REPO_ID.fullmatch(text or ""))


def _bert_spec(cfg: dict[str, Any], name: str, path: Path) -> ModelSpec:
    h = _need(cfg, N_("no hidden size (looked for {keys})."), "hidden_size", "dim")
    layers = _need(cfg, N_("no layer count (looked for {keys})."), "num_hidden_layers", "n_layers")
    heads = _need(cfg, N_("no attention head count (looked for {keys})."), "num_attention_heads", "n_heads")
    vocab = _need(cfg, N_("no vocabulary size (looked for {keys})."), "vocab_size")
    ffn = positive_int("intermediate_size", _first(cfg, "intermediate_size", "hidden_dim", default=4 * h))
    positions = int(_first(cfg, "max_position_embeddings", default=512))
    types = int(_first(cfg, "type_vocab_size", default=0))
    embeddings = (vocab + positions + types) * h + 2 * h  # word, position, token-type, LayerNorm
    per_layer = 4 * (h * h + h) + 2 * h + (h * ffn + ffn) + (ffn * h + h) + 2 * h
    pooler = h * h + h  # BertModel includes the pooler (accelerate builds AutoModel)
    params = embeddings + layers * per_layer + pooler
    return ModelSpec(
        name=name, params=params, kind="encoder", layers=layers, hidden_size=h, num_attention_heads=heads,
        num_kv_heads=heads, ffn_size=ffn, vocab_size=vocab, context_length=positions, tied_embeddings=True,
        gated_mlp=False, source=str(path),
    )


def _t5_spec(cfg: dict[str, Any], name: str, path: Path) -> ModelSpec:
    d = _need(cfg, N_("no d_model (looked for {keys})."), "d_model", "hidden_size")
    layers = _need(cfg, N_("no layer count (looked for {keys})."), "num_layers")
    dec_layers = positive_int("num_decoder_layers", _first(cfg, "num_decoder_layers", default=layers))
    heads = _need(cfg, N_("no attention head count (looked for {keys})."), "num_heads")
    d_kv = positive_int("d_kv", _first(cfg, "d_kv", default=d // heads))
    ffn = _need(cfg, N_("no d_ff (looked for {keys})."), "d_ff")
    vocab = _need(cfg, N_("no vocabulary size (looked for {keys})."), "vocab_size")
    gated = str(cfg.get("feed_forward_proj", "relu")).startswith("gated")
    tied = bool(cfg.get("tie_word_embeddings", True))
    inner = heads * d_kv
    attn = 4 * d * inner
    mlp = (3 if gated else 2) * d * ffn
    buckets = int(_first(cfg, "relative_attention_num_buckets", default=32))
    enc = layers * (attn + mlp + 2 * d) + d + buckets * heads
    dec = dec_layers * (2 * attn + mlp + 3 * d) + d + buckets * heads
    params = vocab * d * (1 if tied else 2) + enc + dec
    return ModelSpec(
        name=name, params=params, kind="encoder-decoder", layers=layers + dec_layers, decoder_layers=dec_layers,
        hidden_size=d,
        num_attention_heads=heads, num_kv_heads=heads, ffn_size=ffn, vocab_size=vocab,
        context_length=_first(cfg, "n_positions", default=512), head_dim=d_kv, tied_embeddings=tied,
        gated_mlp=gated, source=str(path),
    )


def _bart_spec(cfg: dict[str, Any], name: str, path: Path) -> ModelSpec:
    """BART-style encoder-decoder (BART, mBART, Marian, Pegasus, M2M-100): biased linears, learned positions,
    a shared embedding tied to the LM head (transformers ``modeling_bart.py``)."""
    d = _need(cfg, N_("no d_model (looked for {keys})."), "d_model")
    enc = _need(cfg, N_("no encoder layer count (looked for {keys})."), "encoder_layers")
    dec = _need(cfg, N_("no decoder layer count (looked for {keys})."), "decoder_layers")
    heads = _need(cfg, N_("no attention head count (looked for {keys})."),
                  "encoder_attention_heads", "decoder_attention_heads")
    ffn = positive_int("encoder_ffn_dim", _first(cfg, "encoder_ffn_dim", "decoder_ffn_dim", default=4 * d))
    vocab = _need(cfg, N_("no vocabulary size (looked for {keys})."), "vocab_size")
    positions = int(_first(cfg, "max_position_embeddings", default=1024)) + 2  # BART offsets positions by 2
    attn = 4 * (d * d + d)
    mlp = 2 * d * ffn + ffn + d
    params = (vocab * d + 2 * positions * d + 2 * 2 * d  # shared embedding, positions, embedding LayerNorms
              + enc * (attn + mlp + 2 * 2 * d) + dec * (2 * attn + mlp + 3 * 2 * d))
    return ModelSpec(
        name=name, params=params, kind="encoder-decoder", layers=enc + dec, decoder_layers=dec, hidden_size=d,
        num_attention_heads=heads,
        num_kv_heads=heads, ffn_size=ffn, vocab_size=vocab, context_length=positions - 2, tied_embeddings=True,
        gated_mlp=False, source=str(path),
    )


def with_params(spec: ModelSpec, params: int) -> ModelSpec:
    """A copy of ``spec`` with another parameter count (for what-if sliders)."""
    return replace(spec, params=positive_int("params", params, MAX_PARAMS))


def _human_count(n: int) -> str:
    for div, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if n >= div:
            return f"{n / div:.3g}{suffix}"
    return str(n)


def _shown(value: object) -> str:
    """``repr(value)`` cut to 40 characters (a pasted 309-digit size stays readable in a message)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**40:
        return _("a number with more than 40 digits")
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def parse_param_count(text: str | int | float) -> int:
    """Parse ``"13B"``, ``"6.7e9"``, ``"350M"``, ``"230m"`` or a number into a parameter count.

    Raises:
        ShapeError: unparsable, zero, negative or above 100 T.
    """
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value = float(text) if not isinstance(text, int) or abs(text) <= MAX_PARAMS else (math.inf if text > 0 else -math.inf)
    else:
        s = str(text).strip().lower().replace("_", "").replace(",", "")
        mult = 1.0
        for suffix, m in (("t", 1e12), ("b", 1e9), ("g", 1e9), ("m", 1e6), ("k", 1e3)):
            if s.endswith(suffix):
                s, mult = s[:-1], m
                break
        try:
            value = float(s) * mult
        except ValueError as exc:
            raise ShapeError("params", _("cannot read {text} as a parameter count; write e.g. 13B, 350M or 6.7e9.").format(
                text=_shown(text))) from exc
    shown = _shown(text)
    if value > MAX_PARAMS:
        raise ShapeError("params", _("{count} is above 100 T parameters; check the units.").format(count=shown))
    if not math.isfinite(value) or value < 1:
        raise ShapeError("params", _("parameter count must be at least 1, got {count}.").format(count=shown))
    return int(round(value))
