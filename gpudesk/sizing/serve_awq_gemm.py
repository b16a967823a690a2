"""Which kernel vLLM runs the dense linears of an AWQ checkpoint through on NVIDIA GPUs, and what the plain one costs.

Kernel choice (read at the upstream release tags, in the ROCm/vllm mirror of vllm-project/vllm, which carries them):

- ``awq_marlin`` came with vllm-project/vllm PR 6612 ("[Kernel][Core] Add AWQ support to the Marlin kernel",
  commit 396d92d5e), first released in v0.5.3 (2024-07-23): ``vllm/model_executor/layers/quantization/
  awq_marlin.py`` is absent at v0.5.2 and present at v0.5.3. Before that release every AWQ checkpoint ran the plain
  AWQ kernels (``awq.py``).
- From v0.5.3 on, ``AWQMarlinConfig.override_quantization_method`` takes over an AWQ checkpoint only when the user
  chose no method or ``marlin`` (v0.5.3: ``is_valid_user_quant = (user_quant is None or user_quant == "marlin")``;
  v0.6.3 adds ``"awq_marlin"``); an explicit ``--quantization awq`` keeps the plain kernels ("you specified
  quantization=awq explicitly, so forcing awq"). Marlin needs compute capability 8.0 or later
  (``AWQMarlinConfig.get_min_capability`` 80, ``check_marlin_supported``): an older GPU runs the plain kernels.

What the plain kernels cost here. ``AWQLinearMethod.apply`` (``awq.py``, v0.3.0 to today) sends a call of 256
token rows or more (``FP16_MATMUL_HEURISTIC_CONDITION = x.shape[:-1].numel() >= 256``) to ``ops.awq_dequantize``,
which writes the whole FP16 weight matrix, and then ``torch.matmul`` on it; below 256 rows it runs ``ops.awq_gemm``.
Beyond the 4-bit read the model already charges, such a step writes 2 bytes per weight and reads them back: 4
bytes per weight of the quantized linears at the HBM rate, the same charge as vLLM's ROCm ``gptq_gemm``
(:mod:`gpudesk.sizing.serve_rocm_gptq`). v0.2.x had no such switch (``awq_gemm`` at every size); its prompt steps
are not modelled here.

Below 256 rows ``awq_gemm`` (``csrc/quantization/awq/gemm_kernels.cu``, the llm-awq GEMM kernel: 16-row m-tiles,
``split_k_iters`` 8, no asynchronous copy pipeline) streams the 4-bit weights. The one figure found for that kernel
at decode sizes is on Ada: AutoAWQ 0.1.6's README (casper-hansen/AutoAWQ at 027758d, RTX 4090, the same "GEMM"
kernel, fused modules, batch 1, 64 tokens in and out) decodes Mistral-7B at 156.3 tokens/s and CodeLlama-34B at
41.0 tokens/s; with ~4.15 GB and ~18.3 GB read per token (the 4-bit linears with their group scales plus the 16-bit
embeddings) the two give ~0.79 TB/s for the weights (78 % of the 1.008 TB/s datasheet figure, below the 86.6 %
STREAM share the model charges elsewhere) and ~1.1 ms per token of the rest; Mistral-7B at batch 8 takes 6.75 ms a
step against 6.40 ms at batch 1 (one 16-row tile). That share is charged for ``awq_gemm`` on Ada (compute capability
8.9) only. No figure for Ampere or Hopper was found (the Marlin README's A10 plot and vllm-project/vllm PR 6612's
awq vs awq_marlin results are images): there the 4-bit stream keeps the modelled HBM rate, as does Marlin's batch-1
stream (near-ideal 3.87x over FP16 at batch 1-32 on Ampere, IST-DASLab/marlin README at 2f6d7c1; "not yet optimized
for Hopper", no number).

Not applied: engines other than vLLM, AMD GPUs (no Marlin; vLLM's Triton AWQ kernels), formats other than AWQ.
"""

from __future__ import annotations

from gpudesk.sizing.engine_version import version_triple

