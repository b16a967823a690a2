"""The "Also check" list in the terms of the report's framework when that framework is not PyTorch.

The rules word their checks for PyTorch (``torch.no_grad()``, ``torch.cuda.memory_allocated()``, ``python -c "import
torch; ..."``). A TensorFlow, JAX, PaddlePaddle, CuPy ... program has none of these calls, so for such a report
(``report.framework``, the ids of :data:`gpudesk.oom.labels.RUNTIME_NAMES`) each check is rewritten where the
framework has the same call, and dropped where it has none. Commands and calls are never translated, so the rewrite
works on the translated sentences too.

The framework's own calls, from each one's documentation:
  TensorFlow: ``tf.config.experimental.get_memory_info(device)`` returns {'current', 'peak'} bytes (TF 2.5+);
    ``tf.sysconfig.get_build_info()`` holds 'cuda_version' and 'cudnn_version' (TF 2.3+).
  JAX: ``Device.memory_stats()`` returns the allocator's counters, 'bytes_in_use' among them;
    ``jax.print_environment_info()`` prints jax, jaxlib, the CUDA/cuDNN it was built with and nvidia-smi.
  PaddlePaddle: ``paddle.device.cuda.memory_allocated()`` (2.3+); ``paddle.version.cuda()`` / ``paddle.version.cudnn()``.
  CuPy: ``cupy.get_default_memory_pool().used_bytes()``; ``cupy.cuda.runtime.runtimeGetVersion()``.
A framework without an entry gets the GPU's used memory from nvidia-smi instead of an allocator counter.

The preallocation check (:data:`gpudesk.oom.signatures.CHECKS` "preallocation") names JAX's and TensorFlow's
switches together; for a report whose framework has its own switch, only that one is shown:
  TensorFlow: ``TF_FORCE_GPU_ALLOW_GROWTH=true`` (tensorflow.org/guide/gpu, "Limiting GPU memory growth").
  JAX: ``XLA_PYTHON_CLIENT_PREALLOCATE=false`` (docs.jax.dev, "GPU memory allocation").
  PaddlePaddle: ``FLAGS_allocator_strategy=auto_growth`` (:data:`gpudesk.oom.signatures.PADDLE_PREALLOCATION_COMMAND`).
"""

from __future__ import annotations

import re

from gpudesk.i18n import _
from gpudesk.oom.cause import Cause
from gpudesk.oom.report import MemoryReport
from gpudesk.oom.rules import preallocation
from gpudesk.oom.signatures import CHECKS, PADDLE_PREALLOCATION_COMMAND

# Report frameworks that are not PyTorch underneath. Engines and UIs built on PyTorch (vLLM, SGLang, TGI, ComfyUI,
# the SD web UI, diffusers) keep PyTorch's checks; NCCL, TensorRT-LLM and Triton run under PyTorch as often as not.
NOT_PYTORCH = ("tensorflow", "jax", "xla", "cudajl", "cupy", "numba", "jcuda", "mlx", "paddle", "mxnet", "catboost",
               "ctranslate2", "ggml", "llamacpp", "ollama", "onnxruntime", "tensorrt", "mlc", "neuron", "faiss",
               "taichi", "amrex", "opencv")

# framework -> (memory in use, one line that prints the CUDA version it was built with, the same for cuDNN or None)
_CALLS: dict[str, tuple[str, str, str | None]] = {
    "tensorflow": ("tf.config.experimental.get_memory_info('GPU:0')['current']",
                   "python -c \"import tensorflow as tf; print(tf.sysconfig.get_build_info()['cuda_version'])\"",
                   "python -c \"import tensorflow as tf; print(tf.sysconfig.get_build_info()['cudnn_version'])\""),
    "jax": ("jax.devices()[0].memory_stats()['bytes_in_use']",
            "python -c \"import jax; jax.print_environment_info()\"", None),
    "paddle": ("paddle.device.cuda.memory_allocated()",
               "python -c \"import paddle; print(paddle.version.cuda())\"",
               "python -c \"import paddle; print(paddle.version.cudnn())\""),
    "cupy": ("cupy.get_default_memory_pool().used_bytes()",
             "python -c \"import cupy; print(cupy.cuda.runtime.runtimeGetVersion())\"", None),
}
_CALLS["xla"] = _CALLS["jax"]  # XLA outside PyTorch/XLA (see framework_of) is JAX's

