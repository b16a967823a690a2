"""Bytes per element of each precision and storage format, including group-wise quantisation overhead.

Sources:
- Plain formats: IEEE 754 / OCP FP8 sizes (fp32 4 B, bf16/fp16 2 B, fp8/int8 1 B, int4/fp4 0.5 B).
- NF4 with double quantisation: Dettmers et al. 2023, "QLoRA" (arXiv 2305.14314) section 3: blocksize-64
  fp32 absmax costs 32/64 = 0.5 bit/param; double quantisation stores 8-bit absmax per 64 plus one fp32
  per 256 of those, 8/64 + 32/(64*256) = 0.127 bit/param.
- Group-wise INT4 (GPTQ, Frantar et al. 2022, arXiv 2210.17323; AWQ, Lin et al. 2023, arXiv 2306.00978): one
  fp16 scale and one zero point per group of ``g`` weights; with a 16-bit zero this is 32/g bits/param
  (4.25 bits at g = 128, the upper end of the 4.1-4.25 bits observed in practice).
- MXFP4: OCP Microscaling Formats (MX) Specification v1.0 (2023), section 5: blocks of 32 FP4 (E2M1) elements
  share one 8-bit E8M0 scale: 4 + 8/32 = 4.25 bits/param
  (https://www.opencompute.org/documents/ocp-microscaling-formats-mx-v1-0-spec-final-pdf). gpt-oss stores its
  MoE weights this way.
- GGUF types (q4_k_m, q5_k_s, iq4_xs, q8_0 ...): the whole-file bits per weight of llama.cpp's quantize table
  (:mod:`gpudesk.sizing.engines.ggml_types`); every tensor, embeddings included, is in the mix.
"""

from __future__ import annotations

import re

from gpudesk.i18n import _
from gpudesk.sizing.engines.ggml_types import canonical_file_type, file_type_bits_per_weight
from gpudesk.sizing.errors import SizingError

# Compute / activation / KV precisions: bytes per element.
PRECISION_BYTES: dict[str, float] = {
    "fp32": 4.0,
    "tf32": 4.0,
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "int4": 0.5,
    "fp4": 0.5,
}

# Weight storage formats beyond the plain precisions: bits per parameter.
_NF4_BITS = 4 + 32 / 64  # 4.5: NF4 with fp32 absmax per 64-block
_NF4_DQ_BITS = 4 + 8 / 64 + 32 / (64 * 256)  # 4.127: NF4 with double quantisation
_MXFP4_BITS = 4 + 8 / 32  # 4.25: FP4 E2M1 with one E8M0 scale per 32-element block
_GROUP_RE = re.compile(r"^int4-g(\d+)$")

WEIGHT_FORMATS: tuple[str, ...] = tuple(PRECISION_BYTES) + ("nf4", "nf4-dq", "mxfp4", "int4-g128", "int4-g64", "int4-g32")
# "as the published checkpoint stores it" (its config's quantization_config; 16-bit when it has none).
CHECKPOINT_WEIGHT_FORMAT = "checkpoint"
WEIGHT_FORMAT_CHOICES: tuple[str, ...] = (CHECKPOINT_WEIGHT_FORMAT,) + WEIGHT_FORMATS


def precision_bytes(field: str, precision: str) -> float:
    """Bytes per element of a compute/activation/KV precision (``"bf16"`` -> 2.0).

    Raises:
        SizingError: unknown precision name.
    """
    key = precision.lower() if isinstance(precision, str) else precision
    if key not in PRECISION_BYTES:
        raise SizingError(field, _("unknown precision {precision!r}; use one of {names}.").format(
            precision=precision, names=", ".join(PRECISION_BYTES)))
    return PRECISION_BYTES[key]


def weight_bits_per_param(fmt: str) -> float:
    """Bits each stored weight costs in ``fmt``, quantisation constants included.

    ``"bf16"`` -> 16, ``"nf4-dq"`` -> 4.127 (QLoRA), ``"int4-g128"`` -> 4.156 (GPTQ/AWQ group 128: an fp16 scale
    and a 4-bit zero point per group, the zeros packed eight to an int32 like the weights: ``qzeros`` of shape
    (in / group, out / 8) int32 beside ``scales`` (in / group, out) fp16 in vLLM's
    ``vllm/model_executor/layers/quantization/awq.py`` and ``gptq.py`` ``create_weights``; Llama 3.1 70B AWQ
    INT4 checkpoints are ~39.8 GB), ``"int4"`` -> 4 (no constants counted).

    Raises:
        SizingError: unknown format, or a group size that is not a positive whole number.
    """
    key = fmt.lower() if isinstance(fmt, str) else fmt
    if key in PRECISION_BYTES:
        return PRECISION_BYTES[key] * 8
    if key == "nf4":
        return _NF4_BITS
    if key == "nf4-dq":
        return _NF4_DQ_BITS
    if key == "mxfp4":
        return _MXFP4_BITS
    if isinstance(key, str) and canonical_file_type(key):
        return file_type_bits_per_weight(key)  # llama.cpp GGUF quant names (q4_k_m, iq4_xs, q8_0 ...)
    match = _GROUP_RE.match(key) if isinstance(key, str) else None
    if match:
        group = int(match.group(1))
        if group <= 0:
            raise SizingError("weight_format", _("group size must be positive in {format!r}.").format(format=fmt))
        return 4 + (16 + 4) / group
    raise SizingError("weight_format", _("unknown weight format {format!r}; use one of {names}, int4-gN or a GGUF "
                                         "type (q4_k_m, q5_k_s, iq4_xs, q8_0 ...).").format(
        format=fmt, names=", ".join(WEIGHT_FORMATS)))


def compute_precision_of(fmt: str) -> str:
    """The tensor-core precision a weight format computes in.

    ``int8`` and ``fp8`` are taken as weights-and-activations formats (W8A8, e.g. SmoothQuant / FP8 serving) that
    run on INT8/FP8 tensor cores; group-wise INT4 and NF4 are weight-only and dequantise to 16-bit -> ``"bf16"``.
    """
    key = fmt.lower()
    if key in ("fp8", "int8", "fp4", "fp32", "tf32", "fp16", "bf16"):
        return key
    if key == "int4":
        return "int4"
    return "bf16"


def weight_format_source(fmt: str) -> str:
    """The publication that fixes the size of weight format ``fmt`` (shown next to the weights assumption)."""
    key = fmt.lower()
    if key in ("nf4", "nf4-dq"):
        return "QLoRA paper (NF4, double quantisation; arXiv 2305.14314)"
    if key == "mxfp4":
        return "OCP Microscaling (MX) spec v1.0: FP4 + one E8M0 scale per 32 values"
    if canonical_file_type(key):
        return "llama.cpp tools/quantize/quantize.cpp QUANT_OPTIONS (GiB at Llama-3-8B -> bits per weight)"
    if key.startswith("int4-g"):
        return "GPTQ (arXiv 2210.17323) / AWQ (arXiv 2306.00978): one fp16 scale and zero per group"
    if key in ("fp8", "fp4"):
        return "OCP 8-bit floating point spec (FP8 E4M3/E5M2)" if key == "fp8" else "one 4-bit value per weight"
    return _("{format}: {bytes:g} bytes per weight").format(format=key, bytes=PRECISION_BYTES.get(key, 2.0))
