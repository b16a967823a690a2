"""The OOM doctor's fixes in the terms of the Ascend and Intel GPU stacks (issue 32).

The rules write their fixes for CUDA builds of PyTorch; torch_npu (Ascend Extension for PyTorch) and PyTorch's
XPU backend port the same caching allocator and tools under other names, so the advice carries over once the
names are swapped:

* Ascend (``platform == "npu"``): ``PYTORCH_NPU_ALLOC_CONF`` takes the allocator options of
  ``PYTORCH_CUDA_ALLOC_CONF`` (``expandable_segments:True``, ``max_split_size_mb``; Ascend Extension for PyTorch,
  "Memory management" environment variables), ``torch.npu.*`` mirrors ``torch.cuda.*``, ``npu-smi info`` lists
  the NPUs and their processes, ``ASCEND_RT_VISIBLE_DEVICES`` picks devices and ``ASCEND_LAUNCH_BLOCKING=1``
  makes launches synchronous (CANN environment variable reference).
* Intel GPUs (``platform == "xpu"``): ``torch.xpu.*``, ``xpu-smi`` (Intel XPU Manager) and
  ``ZE_AFFINITY_MASK`` (Level Zero's device selection).
* Intel Gaudi (Habana) HPUs (``platform == "hpu"``): the Gaudi PyTorch bridge (habana_frameworks.torch) registers
  ``torch.hpu`` with the memory calls of ``torch.cuda`` (``torch.hpu.memory_allocated()``, ``max_memory_allocated()``,
  ``memory_stats()``; Intel Gaudi docs, PyTorch "Memory Stats APIs"); ``hl-smi`` is the card's nvidia-smi (its table
  lists each AIP's compute processes; ``hl-smi -Q memory.total,memory.used -f csv`` queries fields; Intel Gaudi docs,
  "System Management Interface Tool (hl-smi)") and ``HABANA_VISIBLE_MODULES`` picks the cards a process opens
  (Intel Gaudi docs, "Multiple Workloads on a Single Docker"; ``HABANA_VISIBLE_DEVICES`` is the container runtime's
  choice of cards for a whole container). The bridge has no ``PYTORCH_CUDA_ALLOC_CONF``: fixes and checks that name
  it are left out.
* TPUs (``platform == "tpu"``): no nvidia-smi; a TPU VM's chips are the ``/dev/accel*`` devices, one process at a
  time, and ``sudo lsof -w /dev/accel*`` lists the process that holds them (Cloud TPU docs, troubleshooting "TPU in
  use by another process"). The memory query is the framework's own: JAX's ``jax.Device.memory_stats()``
  (docs.jax.dev, ``jax.Device``: ``bytes_in_use``, ``peak_bytes_in_use``, ``bytes_limit``) or PyTorch/XLA's
  ``xm.get_memory_info(xm.xla_device())`` (pytorch.org/xla, ``torch_xla.core.xla_model.get_memory_info``: bytes
  used and the device's limit). ``TPU_VISIBLE_CHIPS`` picks the chips a process opens (Cloud TPU docs, "run
  multiple processes on a TPU VM").
"""

from __future__ import annotations

from gpudesk import i18n
from gpudesk.catalog.device_terms import GPU_TERM, device_term, in_device_terms
from gpudesk.i18n import N_
from gpudesk.oom.cause import Cause
from gpudesk.oom.report import MemoryReport
from gpudesk.oom.rules.fragmentation import CUDA_ALLOC_CONF
from gpudesk.oom.rules.preallocation import names_torch_xla

NPU_ALLOC_CONF = N_("PYTORCH_NPU_ALLOC_CONF=expandable_segments:True (torch_npu, Ascend)")

