"""Words that tell a cuDNN/cuBLAS handle failure from a lack of memory (issue 28, twenty-second pass).

``CUDNN_STATUS_NOT_INITIALIZED`` is what ``cudnnCreate`` returns both when it cannot allocate its handle's device memory
and when the library cannot start on this GPU and driver (a cuDNN built for other architectures, a CUDA runtime the
driver does not support; cuDNN API reference, ``cudnnCreate``). Two things in the text decide for the library:

* The failure does not depend on the job's size: it stays at batch size 1 ("even if reduced batch size to 1, still
  shows up this error", Turoad/CLRNet#24). The handle is created at the first cuDNN op, and at batch size 1 the job's
  own tensors leave that small allocation room; the thread's fix was the CUDA 11.1 build of PyTorch.
* The user varied or changed the installed versions: "I have tried many pytorch versions"
  (qubvel-org/segmentation_models.pytorch#287, solved by downgrading PyTorch), "改为 python3.8 后解决" ("solved after
  switching to Python 3.8", deepseek-ai/DeepSeek-VL#30: another set of wheels). The versions are the variable, not
  the memory.
"""

from __future__ import annotations

import re

_SIZE_INDEPENDENT = re.compile(
    r"\beven\s{1,3}(?:with|if|at|when|after)\b[^\n.;]{0,40}?\bbatch[ _-]?size\b[^\n.;]{0,12}?(?<![\d.])1\b"
    r"|\bbatch[ _-]?size\s{0,3}(?:of\s{1,3}|=\s{0,2}|to\s{1,3}|is\s{1,3})?1\b[^\n.;]{0,40}?\b(?:still|same error|"
    r"also fails?|does(?:n't| not) help|did(?:n't| not) help)\b"
    r"|batch[ _-]?size\s{0,3}(?:设为|设置为|设成|改为|改成|调为|调到|=)\s{0,2}1\s{0,3}(?:也|还|依然|仍然|照样)",
    re.IGNORECASE)
_VERSIONS_VARIED = re.compile(
    r"\b(?:tried|trying|try|tested)\s{1,3}(?:many|several|different|multiple|various|other|all)\s{1,3}"
    r"(?:(?:py)?torch|cuda|cudnn|python|driver)\s{1,3}versions?\b"
    r"|\b(?:downgrad|upgrad|switch|reinstall)\w{0,5}\s{1,3}(?:my\s{1,3}|the\s{1,3})?(?:py)?(?:torch|python|cuda|cudnn)"
    r"(?:\s{1,3}(?:to|from)\s{1,3}\d)?\b[^\n.;]{0,30}?\b(?:solved|fixed|works?|worked|resolved)\b"
    r"|(?:改为|改成|换成|换为|换到|切换到|切换为|降级到|降到|升级到|改用)\s{0,2}(?:py)?(?:python|torch|cuda|cudnn)\s{0,2}\d",
    re.IGNORECASE)

# Substrings one of _VERSIONS_VARIED's branches needs (lower-cased): a cheap test before the pattern runs.
_VERSION_WORDS = ("version", "downgrad", "upgrad", "switch", "reinstall", "改", "换", "切换", "降", "升")


def library_not_memory(text: str) -> bool:
    """The text says the handle failure does not depend on the job's size, or that the versions were what changed."""
    low = text.lower()
    return (("batch" in low and _SIZE_INDEPENDENT.search(text) is not None)
            or (any(w in low for w in _VERSION_WORDS) and _VERSIONS_VARIED.search(text) is not None))



# A PyTorch traceback through the backward pass: the user's ``loss.backward()`` (``torch.autograd.backward``, the
# ``Tensor.backward`` method, ``run_backward`` / ``_execution_engine.run_backward``, the autograd engine's entry). PyTorch
# keeps one cuDNN handle per device and thread (``aten/src/ATen/cudnn/Handle.cpp``: ``DeviceThreadHandlePool``) and the
# autograd engine runs the backward of CUDA ops on a thread of its own per device (``torch/csrc/autograd/engine.cpp``),
# which creates its handle at its first cuDNN op. A cuDNN op in backward is the backward of one the forward pass ran,
# so the forward thread's ``cudnnCreate`` had already worked with this library, driver and GPU: a handle refused there
# is the second handle failing with the forward's activations on the GPU, memory (seanie12/Info-HCVAE#7: the
# maintainer, "probably GPU memory; try a smaller batch size").
_BACKWARD_FRAME = re.compile(r"\.backward\(|\btorch\.autograd\.backward\b|\brun_backward\b|"
                             r"[\\/]torch[\\/]autograd[\\/]__init__\.py\"?, line \d{1,5}, in backward\b")


def failed_in_backward(text: str) -> bool:
    """The traceback goes through PyTorch's backward pass (``_BACKWARD_FRAME``): the forward's cuDNN ops had run."""
    return _BACKWARD_FRAME.search(text) is not None


# A failure said to happen at batch size 1, the job's smallest step ("cuda out of memory with bs=1", "OOM even at
# batch size 1"): the working set that a smaller batch would shrink is already at its least.
_AT_BATCH_ONE = re.compile(r"\b(?:with|at|even\s{1,3}at|even\s{1,3}with|for)\s{1,3}(?:a\s{1,3})?(?:bs|batch[ _-]?size)"
                           r"\s{0,3}(?:=|:|of)?\s{0,2}1(?![\d.])", re.IGNORECASE)


def fails_at_batch_one(text: str) -> bool:
    """The text says the failure happens at batch size 1 (``_AT_BATCH_ONE``, or ``_SIZE_INDEPENDENT``)."""
    return _AT_BATCH_ONE.search(text) is not None or (
        "batch" in text.lower() and _SIZE_INDEPENDENT.search(text) is not None)


# ColabFold's catch-all: every RuntimeError of a prediction is logged as "Could not predict NAME. Not Enough GPU memory?
# {e}" (colabfold/batch.py, "This normally happens on OOM. TODO: Filter for the specific OOM error message";
# https://github.com/sokrypton/ColabFold), so the question itself says nothing about memory; the exception after it
# does. Quoted with nothing after it, beside a user's word that the framework's or a library's version was changed
# ("When I degraded the jax, the code can run on GPU, but Not Enough GPU memory?", YoshitakaMo/localcolabfold#228,
# fixed by the cuDNN wheel that matches the jaxlib build), the version change is the only evidence in the text.
_GENERIC_QUESTION = re.compile(r"not enough gpu memory\?\s*$", re.IGNORECASE | re.MULTILINE)
_VERSION_CHANGED = re.compile(r"\b(?:downgrad|degrad|upgrad|reinstall)\w{0,5}\s{1,3}(?:the\s{1,3}|my\s{1,3})?"
                              r"(?:jax|jaxlib|cuda|cudnn|tensorflow|(?:py)?torch|driver)\b", re.IGNORECASE)


def version_changed_under_generic_question(text: str) -> bool:
    """ColabFold's memory question with no exception after it, beside a changed framework or library version."""
    return _GENERIC_QUESTION.search(text) is not None and _VERSION_CHANGED.search(text) is not None
