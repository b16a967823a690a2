"""An inference or evaluation loop that failed after many items of the same work (part of ``leak``).

A loop over images, frames or files runs one item's work at a time: each item needs the same kind of memory, and
what it allocates is free again when the next item starts, unless something keeps it. So a log that counts the items
one by one ("[ 29/210] processing image...", a progress bar at "1732/1744 ... frame/s" printed for every frame) and
fails only after :data:`ITEMS_DONE_MIN` or more of them fitted says the memory grew from item to item: outputs kept
with their autograd graph (an evaluation loop run without ``torch.no_grad()``), results collected on the GPU
(``metric.update((logit, label))`` keeping every image's tensors, YBIGTA/pytorch-hair-segmentation#28, fixed by
deleting them after the update), or a session, stream or model created per item and never released. The one other
reading is an item larger than all before it (a bigger image), which the per-item memory log tells apart.

Training loops are left to the step and epoch readings of :mod:`gpudesk.oom.rules.leak` (a batch of a longer sequence
or a larger image legitimately needs more at step N): a text that names a backward pass, an optimizer, a loss or
training is not read here. Nor is a serving engine's run (vLLM, SGLang, TensorRT-LLM ... named in the log,
:func:`gpudesk.oom.parsers.detect.detect_engine`): the prompts it counts ("Processed prompts: 12/100 [") take their
KV cache from the pool the engine sized at start-up and run under inference mode, so neither the autograd graph nor
results kept per item is how its memory grows.

0.65: above the shortage the device's figures give when the GPU is full (0.6), below the readings the figures decide
(0.75 and up).
"""

from __future__ import annotations

import re

from gpudesk.i18n import _
from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, evidence

# Items of the same work that fitted before the failure, at and above which growth is the first reading.
ITEMS_DONE_MIN = 10
CONFIDENCE = 0.65
# Words of training (a training loop's later step may legitimately need more; module docstring).
_TRAINING = re.compile(r"\b(?:backward|optimi[sz]er|loss|train\w{0,10}|epochs?|grad(?:ient)?s?)\b", re.IGNORECASE)
# Words of a per-item inference loop: the work ("processing", "infer", "predict", "evaluate", "test", "demo",
# "render") or the items counted ("image", "frame", "video"; tqdm's "frame/s" unit glued to its rate). Not "process"
# (PyTorch's "Process N has X memory in use") nor "file" (every traceback line says "File").
_INFERENCE = re.compile(r"\b(?:infer\w{0,10}|predict\w{0,10}|evaluat\w{0,5}|eval|test(?:ing)?|demo|process(?:ing|ed)|"
                        r"render\w{0,5})\b|(?<![A-Za-z])(?:images?|frames?|videos?)(?:/s)?\b", re.IGNORECASE)


# A progress bar's counter ("1732/1744 [08:43<00:03, ..."): tqdm redraws it after an item is done, so a bar at its
# total ("20/20 [") says the loop had finished and the failure came after it (a diffusion pipeline's VAE decode after
# its sampling steps), not inside it.
_BAR_COUNTER = re.compile(r"(?<![\d/.])(\d{1,9})\s{0,2}/\s{0,2}(\d{1,9})\s{0,3}\[")


def _bar_finished(text: str) -> bool:
    """The text's last progress-bar counter is at its total (``_BAR_COUNTER``)."""
    counters = _BAR_COUNTER.findall(text)
    return bool(counters) and int(counters[-1][0]) >= int(counters[-1][1]) > 0


# A bar that counts what is being loaded ("Loading checkpoint shards: 40%|...| 12/30 [", "Loading weights
# concurrently: 47%|...| 667/1417 [", tinygrad's "loading 117 ram used: 5.70 GB: 36%|...| 117/323 ["): each item
# loaded stays on the device by design, so a failure after many of them is the model not fitting, not memory kept
# by mistake.
_LOADING_LABEL = re.compile(r"\b(?:load(?:s|ing|ed)?|download(?:s|ing|ed)?|shards?|weights?|checkpoints?)\b",
                            re.IGNORECASE)


def _bar_counts_loading(text: str) -> bool:
    """The label before the text's last progress-bar counter (on its line) names loading (``_LOADING_LABEL``)."""
    counters = list(_BAR_COUNTER.finditer(text))
    if not counters:
        return False
    last = counters[-1]
    line_start = text.rfind("\n", 0, last.start()) + 1
    return _LOADING_LABEL.search(text, line_start, last.start()) is not None


def check(f: Facts, done: int | None, progress: tuple[str, int] | None, counter_line: str) -> Cause | None:
    """``done``: the last counter of a log that printed every item (:func:`gpudesk.oom.rules.leak._every_step`), None
    when it did not; the loop is read only when its bar had not finished nor counts items loaded.

    ``progress`` (:func:`gpudesk.oom.rules.leak._progress`) is ("first", 0) where the text also shows a bar at 0 (its
    first redraw, as a whole tqdm log begins) or the model being placed: then the counted items are read as the
    loop's only where the last counter's own line (``counter_line``) names them ("Processing: ...| 1733/1744 [",
    "[ 30/210] processing image"), not a sampler's unlabelled step bar ("55%|#####5| 11/20 [") in a log that says
    "processing" elsewhere."""
    text = f.report.text or ""
    first_seen = progress is not None and progress[0] == "first"
    if (done is None or f.report.engine is not None or done < ITEMS_DONE_MIN
            or (first_seen and _INFERENCE.search(counter_line) is None)
            or _TRAINING.search(text) is not None or _INFERENCE.search(text) is None or _bar_finished(text)
            or _bar_counts_loading(text)):
        return None
    return Cause(
        id="leak",
        title=_("Memory kept from item to item in an inference loop"),
        confidence=CONFIDENCE,
        evidence=evidence(progress=f"every_step {done}", requested_bytes=f.requested),
        explanation=_("The log counts the items of one loop up to {n}, with no training step in it: every item of an "
                      "inference or evaluation loop needs the same memory and frees it before the next one, so a "
                      "failure after so many fitted means something was kept per item (outputs holding their autograd "
                      "graph, results collected on the GPU, a session or stream created for every item), unless this "
                      "item is larger than all the ones before it.").format(n=done),
        fix=_("Run the loop under torch.no_grad() (or torch.inference_mode()), move each item's results to the CPU "
              "(.cpu(), .item()) and drop them, and create models, sessions and streams once, outside the loop"),
        more_fixes=[_("If one item is much larger than the others (a bigger image or a longer clip), resize or split "
                      "that item instead.")],
        checks=[_("Log torch.cuda.memory_allocated() (or nvidia-smi's used memory) after every item: a steady rise is "
                  "memory kept per item; a flat line that jumps at one item is that item's own need.")],
    )
