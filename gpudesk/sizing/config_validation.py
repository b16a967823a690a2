"""The boundary of a Hugging Face ``config.json``: read it with a size cap, parse it without a traceback on
deep nesting or giant numbers, and check every numeric field the parameter count uses before any formula sees
it (a message names the field).

Why each check: ``num_local_experts: "8"`` would repeat a Python list or string (``experts * mlp``) into
gigabytes; NaN or a negative ``hidden_size`` produced "-33,024,634,880 parameters"; a string
``max_position_embeddings`` reached ``int()`` with a ValueError; ``[[[[...]]]]`` raised RecursionError from the
JSON decoder. Real configs are a few kilobytes (Llama-2-7B's is 614 bytes; the largest on the Hub carry
``id2label`` tables of a few hundred KB), so 16 MiB is generous; field ceilings are far above any published
model (hidden size 2^20, layers 2^16, vocabulary 2^27, context 2^31 tokens, 2^16 experts).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from gpudesk.file_limits import InputFileError, read_input
from gpudesk.json_limits import json_depth_ok, json_error_reason
from gpudesk.i18n import _
from gpudesk.sizing.errors import ConfigFileError

MAX_CONFIG_BYTES = 16 * 1024 * 1024
MAX_NESTING = 64  # HF configs nest 2-3 levels (text_config, rope_scaling, quantization_config)

_DIM = 2**20
_COUNT = 2**16
# field -> (smallest allowed value, largest allowed value); None values mean "not set" and are left alone.
NUMERIC_FIELDS: dict[str, tuple[int, int]] = {
    **{k: (1, _DIM) for k in (
        "hidden_size", "n_embd", "d_model", "dim", "head_dim", "d_kv", "qk_nope_head_dim", "qk_rope_head_dim",
        "v_head_dim",
    )},
    **{k: (1, 2**24) for k in (
        "intermediate_size", "n_inner", "ffn_dim", "moe_intermediate_size", "hidden_dim", "d_ff",
        "encoder_ffn_dim", "decoder_ffn_dim",
    )},
    **{k: (1, _COUNT) for k in (
        "num_hidden_layers", "n_layer", "num_layers", "n_layers", "num_decoder_layers", "encoder_layers",
        "decoder_layers", "num_attention_heads", "n_head", "num_heads", "n_heads", "encoder_attention_heads",
        "decoder_attention_heads", "num_key_value_heads", "num_kv_heads", "multi_query_group_num",
    )},
    "vocab_size": (1, 2**27),
    **{k: (1, 2**31) for k in ("max_position_embeddings", "n_positions", "seq_length")},
    **{k: (0, _COUNT) for k in (
        "num_local_experts", "num_experts", "n_routed_experts", "n_shared_experts", "num_experts_per_tok",
        "moe_topk", "first_k_dense_replace", "type_vocab_size", "relative_attention_num_buckets",
    )},
    **{k: (0, _DIM) for k in ("kv_lora_rank", "q_lora_rank")},
}
TEXT_FIELDS = ("model_type", "hidden_act", "feed_forward_proj", "_name_or_path")


def read_config_json(path: Path) -> dict[str, Any]:
    """The JSON object of a local ``config.json``.

    Raises:
        ConfigFileError: unreadable, larger than 16 MiB, not UTF-8, not JSON, nested deeper than 64 levels,
            holding an integer of more than 4300 digits, or not a JSON object.
    """
    try:
        # bytes, then one decode: read_text decodes in chunks, 58x the time for 10x the size
        text = read_input(path, MAX_CONFIG_BYTES, _("the model config")).decode("utf-8")
    except InputFileError as exc:
        raise ConfigFileError("config", exc.user_text()) from exc
    except UnicodeDecodeError as exc:
        raise ConfigFileError("config", _("{path} is not UTF-8 text; pass the model's config.json.").format(
            path=path)) from exc
    if not json_depth_ok(text, MAX_NESTING):
        raise ConfigFileError("config", _("{path} nests lists or objects more than {levels} levels deep; a model's "
                                          "config.json nests two or three.").format(path=path, levels=MAX_NESTING))
    try:
        cfg = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigFileError("config", _("{path} is not valid JSON (line {line}, column {column}: {reason}).").format(
            path=path, line=exc.lineno, column=exc.colno, reason=json_error_reason(exc))) from exc
    except (ValueError, RecursionError) as exc:  # integers beyond Python's 4300-digit conversion limit
        raise ConfigFileError("config", _("{path} is not a usable config.json ({reason}).").format(
            path=path, reason=exc)) from exc
    if not isinstance(cfg, dict):
        raise ConfigFileError("config", _("{path} must hold a JSON object, not {json_type}.").format(
            path=path, json_type=type(cfg).__name__))
    return cfg


def _describe(value: object) -> str:
    """A short, safe description of a JSON value for a message (never a huge repr)."""
    if isinstance(value, (dict, list)):
        # Translators: stands for the value in "{key} must be a whole number, got {value}."
        return _("a JSON object") if isinstance(value, dict) else _("a JSON list")
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _first_key(cfg: dict[str, Any], keys: tuple[str, ...]) -> tuple[str, int] | None:
    """(key, value) of the first of ``keys`` set to a number in ``cfg`` (numbers already checked), else None."""
    for key in keys:
        value = cfg.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return key, value
    return None


_HIDDEN_KEYS = ("hidden_size", "n_embd", "d_model", "dim")
_HEADS_KEYS = ("num_attention_heads", "n_head", "num_heads", "n_heads")
_KV_HEADS_KEYS = ("num_key_value_heads", "num_kv_heads", "multi_query_group_num")
_LAYERS_KEYS = ("num_hidden_layers", "n_layer", "num_layers", "n_layers")
_EXPERTS_KEYS = ("num_local_experts", "num_experts", "n_routed_experts")
_TOPK_KEYS = ("num_experts_per_tok", "moe_topk")
# An explicit per-head width: then the hidden size need not split evenly into the heads (Gemma, T5, MLA).
_HEAD_WIDTH_KEYS = ("head_dim", "d_kv", "qk_nope_head_dim", "kv_lora_rank")


def check_config_shape(cfg: dict[str, Any], path: Path) -> None:
    """Refuse shapes no model can have, naming the field (after :func:`check_config_numbers`).

    * Grouped-query attention shares each key/value head among ``heads / kv_heads`` query heads (transformers'
      ``repeat_kv``, ``n_rep = num_attention_heads // num_key_value_heads``; GQA paper, arXiv 2305.13245), so the
      key/value heads cannot outnumber the query heads and must divide them.
    * Without an explicit head width, each head is ``hidden_size / num_attention_heads`` wide (transformers'
      attention modules raise when it does not divide), so the heads must divide the hidden size.
    * A mixture-of-experts layer routes each token to its top-k experts (Switch Transformer, arXiv 2101.03961;
      Mixtral, arXiv 2401.04088): with k > 0 there must be at least one expert and k cannot exceed their number;
      with experts there must be k > 0.
    * Dense layers before the first MoE layer (``first_k_dense_replace``) cannot outnumber the layers.

    Raises:
        ConfigFileError: the first impossible shape found; ``field`` is the key to fix.
    """
    hidden = _first_key(cfg, _HIDDEN_KEYS)
    heads = _first_key(cfg, _HEADS_KEYS)
    kv = _first_key(cfg, _KV_HEADS_KEYS)
    if heads and kv:
        if kv[1] > heads[1]:
            raise ConfigFileError(kv[0], _("{path}: {kv_key} = {kv} is more key/value heads than the {heads} "
                                           "attention heads ({heads_key}); no model has that.").format(
                path=path, kv_key=kv[0], kv=kv[1], heads=heads[1], heads_key=heads[0]))
        if heads[1] % kv[1]:
            raise ConfigFileError(kv[0], _("{path}: {kv_key} = {kv} does not divide the {heads} attention heads "
                                           "({heads_key}); each key/value head serves the same number of query "
                                           "heads.").format(path=path, kv_key=kv[0], kv=kv[1], heads=heads[1],
                                                            heads_key=heads[0]))
    if hidden and heads and not any(isinstance(cfg.get(k), int) and cfg.get(k) for k in _HEAD_WIDTH_KEYS):
        if hidden[1] % heads[1]:
            raise ConfigFileError(heads[0], _("{path}: {heads_key} = {heads} does not divide {hidden_key} = "
                                              "{hidden}, and no head_dim is given; the heads would not have a whole "
                                              "width.").format(path=path, heads_key=heads[0], heads=heads[1],
                                                               hidden_key=hidden[0], hidden=hidden[1]))
    experts = _first_key(cfg, _EXPERTS_KEYS)
    topk = _first_key(cfg, _TOPK_KEYS)
    if topk and topk[1] > 0:
        if experts is None or experts[1] == 0:
            name = experts[0] if experts else _EXPERTS_KEYS[0]
            raise ConfigFileError(name, _("{path}: {topk_key} = {topk} routes each token to experts, but {name} is "
                                          "{experts}; a mixture-of-experts model has at least one expert.").format(
                path=path, topk_key=topk[0], topk=topk[1], name=name, experts=experts[1] if experts else 0))
        if topk[1] > experts[1]:
            raise ConfigFileError(topk[0], _("{path}: {topk_key} = {topk} experts per token is more than the "
                                             "{experts} experts ({experts_key}).").format(
                path=path, topk_key=topk[0], topk=topk[1], experts=experts[1], experts_key=experts[0]))
    elif topk and experts and experts[1] > 0:
        raise ConfigFileError(topk[0], _("{path}: {topk_key} is 0 with {experts} experts ({experts_key}); each "
                                         "token must go to at least one expert.").format(
            path=path, topk_key=topk[0], experts=experts[1], experts_key=experts[0]))
    layers = _first_key(cfg, _LAYERS_KEYS)
    dense = _first_key(cfg, ("first_k_dense_replace",))
    if layers and dense and dense[1] > layers[1]:
        raise ConfigFileError(dense[0], _("{path}: first_k_dense_replace = {dense} dense layers is more than the "
                                          "{layers} layers ({layers_key}).").format(
            path=path, dense=dense[1], layers=layers[1], layers_key=layers[0]))


def check_config_numbers(cfg: dict[str, Any], path: Path) -> None:
    """Check every known numeric field of ``cfg`` (after any ``text_config`` merge) and the text fields.

    Raises:
        ConfigFileError: a field is not a whole number (string, list, object, bool, NaN, fraction), is out of
            range (negative, zero where it must be positive, or above its ceiling); the message names it.
    """
    for key, (lo, hi) in NUMERIC_FIELDS.items():
        if key not in cfg or cfg[key] is None:
            continue
        value = cfg[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigFileError(key, _("{path}: {key} must be a whole number, got {value}.").format(
                path=path, key=key, value=_describe(value)))
        if isinstance(value, float) and (not math.isfinite(value) or not value.is_integer()):
            raise ConfigFileError(key, _("{path}: {key} must be a whole number, got {value}.").format(
                path=path, key=key, value=_describe(value)))
        if value < lo:
            message = (_("{path}: {key} must be greater than zero, got {value}.") if lo == 1
                       else _("{path}: {key} must be zero or more, got {value}."))
            raise ConfigFileError(key, message.format(path=path, key=key, value=_describe(value)))
        if value > hi:
            raise ConfigFileError(key, _("{path}: {key} is {value}, implausibly large (limit {limit}); check the "
                                         "file.").format(path=path, key=key, value=_describe(value), limit=hi))
        cfg[key] = int(value)
    for key in TEXT_FIELDS:
        if key in cfg and cfg[key] is not None and not isinstance(cfg[key], str):
            raise ConfigFileError(key, _("{path}: {key} must be text, got {value}.").format(
                path=path, key=key, value=_describe(cfg[key])))
