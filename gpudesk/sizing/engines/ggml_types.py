"""GGML tensor types, llama.cpp file types and KV-cache types: bytes per block and bits per weight.

Sources:
- Block layouts: ggml-org/llama.cpp ``ggml/src/ggml-common.h`` (``block_q4_0``: one fp16 scale + 32 4-bit values
  = 18 bytes per 32; ``block_q8_0``: fp16 scale + 32 int8 = 34 bytes; ``block_q4_K``: 144 bytes per 256 ...).
  The same table ships in the ``gguf`` Python package as ``gguf.constants.GGML_QUANT_SIZES``, which is read here
  (tests check the values gpudesk relies on).
- File types users type (q4_k_m, q5_k_s, iq4_xs ...): ggml-org/llama.cpp ``tools/quantize/quantize.cpp``
  ``QUANT_OPTIONS`` (commit 42ea59bc): k-quant sizes are given as the GiB of Llama-3-8B (8,030,261,248 parameters),
  i-quants as bits per weight. Bits per weight here are those figures: ``GiB x 2^30 x 8 / 8.03e9`` (Q4_K_M 4.58 GiB
  -> 4.90 bpw, Q8_0 7.96 GiB -> 8.52 bpw). They are whole-file averages: the mix keeps some tensors at more bits
  (:mod:`gpudesk.sizing.engines.ggml_mix` gives the per-tensor types).
- KV-cache types llama.cpp accepts for ``--cache-type-k/-v``: ``common/arg.cpp`` ``kv_cache_types`` (f32, f16,
  bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1).
"""

from __future__ import annotations

from gpudesk.i18n import _
from gpudesk.sizing.errors import SizingError
from gpudesk.units import GIB as _GIB

#: Llama-3-8B parameter count, the reference of quantize.cpp's sizes (Meta's config: 8,030,261,248).
LLAMA3_8B_PARAMS = 8_030_261_248

#: quantize.cpp QUANT_OPTIONS: k-quant and legacy sizes in GiB at Llama-3-8B.
_FTYPE_GIB_AT_LLAMA3_8B: dict[str, float] = {
    "q4_0": 4.34, "q4_1": 4.78, "q5_0": 5.21, "q5_1": 5.65, "q2_k": 2.96, "q2_k_s": 2.96, "q3_k_s": 3.41,
    "q3_k_m": 3.74, "q3_k_l": 4.03, "q4_k_s": 4.37, "q4_k_m": 4.58, "q5_k_s": 5.21, "q5_k_m": 5.33, "q6_k": 6.14,
    "q8_0": 7.96,
}
#: quantize.cpp QUANT_OPTIONS: i-quants and ternary types given directly in bits per weight.
_FTYPE_BPW: dict[str, float] = {
    "iq2_xxs": 2.06, "iq2_xs": 2.31, "iq2_s": 2.5, "iq2_m": 2.7, "iq1_s": 1.56, "iq1_m": 1.75, "tq1_0": 1.69,
    "tq2_0": 2.06, "iq3_xxs": 3.06, "iq3_s": 3.44, "iq3_m": 3.66, "iq3_xs": 3.3, "iq4_nl": 4.50, "iq4_xs": 4.25,
}
#: quantize.cpp aliases.
_FTYPE_ALIASES = {"q3_k": "q3_k_m", "q4_k": "q4_k_m", "q5_k": "q5_k_m"}

#: Cache types llama.cpp accepts for --cache-type-k / --cache-type-v (common/arg.cpp kv_cache_types).
KV_CACHE_TYPES: tuple[str, ...] = ("f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1")


def gguf_file_types() -> tuple[str, ...]:
    """The llama.cpp file-type names gpudesk sizes (lower case, as users type them)."""
    return tuple(_FTYPE_GIB_AT_LLAMA3_8B) + tuple(_FTYPE_BPW) + tuple(_FTYPE_ALIASES)


def canonical_file_type(name: str) -> str | None:
    """``"Q4_K_M"`` / ``"q4_k_m"`` / ``"Q4_K"`` -> ``"q4_k_m"``; None when it is not a llama.cpp quant name."""
    key = name.strip().lower().replace("-", "_")
    key = _FTYPE_ALIASES.get(key, key)
    return key if key in _FTYPE_GIB_AT_LLAMA3_8B or key in _FTYPE_BPW else None


def file_type_bits_per_weight(name: str) -> float:
    """Average bits per weight of a llama.cpp file type (quantize.cpp QUANT_OPTIONS; module docstring).

    Raises:
        SizingError: not a llama.cpp file type.
    """
    key = canonical_file_type(name)
    if key is None:
        raise SizingError("weight_format", _("unknown GGUF quantisation {name!r}; use one of {names}.").format(
            name=name, names=", ".join(gguf_file_types())))
    if key in _FTYPE_BPW:
        return _FTYPE_BPW[key]
    return _FTYPE_GIB_AT_LLAMA3_8B[key] * _GIB * 8 / LLAMA3_8B_PARAMS


def ggml_block(type_name: str) -> tuple[int, int]:
    """(values per block, bytes per block) of a GGML tensor type (``"q4_K"`` -> (256, 144)).

    Raises:
        SizingError: not a GGML type.
    """
    from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType

    sizes = {t.name.lower(): v for t, v in GGML_QUANT_SIZES.items() if isinstance(t, GGMLQuantizationType)}
    key = type_name.strip().lower()
    if key not in sizes:
        raise SizingError("ggml_type", _("unknown GGML tensor type {name!r}; use one of {names}.").format(
            name=type_name, names=", ".join(sorted(sizes))))
    block, size = sizes[key]
    return int(block), int(size)


def ggml_row_bytes(type_name: str, values: int) -> int:
    """Bytes of ``values`` elements stored as ``type_name`` (ggml.c ``ggml_row_size``: whole blocks)."""
    block, size = ggml_block(type_name)
    return size * (-(-int(values) // block))


def ggml_bytes_per_value(type_name: str) -> float:
    """Bytes per element of a GGML type (q8_0 -> 34/32 = 1.0625, f16 -> 2)."""
    block, size = ggml_block(type_name)
    return size / block


def kv_cache_type_bytes(type_name: str) -> float:
    """Bytes per cached value of a llama.cpp ``--cache-type-k/-v`` (f16 2, q8_0 1.0625, q4_0 0.5625).

    Raises:
        SizingError (field ``cache_type_k``): not a type llama.cpp accepts for the KV cache.
    """
    key = type_name.strip().lower()
    if key not in KV_CACHE_TYPES:
        raise SizingError("cache_type_k", _("unknown KV cache type {name!r}; llama.cpp accepts {names}.").format(
            name=type_name, names=", ".join(KV_CACHE_TYPES)))
    return ggml_bytes_per_value(key)
