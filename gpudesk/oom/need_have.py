"""A need and what there is, stated side by side in one sentence about memory (issue 28, forty-second pass).

Runtimes that check a request against the memory they can see before they ask for it word the refusal in their own
sentence, but the sentence always carries the same two figures: what is needed and what there is. Read by that
meaning, not by one product's sentence:

* the need, then what is free, as a pair in parentheses: the ZED SDK's "Required memory for Object detection
  optimization is too high for the current free memory (630MB vs 562MB)" (stereolabs/zed-sdk#359);
* a request "for N" and an amount "available is M": Ray's plasma store sizing its object store in /dev/shm, "System
  memory request exceeds memory available in /dev/shm. The request is for N bytes, and the amount available is M
  bytes" (ray-project/ray, src/ray/object_manager/plasma/store_runner.cc; gpustack/gpustack#5014);
* the two figures labelled in a list, a need word and its size then a have word and its size: "Insufficient GPU
  memory. Required: 18.5 GB, Available: 15.2 GB", "(need 12 GB, have 8 GB)";
* a part "N out of the M total" memory, refused as too large: vLLM's check of its CPU swap space against the host's
  RAM, "Too large swap space. 4.00 GiB out of the 4.30 GiB total CPU memory is allocated for the swap space."
  (vllm-project/vllm, vllm/config.py ``CacheConfig.verify_with_parallel_config``: above 70 % of the host's memory it
  raises, above 40 % it warns "Possibly too large swap space"; Ksuriuri/index-tts-vllm#99).

Where the sentence names the memory, the place decides what ran short: ``/dev/shm`` (or "shared memory") is the
shared-memory filesystem, a tmpfs in host RAM (shm_overview(7)); "CPU", "system", "host" memory or RAM is the host's;
anything else is left to the device readings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NUM = r"(\d{1,20}(?:\.\d{1,6})?)"
_UNIT = r"\s{0,2}(bytes?|[KMGTP]i?B|[KMGTP](?![a-zA-Z])|B(?![a-zA-Z]))"
_SIZE_U = _NUM + _UNIT
# A clause boundary the two figures must not cross: a line break, or a full stop that ends a sentence (not a decimal
# point).
_CLAUSE = r"(?:[^\n.]|\.(?=\d)){0,%d}?"

_NEED_WORD = r"\b(?:requir\w{0,4}|request\w{0,3}|needs?|needed)\b"
_HAVE_WORD = r"\b(?:free|available|remaining)\b"
# "Required ... free memory (630MB vs 562MB)": the need first, then what is free.
_PAIR = re.compile(_NEED_WORD + _CLAUSE % 120 + _HAVE_WORD + _CLAUSE % 40
                   + r"\(\s{0,2}" + _SIZE_U + r"\s{0,3}(?:vs\.?|versus|/|>)\s{0,3}" + _SIZE_U + r"\s{0,2}\)",
                   re.IGNORECASE)
# "The request is for N bytes, and the amount available is M bytes".
_REQUEST_AVAILABLE = re.compile(r"\brequest\w{0,3}\s{1,3}(?:is\s{1,3}|was\s{1,3})?for\s{1,3}" + _SIZE_U
                                + _CLAUSE % 80 + r"\b(?:available|free)\s{1,3}(?:is|was|:)\s{0,3}" + _SIZE_U,
                                re.IGNORECASE)
# The two figures labelled in a list: "Insufficient GPU memory. Required: 18.5 GB, Available: 15.2 GB" (the wording many
# applications' own pre-flight checks print, in Python, C++ and JavaScript sources alike: "Insufficient GPU memory.
# Required: {required}GB, Available: {available}GB"), "required 18.5 GB, available 15.2 GB", "(need 12 GB, have 8 GB)":
# a need word and its size, then a have word and its size, with only a separator between them.
_LABELLED = re.compile(_NEED_WORD + r"\s{0,2}[:=]?\s{0,2}" + _SIZE_U + r"\s{0,3}[,;/|]?\s{0,3}"
                       + r"(?:\b(?:free|available|remaining)\b|\bhave\b|\bhas\b)\s{0,2}[:=]?\s{0,2}" + _SIZE_U,
                       re.IGNORECASE)
# "N out of the M total CPU memory", in a sentence that calls it too large (or says it exceeds).
_PART_OF_TOTAL = re.compile(_SIZE_U + r"\s{1,3}out of\s{1,3}(?:the\s{1,3})?" + _SIZE_U + r"\s{1,3}(?:of\s{1,3})?total\b",
                            re.IGNORECASE)
# An allocator's own report of a refusal as labelled fields, one per line: RELION's custom allocator
# (src/acc/cuda/custom_allocator.cuh and its HIP port, https://github.com/3dem/relion) prints "CudaCustomAllocator out
# of memory" then "[requestedSpace:             N B]", "[largestContinuousFreeSpace: L B]" and "[totalFreeSpace: T B]"
# (its pool's free memory, padded to one column). The need label, then the pool's total free memory: the need word
# and the free word joined to their field names (camelCase), the free field within the next few lines.
_FIELDS = re.compile(r"\brequested\w{0,12}\s{0,2}[:=]\s{0,40}" + _SIZE_U + r"[^\n]{0,4}(?:\n[^\n]{0,120}){0,3}?\n[^\n]{0,8}?"
                     r"\btotal_?free\w{0,12}\s{0,2}[:=]\s{0,40}" + _SIZE_U, re.IGNORECASE)
_TOO_LARGE = re.compile(r"\btoo (?:large|big|high|much)\b|\bexceeds?\b|\bexceeding\b", re.IGNORECASE)
# Where the sentence says the memory is (module docstring).
_SHARED_MEMORY_PLACE = re.compile(r"/dev/shm\b|\bshared memory\b", re.IGNORECASE)
_HOST_PLACE = re.compile(r"\b(?:cpu|system|host)\s{1,3}memory\b|\bram\b", re.IGNORECASE)
_MEMORY_WORD = re.compile(r"\bmemory\b|/dev/shm\b|\bram\b|\bvram\b", re.IGNORECASE)
_CONTEXT_CHARS = 200


@dataclass(frozen=True)
class NeedHave:
    """The need and what there was (bytes); ``have_is_total`` when what there was is the whole memory, not its free
    part; ``place`` "shared_memory", "host" or None (the device, or unsaid)."""

    need_bytes: int
    have_bytes: int
    have_is_total: bool
    place: str | None

    @property
    def refused(self) -> bool:
        """The need is above what there was (for a part of the total, the sentence's own "too large" said it)."""
        return self.have_is_total or self.need_bytes > self.have_bytes


def _bytes(number: str, unit: str) -> int:
    # Imported here: gpudesk.oom.signatures reads this module while the parsers package is being initialised.
    from gpudesk.oom.parsers.units import to_bytes
    return to_bytes(number, unit)


def _place(text: str) -> str | None:
    if _SHARED_MEMORY_PLACE.search(text):
        return "shared_memory"
    if _HOST_PLACE.search(text):
        return "host"
    return None


def find(text: str) -> NeedHave | None:
    """The first need-and-have sentence about memory in ``text`` (module docstring), or None."""
    for pattern, is_total in ((_PAIR, False), (_REQUEST_AVAILABLE, False), (_LABELLED, False), (_PART_OF_TOTAL, True),
                              (_FIELDS, False)):
        m = pattern.search(text)
        if m is None:
            continue
        # The sentence with the figures and the one before it (Ray names /dev/shm in the sentence before its figures);
        # an allocator's field list, the line before it (its "out of memory" heading).
        start = max(text.rfind("\n", 0, m.start()) + 1, m.start() - _CONTEXT_CHARS)
        if pattern is _FIELDS:
            start = max(text.rfind("\n", 0, max(0, start - 1)) + 1, m.start() - _CONTEXT_CHARS)
        line_end = text.find("\n", m.end())
        context = text[start:min(len(text) if line_end < 0 else line_end, m.end() + _CONTEXT_CHARS)]
        if _MEMORY_WORD.search(context) is None:
            continue
        if is_total and _TOO_LARGE.search(context) is None:
            continue
        found = NeedHave(need_bytes=_bytes(m.group(1), m.group(2)), have_bytes=_bytes(m.group(3), m.group(4)),
                         have_is_total=is_total, place=_place(context))
        if found.refused:
            return found
    return None
