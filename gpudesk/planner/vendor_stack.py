"""Stack filters and warnings for accelerators that do not run CUDA (issue 32).

The facts come from the catalog's ``software_stacks`` table (one row per architecture, each with its source: the
vLLM-Ascend repository, AMD's ROCm compatibility matrix, Intel's Gaudi support matrix, Cambricon's torch_mlu):
which frameworks have a backend, what PyTorch runs through (torch_npu, ROCm wheels, the HPU bridge, torch_mlu),
which attention kernels exist in place of Dao-AILab FlashAttention, and which serving engines support the part.
A requirement's framework with no backend rules the card out; the rest are warnings a buyer needs before a quote.
"""

from __future__ import annotations

from gpudesk.catalog.records import GPU, SoftwareStack
from gpudesk.i18n import _
from gpudesk.planner.requirement import Requirement


def stacks_by_architecture(stacks: list[SoftwareStack]) -> dict[str, SoftwareStack]:
    """The catalog's stack rows keyed by architecture name."""
    return {s.architecture: s for s in stacks}


def stack_name(gpu: GPU, stack: SoftwareStack | None) -> str:
    """The software the card runs instead of CUDA (the catalog's row, else "<vendor> software")."""
    if stack is not None:
        return stack.stack
    return _("{vendor} software").format(vendor=gpu.vendor)


def stack_gates(gpu: GPU, req: Requirement, stack: SoftwareStack | None) -> tuple[list[str], list[str]]:
    """(rejection reasons, warnings) from the card's vendor stack; empty for CUDA cards and unknown stacks."""
    if stack is None:
        return [], []
    reasons: list[str] = []
    warnings: list[str] = []
    framework = req.software.framework.strip().lower()
    if framework and stack.frameworks and framework not in stack.frameworks:
        reasons.append(_("{gpu} has no {framework} backend: {stack} supports {frameworks} (catalog software_stacks, "
                         "{url})").format(gpu=gpu.name, framework=req.software.framework, stack=stack.stack,
                                          frameworks=", ".join(stack.frameworks), url=stack.source_url))
        return reasons, warnings
    # The catalog's stack texts are data (English), inserted as they are.
    warnings.append(_("{gpu} runs {stack}, not CUDA: PyTorch through {backend}; needs {version}. Check that every "
                      "library in the stack has a port ({url}).").format(
        gpu=gpu.name, stack=stack.stack, backend=stack.pytorch_backend,
        version=stack.min_stack_version or _("a matching stack release"), url=stack.source_url))
    if req.model.mode == "inference" or any("vllm" in lib.lower() or "sglang" in lib.lower()
                                            for lib in req.software.libraries):
        warnings.append(_("Serving on {architecture}: {engines}").format(architecture=gpu.architecture,
                                                                        engines=stack.serving_engines))
    if getattr(req.model, "flash_attention", False) or any("flash" in lib.lower() for lib in req.software.libraries):
        warnings.append(_("FlashAttention on {architecture}: {kernels}").format(architecture=gpu.architecture,
                                                                               kernels=stack.flash_attention))
    if stack.notes:
        warnings.append(_("{architecture} stack note: {note}").format(architecture=gpu.architecture, note=stack.notes))
    return reasons, warnings
