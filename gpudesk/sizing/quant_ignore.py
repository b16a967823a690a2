"""Linear layers a quantised checkpoint keeps at 16 bits: its ``quantization_config``'s ignore list.

A quantised checkpoint need not quantise every Linear layer. Its ``config.json`` names the modules left
unquantised, and the engine loads those with the unquantised (16-bit) method:

- ``fbgemm_fp8`` and ``fp8``: ``modules_to_not_convert`` (transformers ``FbgemmFp8Config`` /
  ``FineGrainedFP8Config``); vLLM reads it as the ignore list and gives a skipped layer
  ``UnquantizedLinearMethod`` (``vllm/model_executor/layers/quantization/fbgemm_fp8.py``
  ``FBGEMMFp8Config.get_quant_method``, v0.5.3,
  https://github.com/vllm-project/vllm/blob/v0.5.3/vllm/model_executor/layers/quantization/fbgemm_fp8.py;
  ``fp8.py`` ``Fp8Config`` reads ``ignored_layers``). Meta's Llama 3.1 405B FP8 recipe leaves the first and
  last decoder layers, every ``self_attn`` and the LM head in bf16 (transformers' FBGEMM FP8 conversion script
  for Llama-3.1-405B: ``modules_to_not_convert`` = ``model.layers.0``, ``model.layers.125``, ``lm_head`` and
  ``model.layers.{1..124}.self_attn``); the FFN layers alone are FP8.
- ``compressed-tensors`` (llm-compressor): ``ignore``, where an entry starting ``re:`` is a regular expression
  matched from the start of the module name and any other entry the exact name
  (``vllm/model_executor/layers/quantization/compressed_tensors/utils.py`` ``should_ignore_layer`` /
  ``_is_equal_or_regex_match``, https://github.com/vllm-project/vllm/blob/v0.6.3/vllm/model_executor/layers/quantization/compressed_tensors/utils.py).

An entry that names a parent module (``model.layers.0``, ``model.layers.7.self_attn``) covers every Linear
under it, as transformers' ``replace_with_*_linear`` does (the entry is a prefix of the module's dotted name).
The module names are those of the Hugging Face Llama-style decoder (``model.layers.N.self_attn.{q,k,v,o}_proj``,
``model.layers.N.mlp.{gate,up,down}_proj``); the embeddings and LM head are sized at 16 bits in any case
(:func:`gpudesk.sizing.memory_inference.weight_bytes`).
"""

from __future__ import annotations

import re
from typing import Any

#: quantization_config keys that list the unquantised modules, by the methods that use them.
IGNORE_KEYS = ("modules_to_not_convert", "ignored_layers", "ignore")


def ignore_list(quant: dict[str, Any]) -> list[str]:
    """The module names / ``re:`` patterns a ``quantization_config`` keeps unquantised ([] when none)."""
    out: list[str] = []
    for key in IGNORE_KEYS:
        value = quant.get(key)
        if isinstance(value, list):
            out.extend(str(v) for v in value if isinstance(v, str) and v)
    return out


def _covers(entry: str, module: str) -> bool:
    if entry.startswith("re:"):
        try:
            return re.match(entry[3:], module) is not None
        except re.error:
            return False
    return module == entry or module.startswith(entry + ".")


def decoder_linear_modules(layers: int, hidden: int, heads: int, kv_heads: int, head_dim: int, ffn: int,
                           gated: bool) -> list[tuple[str, int]]:
    """(dotted module name, parameters) of every attention and MLP Linear of a Llama-style decoder."""
    q = hidden * heads * head_dim
    kv = hidden * kv_heads * head_dim
    mlp = ["gate_proj", "up_proj", "down_proj"] if gated else ["up_proj", "down_proj"]
    out: list[tuple[str, int]] = []
    for i in range(layers):
        base = f"model.layers.{i}"
        out += [(f"{base}.self_attn.q_proj", q), (f"{base}.self_attn.k_proj", kv),
                (f"{base}.self_attn.v_proj", kv), (f"{base}.self_attn.o_proj", q)]
        out += [(f"{base}.mlp.{name}", hidden * ffn) for name in mlp]
    return out


def unquantized_linear_params(quant: dict[str, Any], modules: list[tuple[str, int]]) -> int:
    """Parameters of the Linear ``modules`` that ``quant``'s ignore list keeps at 16 bits."""
    entries = ignore_list(quant)
    if not entries:
        return 0
    return sum(n for name, n in modules if any(_covers(e, name) for e in entries))
