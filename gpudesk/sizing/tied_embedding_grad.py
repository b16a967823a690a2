"""The input embedding's gradient beside the tied LM head's at the end of backward.

When the input embedding and the LM head share one matrix (``tie_word_embeddings``: GPT-2, Gemma, small Llama and
Qwen models, BERT's MLM head), that matrix is used twice in the forward and receives two gradients in the backward:

1. the LM head's, first (the output layer is the first op of the backward). ``AccumulateGrad`` finds ``.grad`` unset
   and keeps the new tensor as ``.grad`` (torch/csrc/autograd/functions/accumulate_grad.h ``accumulateGrad``: "steal"
   the incoming gradient when ``variable_grad`` is undefined);
2. the embedding's, last: ``embedding_dense_backward`` returns a new dense ``[V, h]`` tensor
   (aten/src/ATen/native/Embedding.cpp ``embedding_dense_backward_cpu`` / cuda/Embedding.cu: ``at::zeros`` of
   ``num_weights x embedding_dim`` for the result), which ``AccumulateGrad`` adds into the existing ``.grad``
   in place (``variable_grad += new_grad``) and then frees.

So at the end of backward, beside every gradient, one more ``V x h`` tensor in the gradient dtype exists for a
moment: 47 MB for BERT-base in fp16, 311 MB for Qwen3-0.6B in fp32. An untied model's embedding gradient is simply
stolen as ``.grad`` (no copy). Counted for plain data parallelism (``sharding ddp``) without pipeline stages;
ZeRO / FSDP reduce their gradients through their own hooks and buffers (not modelled here).
"""

from __future__ import annotations

from gpudesk.sizing.shapes import ModelSpec

TIED_EMBEDDING_GRAD_SOURCE = ("torch/csrc/autograd/functions/accumulate_grad.h accumulateGrad (steal, then "
                              "variable_grad += new_grad); aten/src/ATen/native/Embedding.cpp embedding_dense_backward")


def tied_embedding_grad_bytes(spec: ModelSpec, gradient_bytes_per_param: float, *, tensor_parallel: int = 1,
                              vocabulary_head: bool = True) -> float:
    """Bytes of the embedding's dense gradient that exists beside the tied ``.grad`` at the end of backward.

    Args:
        spec: the model; nothing unless its embedding is tied and its vocabulary and hidden size are known.
        gradient_bytes_per_param: the gradient dtype's size (2 for 16-bit gradients, 4 for fp32).
        tensor_parallel: the vocabulary is split over the tensor-parallel ranks.
        vocabulary_head: the tied LM head runs (always for a decoder; an encoder only with its MLM head).
    """
    if not (spec.tied_embeddings and vocabulary_head and spec.vocab_size and spec.hidden_size):
        return 0.0
    return spec.vocab_size * spec.hidden_size * gradient_bytes_per_param / max(1, tensor_parallel)
