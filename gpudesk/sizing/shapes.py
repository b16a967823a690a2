"""Model shapes: from the catalog, from a bare parameter count (shape inferred, flagged as a guess), or from a
local Hugging Face ``config.json`` read offline.

Parameter counting follows the module layout of the Hugging Face implementations (Llama/Mistral/Qwen gated
MLP with ``3*h*ffn``; GPT-2/BERT with ``2*h*ffn`` plus biases; T5 encoder-decoder with cross-attention), so a
known config reproduces the published size: Llama-2-7B 6,738,415,616 parameters, bert-base-cased 108,310,272
(accelerate ``estimate-memory`` docs: 413.18 MB fp32), t5-3b 2,851,598,336 (DeepSpeed memory docs: 2851M).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path

from gpudesk.sizing.checks import MAX_PARAMS, positive_int
from gpudesk.sizing.config_validation import check_config_numbers, read_config_json
from gpudesk.sizing.errors import ConfigFileError, ShapeError, SizingError

MODEL_KINDS = ("decoder", "encoder", "encoder-decoder", "vision", "diffusion", "cnn")

# (hidden_size, layers) of published dense decoders, used to infer a shape from a parameter count.
_REFERENCE_SHAPES: tuple[tuple[int, int], ...] = (
    (128, 2), (256, 4), (512, 8), (768, 12), (1024, 24), (2048, 24), (2560, 32), (4096, 32), (5120, 40), (6656, 60), (8192, 80),
    (12288, 96), (16384, 126), (20480, 128),
)
_GATED_MODEL_TYPES = frozenset({
    "llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "gemma", "gemma2", "gemma3_text",
    "phi3", "deepseek_v2", "deepseek_v3", "olmo", "olmo2", "internlm2", "yi", "baichuan", "cohere", "granite",
})


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
        moe_experts, moe_active_experts: mixture-of-experts routing (None for dense models).
        kv_latent_dim: multi-head latent attention (DeepSeek-V2/V3 MLA): the per-token KV cache is one latent of
            ``kv_lora_rank + qk_rope_head_dim`` values per layer instead of K and V per head (DeepSeek-V2,
            arXiv 2405.04434, section 2.1). None for ordinary attention.
        shape_is_guess: True when the shape was inferred from a parameter count.
        source: where the shape came from (catalog source URL, config path, or "inferred from N params").
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

    @property
    def is_transformer(self) -> bool:
        """True when layers, hidden size and heads are known."""
        return bool(self.layers and self.hidden_size and self.num_attention_heads)

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
            raise ShapeError("model", f"{self.name}: hidden size and attention heads are unknown.")
        return self.hidden_size // self.num_attention_heads

    @property
    def kv_heads_resolved(self) -> int:
        """KV heads (grouped-query attention); equal to attention heads for multi-head attention."""
        if self.num_kv_heads:
            return self.num_kv_heads
        if not self.num_attention_heads:
            raise ShapeError("model", f"{self.name}: attention heads are unknown.")
        return self.num_attention_heads

    @property
    def active_params(self) -> int:
        """Parameters touched per token: all of them for dense models; for MoE, shared + active experts."""
        if not (self.moe_experts and self.moe_active_experts and self.layers and self.hidden_size and self.ffn_size):
            return self.params
        expert = 3 * self.hidden_size * self.ffn_size
        inactive = self.layers * (self.moe_experts - self.moe_active_experts) * expert
        return max(1, self.params - inactive)

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


def _decoder_params(h: int, layers: int, ffn: int, vocab: int, heads: int, kv_heads: int, head_dim: int,
                    gated: bool, tied: bool, experts: int | None = None) -> int:
    """Parameter count of a pre-norm decoder without biases (Llama layout)."""
    attn = h * heads * head_dim + 2 * h * kv_heads * head_dim + heads * head_dim * h
    mlp = (3 if gated else 2) * h * ffn
    if experts:
        mlp = experts * mlp + h * experts  # experts + router
    per_layer = attn + mlp + 2 * h
    return vocab * h * (1 if tied else 2) + layers * per_layer + h


def spec_from_params(params: int | float, name: str | None = None) -> ModelSpec:
    """A decoder shape inferred from a parameter count, flagged ``shape_is_guess``.

    Picks the published (hidden, layers) pair whose Llama-style size (``12*L*h^2`` + embeddings, vocab 32000 or
    a tenth of the parameters for small models,
    gated MLP ffn = 8h/3, multi-head attention) is nearest, then sets the layer count to match ``params``.
    The KV cache of a guessed shape assumes multi-head attention (the larger, safer figure).

    Raises:
        ShapeError: params not a positive number or above 100 T.
    """
    n = parse_param_count(params)
    best = None
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
    _, h, layers, vocab = best
    heads = max(1, h // 128) if h >= 1024 else max(1, h // 64)
    head_dim = h // heads
    ffn = int(round(8 * h / 3 / 256)) * 256 or 4 * h
    return ModelSpec(
        name=name or f"{_human_count(n)}-parameter model",
        params=n, kind="decoder", layers=layers, hidden_size=h, num_attention_heads=heads, num_kv_heads=heads,
        ffn_size=ffn, vocab_size=vocab, context_length=4096, head_dim=head_dim, tied_embeddings=False,
        gated_mlp=True, shape_is_guess=True, source=f"inferred from {n} parameters (Llama-style layout; a guess)",
    )


def spec_from_catalog(shape) -> ModelSpec:
    """Convert a catalog ``ModelShape`` (gpudesk.catalog) to a ModelSpec (fields per the catalog contract)."""
    return ModelSpec(
        name=shape.name, params=int(shape.params), kind=shape.kind or "decoder", layers=shape.layers,
        hidden_size=shape.hidden_size, num_attention_heads=shape.num_attention_heads,
        num_kv_heads=shape.num_kv_heads, ffn_size=shape.ffn_size, vocab_size=shape.vocab_size,
        context_length=shape.context_length, head_dim=getattr(shape, "head_dim", None),
        tied_embeddings=bool(shape.tied_embeddings),
        moe_experts=shape.moe_experts, moe_active_experts=shape.moe_active_experts,
        shape_is_guess=False, source=shape.source_url or f"catalog model {shape.id}",
    )


def _first(cfg: dict, *keys, default=None):
    for key in keys:
        value = cfg.get(key)
        if value is not None:
            return value
    return default


def _config_model_name(cfg: dict, path: Path) -> str:
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
    if isinstance(cfg.get("text_config"), dict) and "hidden_size" not in cfg:
        merged = dict(cfg["text_config"])
        merged.setdefault("model_type", cfg["text_config"].get("model_type", cfg.get("model_type")))
        cfg = merged
    check_config_numbers(cfg, p)
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
        raise ConfigFileError("config", f"{p}: {exc}") from exc
    if spec.params > MAX_PARAMS:
        raise ConfigFileError("config", f"{p} describes more than 100 T parameters; check its sizes "
                                        "(hidden_size, num_hidden_layers, vocab_size, intermediate_size).")
    return spec


def _need(cfg: dict, label: str, *keys) -> int:
    value = _first(cfg, *keys)
    if value is None:
        raise ShapeError("config", f"no {label} (looked for {', '.join(keys)}).")
    return positive_int(keys[0], value)


def _decoder_spec(cfg: dict, name: str, path: Path, model_type: str) -> ModelSpec:
    h = _need(cfg, "hidden size", "hidden_size", "n_embd", "d_model")
    layers = _need(cfg, "layer count", "num_hidden_layers", "n_layer", "num_layers")
    heads = _need(cfg, "attention head count", "num_attention_heads", "n_head", "num_heads")
    vocab = _need(cfg, "vocabulary size", "vocab_size")
    kv_default = 1 if cfg.get("multi_query") is True else heads  # GPTBigCode (StarCoder, octocoder): one KV head
    kv_heads = positive_int("num_key_value_heads", _first(cfg, "num_key_value_heads", "num_kv_heads", "multi_query_group_num", default=kv_default))
    if kv_heads > heads or heads % kv_heads:
        # Grouped-query attention: each KV head serves heads / kv_heads query heads (Ainslie et al. 2023).
        raise ShapeError("num_key_value_heads", f"{kv_heads} does not divide the {heads} attention heads "
                                                "(grouped-query attention shares each KV head among a whole group).")
    head_dim = positive_int("head_dim", _first(cfg, "head_dim", default=h // heads))
    gated = model_type in _GATED_MODEL_TYPES or "silu" in str(cfg.get("hidden_act", "")).lower()
    ffn = positive_int("intermediate_size", _first(cfg, "intermediate_size", "n_inner", "ffn_dim", "moe_intermediate_size", default=4 * h))
    experts = _first(cfg, "num_local_experts", "num_experts", "n_routed_experts")
    active = _first(cfg, "num_experts_per_tok", "moe_topk")
    tied = bool(cfg.get("tie_word_embeddings", model_type in ("gpt2", "gemma", "gemma2", "bloom", "gpt_bigcode")))
    params = _decoder_params(h, layers, ffn, vocab, heads, kv_heads, head_dim, gated, tied, experts)
    if cfg.get("kv_lora_rank") or cfg.get("n_routed_experts"):
        params, ffn = _deepseek_params(cfg, h, layers, vocab, heads, tied), int(cfg.get("moe_intermediate_size") or ffn)
    if model_type == "gpt2" or (not gated and "n_embd" in cfg):
        # GPT-2 style: learned positions, biases on every linear, two LayerNorms with bias per block.
        positions = int(_first(cfg, "n_positions", "max_position_embeddings", default=1024))
        # Attention: q and out projections h x h, k and v h x (kv_heads * head_dim): 4h^2 for multi-head attention,
        # 2h^2 + 2h*d for GPTBigCode multi-query attention.
        attn = 2 * h * h + 2 * h * kv_heads * head_dim + 2 * h + 2 * kv_heads * head_dim
        params = (vocab * h + positions * h + layers * (attn + 2 * h * ffn + ffn + h + 4 * h) + 2 * h)
        if not tied:
            params += vocab * h
    return ModelSpec(
        name=name, params=params, kind="decoder", layers=layers, hidden_size=h, num_attention_heads=heads,
        num_kv_heads=kv_heads, ffn_size=ffn, vocab_size=vocab,
        context_length=_first(cfg, "max_position_embeddings", "n_positions", "seq_length"), head_dim=head_dim,
        tied_embeddings=tied, gated_mlp=gated, moe_experts=experts, moe_active_experts=active,
        kv_latent_dim=(int(cfg["kv_lora_rank"]) + int(cfg.get("qk_rope_head_dim") or 0)) if cfg.get("kv_lora_rank") else None,
        source=str(path),
    )


def _bert_spec(cfg: dict, name: str, path: Path) -> ModelSpec:
    h = _need(cfg, "hidden size", "hidden_size", "dim")
    layers = _need(cfg, "layer count", "num_hidden_layers", "n_layers")
    heads = _need(cfg, "attention head count", "num_attention_heads", "n_heads")
    vocab = _need(cfg, "vocabulary size", "vocab_size")
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


def _t5_spec(cfg: dict, name: str, path: Path) -> ModelSpec:
    d = _need(cfg, "d_model", "d_model", "hidden_size")
    layers = _need(cfg, "layer count", "num_layers")
    dec_layers = positive_int("num_decoder_layers", _first(cfg, "num_decoder_layers", default=layers))
    heads = _need(cfg, "attention head count", "num_heads")
    d_kv = positive_int("d_kv", _first(cfg, "d_kv", default=d // heads))
    ffn = _need(cfg, "d_ff", "d_ff")
    vocab = _need(cfg, "vocabulary size", "vocab_size")
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
        name=name, params=params, kind="encoder-decoder", layers=layers + dec_layers, hidden_size=d,
        num_attention_heads=heads, num_kv_heads=heads, ffn_size=ffn, vocab_size=vocab,
        context_length=_first(cfg, "n_positions", default=512), head_dim=d_kv, tied_embeddings=tied,
        gated_mlp=gated, source=str(path),
    )


def _deepseek_params(cfg: dict, h: int, layers: int, vocab: int, heads: int, tied: bool) -> int:
    """DeepSeek-V2/V3 layout (transformers ``modeling_deepseek_v2.py``): multi-head latent attention (low-rank
    q and kv projections) and MoE layers of ``n_routed_experts + n_shared_experts`` small SwiGLU experts after
    ``first_k_dense_replace`` dense layers (DeepSeek-V2, arXiv 2405.04434)."""
    nope = int(cfg.get("qk_nope_head_dim") or 128)
    rope = int(cfg.get("qk_rope_head_dim") or 64)
    v_dim = int(cfg.get("v_head_dim") or 128)
    kv_rank = int(cfg.get("kv_lora_rank") or 0)
    q_rank = cfg.get("q_lora_rank")
    q = h * int(q_rank) + int(q_rank) + int(q_rank) * heads * (nope + rope) if q_rank else h * heads * (nope + rope)
    attn = q + h * (kv_rank + rope) + kv_rank + kv_rank * heads * (nope + v_dim) + heads * v_dim * h
    dense_ffn = int(cfg.get("intermediate_size") or 4 * h)
    moe_ffn = int(cfg.get("moe_intermediate_size") or dense_ffn)
    routed = int(cfg.get("n_routed_experts") or 0)
    shared = int(cfg.get("n_shared_experts") or 0)
    dense_layers = min(layers, int(cfg.get("first_k_dense_replace") or 0)) if routed else layers
    moe = (routed + shared) * 3 * h * moe_ffn + h * routed
    per_norms = 2 * h
    return (vocab * h * (1 if tied else 2) + layers * (attn + per_norms) + dense_layers * 3 * h * dense_ffn
            + (layers - dense_layers) * moe + h)


def _bart_spec(cfg: dict, name: str, path: Path) -> ModelSpec:
    """BART-style encoder-decoder (BART, mBART, Marian, Pegasus, M2M-100): biased linears, learned positions,
    a shared embedding tied to the LM head (transformers ``modeling_bart.py``)."""
    d = _need(cfg, "d_model", "d_model")
    enc = _need(cfg, "encoder layer count", "encoder_layers")
    dec = _need(cfg, "decoder layer count", "decoder_layers")
    heads = _need(cfg, "attention head count", "encoder_attention_heads", "decoder_attention_heads")
    ffn = positive_int("encoder_ffn_dim", _first(cfg, "encoder_ffn_dim", "decoder_ffn_dim", default=4 * d))
    vocab = _need(cfg, "vocabulary size", "vocab_size")
    positions = int(_first(cfg, "max_position_embeddings", default=1024)) + 2  # BART offsets positions by 2
    attn = 4 * (d * d + d)
    mlp = 2 * d * ffn + ffn + d
    params = (vocab * d + 2 * positions * d + 2 * 2 * d  # shared embedding, positions, embedding LayerNorms
              + enc * (attn + mlp + 2 * 2 * d) + dec * (2 * attn + mlp + 3 * 2 * d))
    return ModelSpec(
        name=name, params=params, kind="encoder-decoder", layers=enc + dec, hidden_size=d, num_attention_heads=heads,
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
        return "a number with more than 40 digits"
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
            raise ShapeError("params", f"cannot read {_shown(text)} as a parameter count; write e.g. 13B, 350M or 6.7e9.") from exc
    shown = _shown(text)
    if value > MAX_PARAMS:
        raise ShapeError("params", f"{shown} is above 100 T parameters; check the units.")
    if not math.isfinite(value) or value < 1:
        raise ShapeError("params", f"parameter count must be at least 1, got {shown}.")
    return int(round(value))
