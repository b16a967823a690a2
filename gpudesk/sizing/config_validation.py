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
from gpudesk.json_limits import json_depth_ok
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
        raise ConfigFileError("config", f"{path} is not UTF-8 text; pass the model's config.json.") from exc
    if not json_depth_ok(text, MAX_NESTING):
        raise ConfigFileError("config", f"{path} nests lists or objects more than {MAX_NESTING} levels deep; "
                                        "a model's config.json nests two or three.")
    try:
        cfg = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigFileError("config", f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}).") from exc
    except (ValueError, RecursionError) as exc:  # integers beyond Python's 4300-digit conversion limit
        raise ConfigFileError("config", f"{path} is not a usable config.json ({exc}).") from exc
    if not isinstance(cfg, dict):
        raise ConfigFileError("config", f"{path} must hold a JSON object, not {type(cfg).__name__}.")
    return cfg


def _describe(value: object) -> str:
    """A short, safe description of a JSON value for a message (never a huge repr)."""
    if isinstance(value, (dict, list)):
        return f"a JSON {'object' if isinstance(value, dict) else 'list'}"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


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
            raise ConfigFileError(key, f"{path}: {key} must be a whole number, got {_describe(value)}.")
        if isinstance(value, float) and (not math.isfinite(value) or not value.is_integer()):
            raise ConfigFileError(key, f"{path}: {key} must be a whole number, got {_describe(value)}.")
        if value < lo:
            bound = "greater than zero" if lo == 1 else "zero or more"
            raise ConfigFileError(key, f"{path}: {key} must be {bound}, got {_describe(value)}.")
        if value > hi:
            raise ConfigFileError(key, f"{path}: {key} is {_describe(value)}, implausibly large (limit {hi}); "
                                       "check the file.")
        cfg[key] = int(value)
    for key in TEXT_FIELDS:
        if key in cfg and cfg[key] is not None and not isinstance(cfg[key], str):
            raise ConfigFileError(key, f"{path}: {key} must be text, got {_describe(cfg[key])}.")
