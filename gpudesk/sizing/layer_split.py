"""Inference with whole decoder layers split over GPUs that run in turn (naive pipeline parallelism).

Hugging Face ``from_pretrained(..., device_map="auto")`` places whole layers on each GPU and runs them one GPU
after the other (accelerate's hooks move the hidden states between devices); vLLM's ``--pipeline-parallel-size``
also gives each GPU a contiguous block of layers. Each GPU then holds its layers' weights and KV cache, runs
one of its layers at a time (the transient of one layer at full width: no head is split), and only the GPU that
holds the LM head computes the logits. The per-GPU figure is the fullest GPU's.

Which layers go where, for ``device_map="auto"`` (transformers ``modeling_utils.from_pretrained`` calls
accelerate's ``get_balanced_memory`` for ``"auto"``/``"balanced"``, then ``infer_auto_device_map``;
https://github.com/huggingface/accelerate/blob/v0.25.0/src/accelerate/utils/modeling.py):

- ``get_balanced_memory``: every GPU but the last gets a budget of ``model_bytes // n`` plus a buffer of
  ``1.25 x`` the largest no-split module (one decoder layer; the mean of the leaf modules is smaller for any
  decoder); the last keeps its whole memory "just in case the buffer is not enough".
- ``infer_auto_device_map`` fills the GPUs in module order (embeddings, layers, final norm, LM head); the first
  GPU, a "main device", keeps room for the largest leaf module (``max_layer_size``: the embedding table or the
  LM head when they outweigh a decoder layer), so its budget shrinks by that much.

A 67B Llama (95 layers of 1.38 GB, two 1.68 GB vocabulary tables) over 8 GPUs: 10-11 layers and the embeddings on
the first GPU, 13 layers on each of the next six, the 5-6 left with the LM head on the last; the fullest GPU
holds 13 layers (16.8 GiB of bf16 weights), not the 15.7 GiB of an even split.

vLLM splits the layers evenly (``vllm/distributed/utils.py`` ``get_pp_indices``: ``num_hidden_layers //
pp_size`` a rank, the remainder one each to the ranks before the last, from the second-to-last back); a paged engine is sized with that split.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpudesk.sizing.dtypes import weight_bits_per_param
from gpudesk.sizing.shapes import ModelSpec

# accelerate get_balanced_memory: ``buffer = int(1.25 * max(buffer, mean_leaves))``.
BALANCED_BUFFER_FACTOR = 1.25


@dataclass(frozen=True)
class Stage:
    """One GPU of a layer split: its decoder layers and whether it holds the input embedding / the LM head."""

    layers: int
    embeddings: bool
    lm_head: bool


def vocab_table_bytes(spec: ModelSpec, weight_format: str) -> float:
    """Bytes of one vocabulary table (embedding or untied LM head): 16-bit under any format below 16 bits
    (:func:`gpudesk.sizing.memory_inference.weight_bytes` keeps them unquantised)."""
    bits = weight_bits_per_param(weight_format)
    return float((spec.vocab_size or 0) * (spec.hidden_size or 0)) * (bits / 8 if bits >= 16 else 2.0)


def layer_bytes(spec: ModelSpec, total_weight_bytes: float, weight_format: str) -> float:
    """Bytes of one decoder layer: the weights beyond the vocabulary tables, over the layers."""
    tables = vocab_table_bytes(spec, weight_format) * (1 if spec.tied_embeddings else 2)
    return max(0.0, total_weight_bytes - tables) / max(1, spec.layers or 1)


def balanced_split(spec: ModelSpec, total_weight_bytes: float, weight_format: str, gpus: int) -> tuple[Stage, ...]:
    """Layers per GPU under accelerate's ``device_map="auto"`` (module docstring): the embedding, the layers and
    the LM head placed in order, each on the current GPU while it fits that GPU's budget, else on the next. GPUs
    past the point where everything is placed stay empty. A tied LM head stays with the embedding on the first
    GPU (accelerate keeps tied parameters on one device)."""
    per_layer = layer_bytes(spec, total_weight_bytes, weight_format)
    table = vocab_table_bytes(spec, weight_format)
    budget = total_weight_bytes // gpus + BALANCED_BUFFER_FACTOR * per_layer
    budgets = [budget - max(per_layer, table)] + [budget] * (gpus - 2) + [float("inf")] if gpus > 1 else [float("inf")]
    modules = ["embeddings"] + ["layer"] * (spec.layers or 0) + ([] if spec.tied_embeddings else ["lm_head"])
    sizes = {"embeddings": table, "layer": per_layer, "lm_head": table}
    gpu, used = 0, 0.0
    counts = [[0, False, spec.tied_embeddings and i == 0] for i in range(gpus)]
    for module in modules:
        while used + sizes[module] > budgets[gpu] and used > 0:
            gpu, used = gpu + 1, 0.0
        used += sizes[module]
        if module == "layer":
            counts[gpu][0] += 1
        elif module == "embeddings":
            counts[gpu][1] = True
        else:
            counts[gpu][2] = True
    return tuple(Stage(layers=int(c[0]), embeddings=bool(c[1]), lm_head=bool(c[2])) for c in counts)


def even_split(spec: ModelSpec, gpus: int) -> tuple[Stage, ...]:
    """Layers per GPU under vLLM's ``get_pp_indices``: ``L // n`` each, the remainder one more each to the ranks
    before the last, counting back from the second-to-last (``for i in range(2, remaining_layers + 2):
    partitions[-i] += 1``, vllm/distributed/utils.py: the last rank also runs the final norm, the LM head and the
    logits, so it gets no extra layer); the embedding on the first rank, the LM head on the last."""
    n_layers = spec.layers or 0
    base, extra = divmod(n_layers, gpus)
    return tuple(Stage(layers=base + (1 if gpus - 1 - extra <= gpu < gpus - 1 else 0), embeddings=gpu == 0,
                       lm_head=gpu == gpus - 1)
                 for gpu in range(gpus))


def stage_weight_bytes(spec: ModelSpec, stage: Stage, total_weight_bytes: float, weight_format: str) -> float:
    """Weight bytes a stage holds: its layers, plus the embedding and/or the untied LM head."""
    table = vocab_table_bytes(spec, weight_format)
    tables = (table if stage.embeddings else 0.0) + (table if stage.lm_head and not spec.tied_embeddings else 0.0)
    return stage.layers * layer_bytes(spec, total_weight_bytes, weight_format) + tables
