"""Activations one transformer layer keeps for backward when its base weights are frozen (LoRA, QLoRA).

Korthikanti et al.'s per-layer counts (:mod:`gpudesk.sizing.activations`) assume every Linear is trained, so every
Linear keeps its input for the weight gradient. With a frozen base, PyTorch keeps a Linear's input only when its
weight needs a gradient (``linear``'s derivative formulas, https://github.com/pytorch/pytorch/blob/main/tools/autograd/derivatives.yaml:
the input is saved for ``weight``'s gradient only), so a frozen layer keeps, per token:

- the attention kernel's saved tensors: q, k, v and the output (FlashAttention/SDPA, plus 4-byte softmax statistics
  per head), or the s x s scores of eager attention;
- the inputs of the two norms (the residual stream);
- the MLP's activation-function tensors (gated: gate and up outputs and the activation output; otherwise the
  activation output);
- each adapter's input path (PEFT ``LoraLayer.forward`` / torchtune ``LoRALinear.forward``:
  ``lora_B(lora_A(dropout(x)))``): with dropout > 0 every adapted module keeps its own dropout output (16-bit) and
  mask (1 byte) at the module's input width; with dropout 0 ``nn.Dropout`` returns its input (ATen ``_dropout``:
  ``if (p == 0 || !train ...) return input``), so each distinct input is kept once;
- ``legacy_bnb_matmul`` (bitsandbytes < 0.43.2): ``MatMul4Bit.forward`` stores its input for every 4-bit Linear,
  frozen ones included (``ctx.tensors = (A, B)``; removed by "fix QLoRA mem bug: delete useless buffered
  activation", https://github.com/bitsandbytes-foundation/bitsandbytes/pull/1270), so every distinct Linear input
  is kept.

- ``lora_kernels="fused"``: hand-written autograd functions that run the frozen matmul, the adapter and the
  activation function of a whole block as one node (Unsloth ``LoRA_QKV`` / ``LoRA_W`` / ``LoRA_MLP``,
  https://github.com/unslothai/unsloth/blob/main/unsloth/kernels/fast_lora.py). ``LoRA_MLP.forward`` saves only
  ``X, e, g`` (its input and the gate and up outputs) and recomputes ``h = act(e) * g`` in backward, so the
  activation output and the down projection's input are not kept (2 ffn-wide tensors instead of 3 + 1);
  ``LoRA_QKV`` saves its input ``X`` once for q, k and v; ``LoRA_W`` (o_proj) saves the attention output, which the
  attention kernel keeps already. The 4-bit weights are dequantised inside these functions (``fast_dequantize``),
  never through bitsandbytes' ``MatMul4Bit``, so the old bitsandbytes input copies do not arise for fused blocks. Unsloth patches a
  block with them only when every projection of the block has an adapter and dropout is 0
  (``FastLlamaModel.patch_peft_model``); a block that does not qualify keeps the PEFT path above.

So QLoRA on all linear layers with dropout, or under old bitsandbytes, keeps more than LoRA on q and v: the
difference is in which adapters and which library versions run, both inputs a user types.
"""

from __future__ import annotations

from gpudesk.sizing.checks import MAX_BATCH, MAX_SEQ_LEN_TOKENS, choice, positive_int
from gpudesk.sizing.errors import SizingError
from gpudesk.i18n import _
from gpudesk.sizing.shapes import ModelSpec

LORA_KERNELS = ("peft", "fused")
ATTENTION_BLOCK = ("q_proj", "k_proj", "v_proj")
MLP_BLOCK = ("gate_proj", "up_proj", "down_proj")

# Which distinct tensor feeds each adapted module (q, k, v share the attention input; gate and up the MLP input).
# A fused projection (:mod:`gpudesk.sizing.lora_modules`) is one module with one adapter over that same input.
INPUT_OF_MODULE = {"q_proj": "attn_in", "k_proj": "attn_in", "v_proj": "attn_in", "o_proj": "attn_out",
                   "gate_proj": "mlp_in", "up_proj": "mlp_in", "down_proj": "down_in",
                   "qkv_proj": "attn_in", "gate_up_proj": "mlp_in"}


def _widths(spec: ModelSpec) -> dict[str, int]:
    dims = spec.transformer_dims
    h = dims.hidden_size
    return {"attn_in": h, "attn_out": dims.num_attention_heads * spec.head_dim_resolved, "mlp_in": h,
            "down_in": spec.ffn_size or 4 * h}


