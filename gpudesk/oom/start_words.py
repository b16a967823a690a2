"""A failure at the very start of a job, before any batch, read from the traceback or the user's words (issue 28,
twenty-second pass).

A bare ``CUDA error: out of memory`` comes from a CUDA call outside PyTorch's caching allocator (which words its own
failures "Tried to allocate ..."). When it is raised while the model is being built, before any batch ran, that call is
the process's first use of the device: the CUDA context is created lazily there (``torch/cuda/__init__.py``,
``_lazy_init``; a context takes a few hundred MiB, CUDA C Programming Guide, "Initialization"), and the job's own
tensors cannot have filled the device yet. A context that cannot be had means the device is held by something else:
other jobs on a shared server, fixed by moving to a free GPU with ``CUDA_VISIBLE_DEVICES`` (amdegroot/ssd.pytorch#447,
the failure in ``nn.Conv2d.__init__`` under a CUDA default tensor type; MIC-DKFZ/nnUNet#359, "at the very beginning ...
in model initialization").

The marks read: a frame of a ``torch.nn`` module's constructor (``torch/nn/modules/<file>.py ... in __init__``), the
user's words for the model's construction or the very start of the run, and Darknet's layer table failing at its first
layer. Darknet prints the table's header ("layer     filters    size              input                output") and
then, for each layer of the .cfg, its index before it builds that layer (``parse_network_cfg`` in src/parser.c:
``fprintf(stderr, "%5d ", count)`` ahead of ``parse_convolutional`` and the other ``parse_*``, whose ``make_*_layer``
allocate the layer's device arrays with ``cuda_make_array``, src/cuda.c; https://github.com/pjreddie/darknet, and the
AlexeyAB fork's src/parser.c does the same). "    0 CUDA Error: out of memory" under the header is therefore the
first layer's first device array: the network's first CUDA allocation, which also creates the context
(pjreddie/darknet#304: detection on one image failing at layer 0 on an 11 GB card; a reboot freed the GPU). A
failure at a later index ("102 CUDA Error: out of memory") is the network's own size and is not read so.
"""

from __future__ import annotations

import re

_MODULE_CONSTRUCTOR = re.compile(r"torch[/\\]nn[/\\]modules[/\\]\w{1,40}\.py\", line \d{1,7}, in __init__\s*$",
                                 re.MULTILINE)
_AT_START = re.compile(
    r"\b(?:in|during|while|when)\s{1,3}(?:the\s{1,3})?model\s{1,3}initiali[sz]ation\b"
    r"|\b(?:while|when)\s{1,3}(?:building|constructing|creating|initiali[sz]ing)\s{1,3}(?:the\s{1,3})?(?:model|network)\b"
    r"|\bat\s{1,3}the\s{1,3}very\s{1,3}(?:beginning|start)\b|\bright\s{1,3}at\s{1,3}the\s{1,3}(?:beginning|start)\b"
    r"|\bbefore\s{1,3}(?:the\s{1,3})?(?:first|any)\s{1,3}(?:batch|iteration|step|epoch)\b"
    r"|模型初始化(?:时|的时候|阶段)|(?:一|刚)开始(?:运行)?就(?:报错|出错|报)",
    re.IGNORECASE)


# Darknet's layer table with the error on its first layer's line (module docstring).
_DARKNET_FIRST_LAYER = re.compile(r"^\s{0,8}layer\s{1,8}filters\b[^\n]{0,200}\n\s{0,8}0\s{1,4}CUDA\s{1,3}(?:status\s{1,3})?"
                                  r"Error\b[^\n]{0,20}?out of memory", re.IGNORECASE | re.MULTILINE)


# Substrings one of the marks needs (lower-cased): a cheap test before the patterns run over a long log.
_NEEDS = ("__init__", "initiali", "building", "constructing", "creating", "very beginning", "very start",
          "right at the", "before the", "before any", "初始化", "开始", "filters")


def failed_at_start(text: str) -> bool:
    """The failure came while the model was built or at the very start of the run (module docstring)."""
    low = text.lower()
    if not any(w in low for w in _NEEDS):
        return False
    return (_MODULE_CONSTRUCTOR.search(text) is not None or _AT_START.search(text) is not None
            or _DARKNET_FIRST_LAYER.search(text) is not None)
