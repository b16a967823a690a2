"""Tensor parallelism that replicates the embedding and the LM head on every GPU.

Megatron-LM, vLLM and SGLang split the vocabulary over the tensor-parallel ranks (``VocabParallelEmbedding``,
``ParallelLMHead``), so every weight divides by the TP degree. Simpler tensor-parallel scripts shard only the
decoder blocks: lit-gpt's ``generate/tp.py`` shards each block's fused QKV and MLP column-wise and the output
projections row-wise, and leaves the embedding, the norms and the LM head whole on every rank
(https://github.com/Lightning-AI/litgpt/blob/0eb179cecbac8e4d43e60f5fb8c873341a4a84bf/generate/tp.py
``tensor_parallel`` visits only each block's ``attn`` and ``mlp``). Each GPU then
holds ``embedding + LM head`` in full, ``(1 - 1/t)`` of it beyond an even split.
"""

from __future__ import annotations

from gpudesk.i18n import _
from gpudesk.sizing.dtypes import weight_bits_per_param
from gpudesk.sizing.shapes import ModelSpec


def replicated_vocab_extra_bytes(spec: ModelSpec, weight_format: str, tensor_parallel: int) -> float:
    """Bytes per GPU the replicated embedding and LM head add beyond dividing them by ``tensor_parallel``.

    They are counted in the format :func:`gpudesk.sizing.memory_inference.weight_bytes` keeps them in: 16-bit
    under any format below 16 bits, the weight format's own width otherwise.
    """
    if tensor_parallel <= 1:
        return 0.0
    bits = weight_bits_per_param(weight_format)
    per_param = bits / 8 if bits >= 16 else 2.0
    return spec.embedding_params * per_param * (1 - 1 / tensor_parallel)


def replicated_vocab_note(extra_bytes: float) -> tuple[str, str]:
    """The assumption shown with the replicated embedding and LM head."""
    return (_("embedding and LM head replicated on every tensor-parallel GPU: {gib:.2f} GiB beyond an even split")
            .format(gib=extra_bytes / 2**30),
            "lit-gpt generate/tp.py tensor_parallel (blocks only); vLLM VocabParallelEmbedding shards them instead")
