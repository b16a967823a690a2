"""Saved tensors of the tanh-approximate GELU written as Python arithmetic (eager PyTorch, no fusion).

transformers maps the config activation ``gelu_new`` (GPT-2, GPT-J, GPT-Neo, CodeGen, Phi) to
``NewGELUActivation`` (``src/transformers/activations.py``), which computes
``0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))`` op by op.
Autograd keeps, beside the MLP input ``x`` and the output that Korthikanti et al. count (the fused GELU's 8
``sbh`` bytes each for ``ffn = 4h``), three more ``ffn``-wide tensors a token: the ``tanh`` output (``tanh``
backward uses its result), and both operands of the final product, ``0.5 * x`` and ``1 + tanh(...)``
(``mul`` backward needs each factor for the other's gradient; ``pow`` saves ``x``, already counted; the
scalar multiplications and additions save nothing: PyTorch ``tools/autograd/derivatives.yaml``).
In 16-bit that is ``3 * 2 * ffn`` bytes a token per layer (24 ``sbh`` for ``ffn = 4h``), in fp32 ``3 * 4 * ffn``.
Under ``torch.autocast`` ``pow`` is on the fp32 list (https://pytorch.org/docs/stable/amp.html, "CUDA Ops that can
autocast to float32"): ``pow`` saves an fp32 copy of ``x`` and the whole chain after it runs in fp32 (``tanh`` and
``1 + tanh`` 4 bytes), ``0.5 * x`` stays 16-bit: ``(4 + 4 + 4 + 2) * ffn`` bytes a token. The fused kernels
(``gelu``, ``gelu_pytorch_tanh``) save only ``x``; ``gelu_fast`` (another Python formula, other saved tensors)
is not counted here.
torch.compile fuses the chain and recomputes it (min-cut partitioner), so the term is for eager runs only.

Measured: transformers GPT-2 large fp16 training (docs/source/en/model_doc/gpt2.md at 6c2a663f, PR #31172),
whose activations exceed the fused count by about 1.46 MB a token with SDPA, 1.1 MB of which is this term.
"""

from __future__ import annotations

from gpudesk.sizing.shapes import ModelSpec

_AMP_PRECISIONS = ("fp16-amp", "bf16-amp")


def unfused_gelu_extra_bytes_per_layer(spec: ModelSpec, seq_len_tokens: int, micro_batch_size: int,
                                       precision: str = "bf16", tensor_parallel: int = 1) -> float:
    """Bytes one layer saves beyond a fused GELU when its two-matrix MLP runs the op-by-op tanh GELU eagerly (0 for a
    gated MLP, whose activation is SiLU: :func:`gpudesk.sizing.memory_train.eager_extra_bytes_per_layer`).

    The setting is the user's (``--unfused-gelu``), not read from the config: the same ``gelu_new`` config trains
    with a fused kernel elsewhere (litgpt ``GptNeoxMLP`` calls ``torch.nn.functional.gelu(x, approximate=...)``;
    Megatron-LM fuses bias and GELU), and there the term would be wrong (litgpt Phi-2 LoRA rows 1.02 -> 1.30).
    """
    if spec.gated:
        return 0.0
    h = spec.hidden_size or 0
    ffn = spec.ffn_size or 4 * h
    if precision in _AMP_PRECISIONS:
        per_element = 14.0
    elif precision == "fp32":
        per_element = 12.0
    else:
        per_element = 6.0
    return seq_len_tokens * micro_batch_size * per_element * ffn / max(1, tensor_parallel)
