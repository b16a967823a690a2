"""vLLM's one-token FP8 skinny GEMM on AMD Instinct: which releases take it and which send the step to hipBLASLt.

The step model lets a one-token step of per-tensor FP8 dense linears on CDNA 3 / CDNA 4 skip hipBLASLt
(:data:`gpudesk.sizing.serve_rates.SKINNY_MAX_TOKENS`): vLLM hands such a GEMM to its skinny kernel ``wvSplitKQ``
when the activation matrix has exactly one row. Whether it does depends on the release, read in the ROCm fork of vLLM
(the builds of AMD's ``rocm/vllm`` images) at its release tags:

- up to v0.7.2+rocm (``vllm/model_executor/layers/quantization/utils/w8a8_utils.py`` ``apply_fp8_linear``) the
  per-tensor FP8 path calls ``torch._scaled_mm`` (hipBLASLt) whatever the token count, and the fork's
  ``tuned_gemm.py`` has no FP8 skinny kernel (``wvSpltKQ`` absent at v0.6.4, v0.6.6, v0.7.0, v0.7.2+rocm);
- v0.7.3+rocm adds ``TunedGemm.scaled_mm``, which takes ``wvSpltKQ`` only for ``inp.shape[0] == 1``, but
  ``apply_fp8_linear`` first quantizes the activations with ``num_token_padding=17`` ("we pad the input because
  torch._scaled_mm is more performant for matrices with batch dimension > 16"), so a one-token step arrives with 17
  rows and still runs ``torch._scaled_mm``;
- v0.8.2+rocm (``Fp8LinearOp.__init__``: ``pad_output = (not current_platform.is_rocm() and ...)``) stops padding
  on ROCm, so the one-row step reaches ``wvSpltKQ``; upstream vLLM gains the same kernel (``wvSplitKQ``,
  ``rocm_per_tensor_w8a8_scaled_mm``, ``qinput.shape[0] == 1``) with vllm-project/vllm PR 15830 (2025-04-21, in
  v0.8.5) and no padding on ROCm.

Before 0.8.2 a one-token FP8 step therefore pays what a larger step pays for its dense GEMMs (the hipBLASLt call's
excess and the thin-GEMM rate): the skinny limit is 0 tokens. A release string does not say whether it is the fork
or upstream; 0.8.2 - 0.8.4 are taken as the fork's (the AMD-published tables run its images). No version given keeps
the current behaviour (the skinny kernel).
"""

from __future__ import annotations

# First ROCm-fork release whose one-token per-tensor FP8 GEMM reaches the skinny kernel (module docstring).
FP8_SKINNY_SINCE = (0, 8, 2)
FP8_SKINNY_SOURCE = (
    "one-token FP8 skinny GEMM on ROCm from vLLM 0.8.2: ROCm/vllm tags v0.6.4-v0.7.3+rocm "
    "w8a8_utils.py apply_fp8_linear pads the activations to 17 rows (num_token_padding=17) before "
    "torch._scaled_mm / tuned_gemm scaled_mm, v0.8.2+rocm Fp8LinearOp stops padding on ROCm so wvSpltKQ takes a "
    "one-row step (https://github.com/ROCm/vllm); upstream wvSplitKQ: vllm-project/vllm PR 15830")


def fp8_skinny_available(release: tuple[int, int, int] | None) -> bool:
    """Whether a one-token per-tensor FP8 GEMM of this vLLM ``release`` runs the skinny kernel (module docstring);
    True where no release is given."""
    return release is None or release >= FP8_SKINNY_SINCE