# framework -> the switch that turns its up-front pool off (the module's docstring gives the sources)
_PREALLOCATION_OFF = {"tensorflow": "TF_FORCE_GPU_ALLOW_GROWTH=true", "jax": "XLA_PYTHON_CLIENT_PREALLOCATE=false",
                      "xla": "XLA_PYTHON_CLIENT_PREALLOCATE=false", "paddle": PADDLE_PREALLOCATION_COMMAND}
_GENERIC_PREALLOCATION = CHECKS["preallocation"].command

_TORCH_MEMORY_CALL = re.compile(r"torch\.cuda\.memory_allocated\(\)")
_TORCH_CUDA_VERSION = re.compile(r"python -c \"import torch; print\(torch\.version\.(?:cuda|hip)\)\"")
_TORCH_CUDNN_VERSION = re.compile(r"python -c \"import torch; print\(torch\.backends\.cudnn\.version\(\)\)\"")
_COMMAND_SEPARATOR = re.compile(r"(?:;\s*){2,}")
_DANGLING_SEPARATOR = re.compile(r"(?:;\s*)+(?=[:：]|$)")  # before the check's colon (English or Chinese) or at the end
_PYTORCH_ONLY = re.compile(r"torch|autocast|\.half\(\)|\.item\(\)|PYTORCH_\w*ALLOC_CONF|expandable_segments|"
                           r"max_split_size|empty_cache", re.IGNORECASE)
_NVIDIA_SMI_USED = "nvidia-smi --query-gpu=memory.used --format=csv -l 5"


def needs_pytorch(text: str) -> bool:
    """``text`` names a PyTorch call, setting or variable (``_PYTORCH_ONLY``)."""
    return bool(_PYTORCH_ONLY.search(text))


def framework_of(report: MemoryReport) -> str | None:
    """The report's framework when it is not PyTorch (:data:`NOT_PYTORCH`), else None."""
    framework = report.framework
    if framework == "xla" and preallocation.names_torch_xla(report.text or ""):
        return None  # PyTorch/XLA: torch's own calls apply
    return framework if framework in NOT_PYTORCH else None


def in_framework_terms(check: str, framework: str) -> str | None:
    """``check`` with PyTorch's calls (and the generic preallocation switches) replaced by ``framework``'s; None when
    it still needs PyTorch."""
    memory, cuda_version, cudnn_version = _CALLS.get(framework, (None, None, None))
    if framework in _PREALLOCATION_OFF:
        check = check.replace(_GENERIC_PREALLOCATION, _PREALLOCATION_OFF[framework])
    text = _TORCH_MEMORY_CALL.sub(memory if memory else _NVIDIA_SMI_USED, check)
    text = _TORCH_CUDA_VERSION.sub(cuda_version or "", text)
    text = _TORCH_CUDNN_VERSION.sub(cudnn_version or "", text)
    text = _DANGLING_SEPARATOR.sub("", _COMMAND_SEPARATOR.sub("; ", text))
    return None if _PYTORCH_ONLY.search(text) else text


def apply(report: MemoryReport, causes: list[Cause]) -> None:
    """Rewrite every cause's checks for a non-PyTorch report (see the module's docstring); PyTorch's are kept."""
    framework = framework_of(report)
    if framework is None:
        return
    for cause in causes:
        command = cause.evidence.get("check_command")
        if isinstance(command, str):  # the deciding check's command, shown beside the checks ("Command to run")
            rewritten = in_framework_terms(command, framework)
            if rewritten:
                cause.evidence["check_command"] = rewritten
            else:  # PyTorch's alone (unset PYTORCH_CUDA_ALLOC_CONF): nothing this program can run, so not shown
                del cause.evidence["check_command"]
        checks = [in_framework_terms(check, framework) for check in cause.checks]
        cause.checks = [check for check in checks if check]
        if cause.id == "genuine_shortage" and len(cause.checks) < len(checks) and framework in _CALLS:
            cause.checks.append(_("Log {call} at the start of every step: a steady rise is memory kept from step "
                                  "to step (results collected on the GPU); a failure at the first step is the "
                                  "step's own need.").format(call=_CALLS[framework][0]))
