"""bitsandbytes 4-bit layers that compute in fp32 (inference).

``BitsAndBytesConfig(load_in_4bit=True)`` without ``bnb_4bit_compute_dtype`` leaves the compute dtype at
``torch.float32`` (transformers ``utils/quantization_config.py``: ``self.bnb_4bit_compute_dtype = torch.float32``
when it is None, https://github.com/huggingface/transformers/blob/v4.40.0/src/transformers/utils/quantization_config.py).
``Linear4bit.forward`` then casts its input to fp32, runs the matmul in fp32 and casts the output back to the
input's dtype (``x = x.to(self.compute_dtype)`` ... ``out = out.to(inp_dtype)``,
https://github.com/bitsandbytes-foundation/bitsandbytes/blob/0.43.1/bitsandbytes/nn/modules.py). For more than one
token (the prefill) ``matmul_4bit`` takes ``MatMul4Bit``, which dequantises the whole weight and casts it to the
input's dtype before ``torch.nn.functional.linear`` (``F.dequantize_4bit(B, quant_state).to(A.dtype).t()``,
``bitsandbytes/autograd/_functions.py``); a one-token decode step takes the 4-bit GEMV kernel and dequantises
nothing.

So, beyond the 16-bit flow of a prefill, the widest 4-bit Linear of a layer holds at once an fp32 copy of its
input (``4 s d_in``), its fp32 output (``4 s d_out``, beside the 16-bit cast the 16-bit flow already counts) and
its weight dequantised to fp32 (``4 d_in d_out``). The widest is the MLP's: ``hidden -> 2 ffn`` where gate and up
are one Linear (ChatGLM/GLM-4 ``dense_h_to_4h``, Phi-3 ``gate_up_proj``), else ``hidden + ffn`` (up or down
projection). GLM-4-9B at a 32000-token prompt: 4.0 GB of fp32 activations and 0.45 GB of fp32 weight.
"""

from __future__ import annotations

from gpudesk.i18n import _
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.lora_modules import FUSED_GATE_UP_MODEL_TYPES
from gpudesk.sizing.shapes import ModelSpec
from gpudesk.units import GIB

# Weight formats stored by bitsandbytes ``Linear4bit`` (NF4/FP4 with or without double quantisation).
BNB_4BIT_FORMATS = frozenset({"nf4", "nf4-dq"})


def widest_linear(spec: ModelSpec) -> tuple[int, int]:
    """``(d_in, d_out)`` of the 4-bit Linear whose fp32 input and output are widest (module docstring)."""
    h = spec.hidden_size or 0
    ffn = spec.ffn_size or 4 * h
    if spec.gated and spec.model_type in FUSED_GATE_UP_MODEL_TYPES:
        return h, 2 * ffn
    return h, ffn


def fp32_compute_extra_bytes(spec: ModelSpec, weight_format: str, tokens: int, tensor_parallel: int = 1) -> float:
    """Bytes a prefill of ``tokens`` (batch x prompt) holds beyond its 16-bit flow when bitsandbytes 4-bit layers
    compute in fp32: the widest Linear's fp32 input, fp32 output and fp32 dequantised weight, split by
    ``tensor_parallel``.

    Raises:
        SizingError: a weight format bitsandbytes' ``Linear4bit`` does not store.
    """
    if weight_format.lower() not in BNB_4BIT_FORMATS:
        raise SizingError("bnb_fp32_compute", _("fp32 compute applies to bitsandbytes 4-bit weights (weight format "
                                                "nf4 or nf4-dq), not {weight_format}.").format(
                                                    weight_format=weight_format))
    d_in, d_out = widest_linear(spec)
    return (4.0 * tokens * (d_in + d_out) + 4.0 * d_in * d_out) / max(1, tensor_parallel)


def fp32_compute_note(extra_bytes: float) -> tuple[str, str]:
    """The assumption shown with the fp32 compute of bitsandbytes 4-bit layers."""
    return (_("bitsandbytes 4-bit layers compute in fp32: {gib:.2f} GiB more prefill transient (fp32 input, output "
              "and dequantised weight of the widest layer)").format(gib=extra_bytes / GIB),
            "bitsandbytes nn/modules.py Linear4bit.forward; autograd/_functions.py MatMul4Bit; transformers "
            "BitsAndBytesConfig (bnb_4bit_compute_dtype default float32)")
