"""A local .gguf file read offline: every tensor's real type and size, and the settings llama.cpp sizes from.

The header is parsed with the ``gguf`` package (ggml-org/llama.cpp ``gguf-py``, the reference reader; the file
is memory-mapped and only the header and tensor index are touched). Keys follow the GGUF spec
(``docs/gguf.md`` in ggml-org/ggml): ``general.architecture``, ``{arch}.context_length``, ``{arch}.block_count``,
``{arch}.embedding_length``, ``{arch}.feed_forward_length``, ``{arch}.attention.head_count`` and
``head_count_kv`` (a number, or one per layer), ``{arch}.attention.key_length`` / ``value_length``,
``{arch}.attention.sliding_window``, ``{arch}.rope.freq_base``, ``{arch}.rope.scaling.*``, ``{arch}.expert_count``
and ``expert_used_count``; the vocabulary is the length of ``tokenizer.ggml.tokens``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpudesk.i18n import _
from gpudesk.sizing.engines.ggml_mix import GgmlTensor
from gpudesk.sizing.errors import ConfigFileError
from gpudesk.sizing.shapes import ModelSpec

_LAYER_RE = re.compile(r"^blk\.(\d+)\.")


@dataclass(frozen=True)
class GgufModel:
    """What llama.cpp sizes a model from, read from its .gguf header.

    Attributes:
        path: the file. architecture: ``general.architecture``. name: ``general.name`` or the file stem.
        tensors: every tensor with its GGML type and element count. layers: block count.
        context_length: trained context. embedding_length, feed_forward_length, head_count: shape.
        head_count_kv: KV heads of each layer (0 for a layer without attention).
        key_length, value_length: K and V head widths. vocab_size: tokens in the vocabulary.
        sliding_window: window of local layers (None without). expert_count, expert_used_count: MoE routing.
        rope: the ``{arch}.rope.*`` settings (freq_base, scaling.type, scaling.factor ...).
    """

    path: Path
    architecture: str
    name: str
    tensors: tuple[GgmlTensor, ...]
    layers: int
    context_length: int | None
    embedding_length: int
    feed_forward_length: int | None
    head_count: int
    head_count_kv: tuple[int, ...]
    key_length: int
    value_length: int
    vocab_size: int | None
    sliding_window: int | None = None
    expert_count: int | None = None
    expert_used_count: int | None = None
    rope: dict[str, Any] = field(default_factory=dict)

    @property
    def weight_bytes(self) -> int:
        """Bytes of all tensors (the sum llama.cpp prints as ``model size``)."""
        return sum(t.bytes for t in self.tensors)

    @property
    def params(self) -> int:
        return sum(t.values for t in self.tensors)

    def type_counts(self) -> dict[str, int]:
        """Tensors per GGML type (llama.cpp's ``- type q4_K: 193 tensors`` lines)."""
        counts: dict[str, int] = {}
        for t in self.tensors:
            counts[t.ggml_type] = counts.get(t.ggml_type, 0) + 1
        return counts

    def to_spec(self) -> ModelSpec:
        """The model as a :class:`ModelSpec` (shape for KV and activation formulas; params from the tensors)."""
        kv = max(self.head_count_kv) if self.head_count_kv else self.head_count
        names = {t.name for t in self.tensors}
        return ModelSpec(
            name=self.name, params=self.params, layers=self.layers, hidden_size=self.embedding_length,
            num_attention_heads=self.head_count, num_kv_heads=kv or None, ffn_size=self.feed_forward_length,
            vocab_size=self.vocab_size, context_length=self.context_length, head_dim=self.key_length,
            tied_embeddings="output.weight" not in names, moe_experts=self.expert_count,
            moe_active_experts=self.expert_used_count, sliding_window=self.sliding_window,
            source=str(self.path))


def _value(reader: Any, key: str) -> Any:
    fld = reader.fields.get(key)
    if fld is None:
        return None
    return fld.contents()


def _int_or_none(value: Any) -> int | None:
    if isinstance(value, list):
        value = max(value) if value else None
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def read_gguf(path: str | Path) -> GgufModel:
    """Read ``path``'s header and tensor index (offline; the tensor data is not read).

    Raises:
        ConfigFileError (field ``gguf``): missing or unreadable file, not GGUF, or without the shape keys.
    """
    p = Path(path)
    try:
        from gguf import GGUFReader

        reader = GGUFReader(p, "r")
    except (OSError, ValueError, KeyError, IndexError) as exc:
        raise ConfigFileError("gguf", _("{path}: cannot read a GGUF header ({error}).").format(
            path=p, error=exc)) from exc
    arch = _value(reader, "general.architecture")
    if not isinstance(arch, str):
        raise ConfigFileError("gguf", _("{path}: the GGUF header has no general.architecture.").format(path=p))

    def key(name: str) -> Any:
        return _value(reader, f"{arch}.{name}")

    layers = _int_or_none(key("block_count"))
    width = _int_or_none(key("embedding_length"))
    heads = _int_or_none(key("attention.head_count"))
    if not (layers and width and heads):
        raise ConfigFileError("gguf", _("{path}: the GGUF header lacks {arch}.block_count, embedding_length or "
                                        "attention.head_count.").format(path=p, arch=arch))
    kv_raw = key("attention.head_count_kv")
    kv = tuple(int(v) for v in kv_raw) if isinstance(kv_raw, list) else (int(kv_raw or heads),) * layers
    tensors = []
    for t in reader.tensors:
        shape = [int(d) for d in t.shape]
        match = _LAYER_RE.match(t.name)
        tensors.append(GgmlTensor(t.name, int(match.group(1)) if match else None, int(t.n_elements),
                                  shape[0] if shape else 1, t.tensor_type.name.lower().replace("_k", "_K")))
    tokens = reader.fields.get("tokenizer.ggml.tokens")
    rope = {k.split(".rope.", 1)[1]: _value(reader, k) for k in reader.fields if k.startswith(f"{arch}.rope.")}
    head_dim = width // heads
    return GgufModel(
        path=p, architecture=arch, name=str(_value(reader, "general.name") or p.stem), tensors=tuple(tensors),
        layers=layers, context_length=_int_or_none(key("context_length")), embedding_length=width,
        feed_forward_length=_int_or_none(key("feed_forward_length")), head_count=heads, head_count_kv=kv,
        key_length=_int_or_none(key("attention.key_length")) or head_dim,
        value_length=_int_or_none(key("attention.value_length")) or head_dim,
        vocab_size=len(tokens.data) if tokens is not None else None,
        sliding_window=_int_or_none(key("attention.sliding_window")),
        expert_count=_int_or_none(key("expert_count")), expert_used_count=_int_or_none(key("expert_used_count")),
        rope=rope)