# CUDA name -> the stack's name, most specific first (commands and identifiers are never translated).
_TERMS: dict[str, tuple[tuple[str, str], ...]] = {
    "npu": (("nvidia-smi --query-compute-apps=pid,used_memory --format=csv", "npu-smi info"),
            ("nvidia-smi --query-gpu=memory.total,memory.used --format=csv", "npu-smi info -t usages -i <N>"),
            ("nvidia-smi -q -d ECC", "npu-smi info -t health -i <N>"),
            ("nvidia-smi", "npu-smi"),
            ("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_NPU_ALLOC_CONF"), ("CUDA_VISIBLE_DEVICES", "ASCEND_RT_VISIBLE_DEVICES"),
            ("CUDA_LAUNCH_BLOCKING", "ASCEND_LAUNCH_BLOCKING"), ("torch.cuda.", "torch.npu."), ("CUDA graphs", "ACL graphs")),
    "xpu": (("nvidia-smi --query-compute-apps=pid,used_memory --format=csv", "xpu-smi ps"),
            ("nvidia-smi", "xpu-smi"), ("CUDA_VISIBLE_DEVICES", "ZE_AFFINITY_MASK"), ("torch.cuda.", "torch.xpu.")),
    "hpu": (("nvidia-smi --query-compute-apps=pid,used_memory --format=csv", "hl-smi"),
            ("nvidia-smi --query-gpu=memory.total,memory.used --format=csv", "hl-smi -Q memory.total,memory.used -f csv"),
            ("nvidia-smi --query-gpu=memory.used,memory.total --format=csv", "hl-smi -Q memory.used,memory.total -f csv"),
            ("nvidia-smi", "hl-smi"), ("CUDA_VISIBLE_DEVICES", "HABANA_VISIBLE_MODULES"), ("torch.cuda.", "torch.hpu."),
            ("CUDA graphs", "HPU graphs")),
}
# Platforms whose PyTorch build has no PYTORCH_CUDA_ALLOC_CONF nor a renamed one: advice naming it is dropped.
_NO_ALLOC_CONF = ("hpu",)
JAX_TPU_MEMORY = 'python -c "import jax; print(jax.devices()[0].memory_stats())"'
TORCH_XLA_TPU_MEMORY = ('python -c "import torch_xla.core.xla_model as xm; '
                        'print(xm.get_memory_info(xm.xla_device()))"')


def _tpu_terms(text: str) -> tuple[tuple[str, str], ...]:
    """The TPU's terms, with the memory query of the framework the text runs (PyTorch/XLA or JAX)."""
    memory = TORCH_XLA_TPU_MEMORY if names_torch_xla(text) else JAX_TPU_MEMORY
    return (("nvidia-smi --query-compute-apps=pid,used_memory --format=csv", "sudo lsof -w /dev/accel*"),
            ("nvidia-smi --query-gpu=memory.total,memory.used --format=csv", memory),
            ("nvidia-smi --query-gpu=memory.used,memory.total --format=csv", memory),
            ("CUDA_VISIBLE_DEVICES", "TPU_VISIBLE_CHIPS"))


def _swap(text: str, platform: str, alloc_conf: str | None, terms: tuple[tuple[str, str], ...] = ()) -> str:
    if alloc_conf is not None:
        text = text.replace(i18n._(CUDA_ALLOC_CONF), alloc_conf)
    for cuda, theirs in terms or _TERMS[platform]:
        text = text.replace(cuda, theirs)
    return text


def apply(report: MemoryReport, causes: list[Cause]) -> None:
    """Rewrite the fixes, further fixes, checks and the deciding check's command of ``causes`` in place for an
    Ascend, Intel GPU, Gaudi or TPU report."""
    platform = report.platform or ""
    if platform == "tpu":
        terms = _tpu_terms(report.text or "")
        for cause in causes:
            cause.checks = [_swap(c, platform, None, terms) for c in cause.checks]
            command = cause.evidence.get("check_command")
            if isinstance(command, str):
                cause.evidence["check_command"] = _swap(command, platform, None, terms)
        return
    if platform not in _TERMS:
        return
    alloc_conf = i18n._(NPU_ALLOC_CONF) if platform == "npu" else None
    for cause in causes:
        if platform in _NO_ALLOC_CONF:
            cause.more_fixes = [m for m in cause.more_fixes if "PYTORCH_CUDA_ALLOC_CONF" not in m]
            cause.checks = [c for c in cause.checks if "PYTORCH_CUDA_ALLOC_CONF" not in c]
        cause.fix = _swap(cause.fix, platform, alloc_conf)
        cause.more_fixes = [_swap(m, platform, alloc_conf) for m in cause.more_fixes]
        cause.checks = [_swap(c, platform, alloc_conf) for c in cause.checks]
        command = cause.evidence.get("check_command")
        if isinstance(command, str):  # the deciding check's command ("Command to run"), as the checks say it
            cause.evidence["check_command"] = _swap(command, platform, None)


def name_the_device(report: MemoryReport, causes: list[Cause]) -> None:
    """Call the device what its vendor calls it in the causes' prose (title, explanation, fixes, checks): "HPU"
    for a Gaudi report, "NPU" for Ascend, "TPU" (:func:`gpudesk.catalog.device_terms.device_term`); a CUDA, ROCm or
    Intel GPU report keeps "GPU". Run after every other rewrite of the texts."""
    term = device_term(report.platform)
    if term == GPU_TERM:
        return
    for cause in causes:
        cause.title = in_device_terms(cause.title, term)
        cause.explanation = in_device_terms(cause.explanation, term)
        cause.fix = in_device_terms(cause.fix, term)
        cause.more_fixes = [in_device_terms(m, term) for m in cause.more_fixes]
        cause.checks = [in_device_terms(c, term) for c in cause.checks]