def bnb_matmul_input_widths(spec: ModelSpec, targets: tuple[str, ...], *, lora_dropout: float = 0.0,
                            lora_kernels: str = "peft") -> list[int]:
    """Widths of the distinct inputs of a layer's quantised Linears that run through bitsandbytes' matmul
    functions (``attn_in``, ``attn_out``, ``mlp_in``, ``down_in``), leaving out the blocks that fused LoRA kernels
    run themselves (``lora_kernels="fused"``: they dequantise inside their own functions).

    Raises:
        SizingError: an unknown kernel choice.
    """
    kernels = choice("lora_kernels", lora_kernels, LORA_KERNELS)
    widths = _widths(spec)
    groups = ["attn_in", "attn_out", "mlp_in", "down_in"]
    if kernels == "fused" and lora_dropout == 0:
        if all(n in targets for n in ATTENTION_BLOCK):
            groups.remove("attn_in")
        if "o_proj" in targets:
            groups.remove("attn_out")
        if spec.gated and all(n in targets for n in MLP_BLOCK):
            groups.remove("mlp_in")
            groups.remove("down_in")
    return [widths[g] for g in groups]


def frozen_layer_activation_bytes(spec: ModelSpec, seq_len_tokens: int, micro_batch_size: int,
                                  targets: tuple[str, ...], *, lora_dropout: float = 0.0,
                                  flash_attention: bool = True, legacy_bnb_matmul: bool = False,
                                  lora_kernels: str = "peft") -> float:
    """Bytes one frozen-base layer with LoRA adapters on ``targets`` keeps for backward (16-bit activations).
    ``lora_kernels``: ``peft`` (one autograd node per Linear and adapter) or ``fused`` (Unsloth-style fused blocks).

    Raises:
        SizingError: a dropout outside [0, 1), an unknown kernel choice or non-positive sizes.
    """
    kernels = choice("lora_kernels", lora_kernels, LORA_KERNELS)
    if not 0.0 <= lora_dropout < 1.0:
        raise SizingError("lora_dropout", _("LoRA dropout must be at least 0 and below 1, got {value:g}.").format(
            value=lora_dropout))
    s = positive_int("seq_len_tokens", seq_len_tokens, MAX_SEQ_LEN_TOKENS)
    b = positive_int("micro_batch_size", micro_batch_size, MAX_BATCH)
    tokens = float(s) * b
    dims = spec.transformer_dims
    h, heads = dims.hidden_size, dims.num_attention_heads
    widths = _widths(spec)
    q_dim = widths["attn_out"]
    kv_dim = spec.kv_heads_resolved * spec.head_dim_resolved
    ffn = widths["down_in"]
    attention = tokens * 2 * (q_dim + 2 * kv_dim + q_dim)
    attention += 4 * heads * tokens if flash_attention else 5 * heads * s * tokens
    norms = tokens * 2 * 2 * h
    mlp = tokens * 2 * ffn * (3 if spec.gated else 1)
    kept_inputs = {"attn_out"}  # the attention output is saved by the attention kernel already
    adapters = 0.0
    fused = kernels == "fused" and lora_dropout == 0
    if fused and all(n in targets for n in ATTENTION_BLOCK):
        adapters += tokens * 2 * widths["attn_in"]  # LoRA_QKV saves X once
        kept_inputs.add("attn_in")
        targets = tuple(n for n in targets if n not in ATTENTION_BLOCK)
    if fused and "o_proj" in targets:
        targets = tuple(n for n in targets if n != "o_proj")  # LoRA_W saves the attention output (kept already)
    if fused and spec.gated and all(n in targets for n in MLP_BLOCK):
        mlp = tokens * 2 * (h + 2 * ffn)  # LoRA_MLP saves X, e, g; act(e) * g is recomputed in backward
        kept_inputs.update({"mlp_in", "down_in"})
        targets = tuple(n for n in targets if n not in MLP_BLOCK)
    for name in targets:
        group = INPUT_OF_MODULE[name]
        if lora_dropout > 0:
            adapters += tokens * 3 * widths[group]  # its own 16-bit dropout output and 1-byte mask
        elif group not in kept_inputs:
            adapters += tokens * 2 * widths[group]
            kept_inputs.add(group)
    if legacy_bnb_matmul:
        for group in ("attn_in", "mlp_in", "down_in"):
            if group not in kept_inputs:
                adapters += tokens * 2 * widths[group]
                kept_inputs.add(group)
    return attention + norms + mlp + adapters
