"""Words about the run that tell memory kept between steps from one step's own peak (issue 28, twenty-second pass),
read by :mod:`gpudesk.oom.rules.leak`.

* ``NOT_RELEASED_AFTER``: memory said not to be cleared after a run ("VRAM does not clear after video generation so
  goes OOM after generating 2-3 videos", aigc-apps/EasyAnimate#157, fixed in the pipeline's code): what one run leaves
  the next adds to, a leak in words.
* ``AFTER_RUNS``: an out-of-memory only after a number of whole generations ("after generating 2-3 videos"): the first
  ones fit, so the steady need fits.
* ``batch_sets_it``: the text ties the failure to the batch size, so the failure is the step's own working set. A leak
  fails later with a smaller batch but fails all the same; a batch that fails at its very first step shows the steady
  need itself at the card's limit, so a later failure at a smaller batch is a larger step (a longer input, the
  validation pass) rather than memory kept ("batch size 16 ... after 10 iterations it throws a Cuda oom error ... 22
  ... doesn't even start training", voice-cloning-app/Voice-Cloning-App#74); and a user who asks how to avoid it
  "without reducing my batch size" knows the smaller batch runs (WongKinYiu/yolor#199: the validation loader's
  doubled batch).
"""

from __future__ import annotations

import re

NOT_RELEASED_AFTER = re.compile(
    r"\b(?:vram|memory|ram)\b[^\n.;]{0,20}?\b(?:does not|doesn't|do not|don't|is not|isn't|never|won't|will not|"
    r"did not|didn't)\s{1,3}(?:get\s{1,3}|be\s{1,3})?(?:clear|free|releas|empt)\w{0,3}(?:\s{1,3}up)?\s{1,3}after\b",
    re.IGNORECASE)
AFTER_RUNS = re.compile(
    r"\bafter\s{1,3}(?:generating|running|rendering|creating|making)\s{1,3}(?:\d{1,4}(?:\s{0,2}[-–~]\s{0,2}\d{1,4})?|"
    r"several|some|a few|many)\s{1,3}(?:videos?|images?|pictures?|clips?|generations?|prompts?|requests?|runs?)\b",
    re.IGNORECASE)
_WITHOUT_REDUCING = re.compile(r"\bwithout\s{1,3}(?:reducing|lowering|decreasing|changing)\s{1,3}(?:my\s{1,3}|the\s{1,3})?"
                               r"batch", re.IGNORECASE)
# A failure at the very first step: "doesn't even start", "fails immediately", "right away OOMs".
_AT_ONCE = re.compile(r"\bdoes(?:n'?t| not)\s{1,3}even\s{1,3}start\b|\bfails?\s{1,3}(?:immediately|right away|at once)\b|"
                      r"\b(?:immediately|right away|at once)\s{1,3}(?:fails?|throws|crashes|ooms?)\b", re.IGNORECASE)
_BATCH_SIZE = re.compile(r"\bbatch[ _-]?size\b", re.IGNORECASE)
# How far before a failure-at-once the batch size may be named, and how many such failures are looked at.
BATCH_WINDOW_CHARS = 240
MAX_AT_ONCE = 20


def batch_sets_it(text: str) -> bool:
    """The text ties the failure to the batch size (module docstring): a user who would not
    reduce the batch, or a failure at the very first step within a few lines after a batch size is named."""
    if "batch" not in text.lower():
        return False
    if _WITHOUT_REDUCING.search(text) is not None:
        return True
    for n, m in enumerate(_AT_ONCE.finditer(text)):
        if n >= MAX_AT_ONCE:
            break
        if _BATCH_SIZE.search(text, max(0, m.start() - BATCH_WINDOW_CHARS), m.start()) is not None:
            return True
    return False
