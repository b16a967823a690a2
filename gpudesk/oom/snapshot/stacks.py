"""Read stacks: the frame that names an allocation, and what kind of memory it is.

Snapshot stacks list the innermost frame first; with ``stacks="all"`` they mix C++ frames (``line`` 0,
``.cpp`` or ``??`` files) with Python frames. The frame that names an allocation is the innermost Python
frame outside PyTorch's own package (the user's code), else the innermost Python frame.

Categories follow the parts of a training step's memory (the Plan tab's memory account: parameters,
gradients, optimizer state, activations), read from the PyTorch modules on the stack:
``torch/optim/`` -> optimizer state; ``torch/autograd/`` backward entry points -> gradients (and the
temporaries of backward); ``Module._apply`` / ``.to`` / ``.cuda`` / parameter initialisation -> parameters;
``Module._call_impl`` (a forward call) -> activations. Anything else is "other"; no stack is "unknown".
"""

from __future__ import annotations

from gpudesk.oom.snapshot.model import Frame, Stack

CATEGORIES = ("parameters", "optimizer_state", "gradients", "activations", "other", "unknown")

_PARAM_FUNCS = {"_apply", "to", "cuda", "reset_parameters", "load_state_dict", "_load_from_state_dict",
                "from_pretrained", "__init__"}


def python_frames(stack: Stack) -> list[Frame]:
    return [f for f in stack if f.is_python]


# C++ frames of the stack unwinder and the allocator itself, skipped when a stack has no Python frame
# (the same idea as the frame filter of torch/cuda/_memory_viz.py).
_CPP_NOISE = ("unwind", "CapturedTraceback", "gather", "CUDACachingAllocator", "c10::", "at::detail::",
              "empty_strided", "at::_ops::", "wrap_kernel_functor", "Register", "_PyEval", "PyObject_")


def naming_frame(stack: Stack) -> Frame | None:
    """The innermost user (non-torch) Python frame, else the innermost Python frame, else the innermost C++
    frame that is neither the unwinder nor the allocator (an ``at::native`` operator when there is one)."""
    py = python_frames(stack)
    for f in py:
        if not _torch_file(f.filename):
            return f
    if py:
        return py[0]
    cpp = [f for f in stack if not any(n in f.name for n in _CPP_NOISE)]
    for f in cpp:
        if "at::native::" in f.name or "autograd" in f.name:
            return f
    if cpp:
        return cpp[0]
    return stack[0] if stack else None


def _torch_file(filename: str) -> bool:
    norm = filename.replace("\\", "/")
    return "/torch/" in norm or norm.startswith("torch/") or "/site-packages/" in norm or "/dist-packages/" in norm


MAX_LABEL_CHARS = 160


def stack_label(stack: Stack) -> str:
    """``file:line function`` of the naming frame, at most 160 characters ("" for no stack)."""
    frame = naming_frame(stack)
    if frame is None:
        return ""
    text = frame.label()
    return text if len(text) <= MAX_LABEL_CHARS else text[: MAX_LABEL_CHARS - 1] + "…"


def category(stack: Stack) -> str:
    """One of :data:`CATEGORIES` for an allocation made with ``stack``."""
    if not stack:
        return "unknown"
    paths = [(f.filename.replace("\\", "/"), f.name) for f in stack if f.is_python]
    if any("/torch/optim/" in p for p, _n in paths):
        return "optimizer_state"
    if any("/torch/autograd/" in p and n in {"backward", "_engine_run_backward", "grad"} for p, n in paths):
        return "gradients"
    if any("/torch/nn/" in p and n in _PARAM_FUNCS for p, n in paths) or any(
        n in {"reset_parameters", "from_pretrained"} for _p, n in paths
    ):
        return "parameters"
    if any("/torch/nn/modules/module.py" in p and n in {"_call_impl", "_wrapped_call_impl", "__call__"}
           for p, n in paths):
        return "activations"
    if not paths:
        # C++-only stacks: the autograd engine's thread runs backward
        if any("autograd::Engine" in f.name or "evaluate_function" in f.name for f in stack):
            return "gradients"
        return "other"
    return "other"