AWQ_FORMATS = ("int4-awq", "awq")
AWQ_MARLIN_SINCE = (0, 5, 3)  # vllm-project/vllm PR 6612, first in v0.5.3
AWQ_DEQUANT_MATMUL_SINCE = (0, 3, 0)  # awq.py FP16_MATMUL_HEURISTIC_CONDITION, first in v0.3.0
AWQ_DEQUANT_ABOVE_TOKENS = 255  # x.shape[:-1].numel() >= 256 -> awq_dequantize + torch.matmul
AWQ_MARLIN_MIN_CAPABILITY = 8.0  # AWQMarlinConfig.get_min_capability() == 80
AWQ_DEQUANT_BYTES_PER_WEIGHT = 2.0 + 2.0  # FP16 write by awq_dequantize + FP16 read by torch.matmul
# vLLM ``--quantization`` values that choose a kernel for an AWQ checkpoint: ``awq`` forces the plain kernels,
# ``awq_marlin`` / ``marlin`` (or none) let Marlin take it where the GPU allows.
AWQ_QUANTIZATION_CHOICES = ("awq", "awq_marlin", "marlin")
PLAIN_AWQ_SOURCE = ("vLLM runs an AWQ checkpoint through the plain AWQ kernels when --quantization awq is given "
                    "(AWQMarlinConfig.override_quantization_method accepts only no choice / marlin / awq_marlin), "
                    "before v0.5.3 (awq_marlin: vllm-project/vllm PR 6612) and below compute capability 8.0; "
                    "awq.py AWQLinearMethod.apply: 256 token rows or more -> ops.awq_dequantize (FP16 weights "
                    "written) + torch.matmul, since v0.3.0 (https://github.com/vllm-project/vllm); awq_gemm at "
                    "decode sizes near the weight stream on RTX 4090: casper-hansen/AutoAWQ README at 027758d")


def plain_awq_kernel(engine: str, version: str | None, vendor: str, weight_format: str,
                     compute_capability: str | None, quantization: str | None) -> bool:
    """Whether ``engine`` at ``version`` runs the dense linears of an AWQ checkpoint (``weight_format``) on a GPU of
    ``vendor`` and ``compute_capability`` through the plain AWQ kernels rather than ``awq_marlin``, with the user's
    ``quantization`` choice (vLLM ``--quantization``; None: not given) (module docstring)."""
    if engine.lower() != "vllm" or vendor.upper() != "NVIDIA" or weight_format.lower() not in AWQ_FORMATS:
        return False
    if quantization is not None and quantization.lower() == "awq":
        return True
    release = version_triple(version)
    if release is not None and release < AWQ_MARLIN_SINCE:
        return True
    try:
        capability = float(compute_capability or 0)
    except ValueError:
        return False
    return 0 < capability < AWQ_MARLIN_MIN_CAPABILITY


def plain_awq_dequantizes(version: str | None) -> bool:
    """Whether vLLM at ``version`` sends plain-AWQ calls of 256 rows or more to dequantize + matmul (v0.3.0 on;
    None: the current release)."""
    release = version_triple(version)
    return release is None or release >= AWQ_DEQUANT_MATMUL_SINCE


# AutoAWQ 0.1.6 README (casper-hansen/AutoAWQ at 027758d), RTX 4090, GEMM kernel, batch 1, 64 tokens in / 64 out:
# decode tokens/s of Mistral-7B and CodeLlama-34B, and the bytes each reads per token (the 4-bit linears at 4.156
# bits with their group-128 scales, gpudesk.sizing.dtypes int4-g128, plus the 16-bit embeddings and LM head:
# Mistral-7B 6.98 G linear + 0.262 G embedding parameters, CodeLlama-34B 33.22 G + 0.524 G). The difference of the
# two step times over the difference of their bytes is the weight stream's rate, free of the per-token rest.
AUTOAWQ_RTX4090_DECODE = ((156.317, 4.150e9), (41.01, 18.31e9))  # (tokens/s, bytes per token)
RTX4090_BANDWIDTH_BYTES_PER_S = 1008e9  # NVIDIA Ada whitepaper, GeForce RTX 4090: 1008 GB/s
_SMALL, _LARGE = AUTOAWQ_RTX4090_DECODE
AWQ_GEMM_ADA_STREAM_SHARE = ((_LARGE[1] - _SMALL[1]) / (1 / _LARGE[0] - 1 / _SMALL[0])
                             / RTX4090_BANDWIDTH_BYTES_PER_S)  # ~0.78
AWQ_GEMM_MEASURED_CAPABILITY = 8.9  # Ada Lovelace: the one architecture measured


def plain_awq_stream_share(compute_capability: str | None) -> float:
    """Share of the datasheet bandwidth the plain ``awq_gemm`` streams its 4-bit weights at on a GPU of
    ``compute_capability``: the RTX 4090 figure on Ada (8.9); 0 elsewhere (the modelled HBM rate; nothing measured)."""
    try:
        capability = float(compute_capability or 0)
    except ValueError:
        return 0.0
    return AWQ_GEMM_ADA_STREAM_SHARE if capability == AWQ_GEMM_MEASURED_CAPABILITY else 0.0
