"""Sizes as frameworks print them -> bytes.

PyTorch prints ``bytes``/``KiB``/``MiB``/``GiB`` (binary) in OOM messages; old ``memory_summary`` tables print
``KB``/``MB``/``GB`` but divide by 1024 (``torch/cuda/memory.py`` ``_format_size`` before the KiB rename), and
TensorFlow prints ``17.79G (19104890880 bytes)``, again binary. So every unit here is binary unless the caller
asks for decimal: 1 KB = 1 KiB = 1024 B in framework texts. Counts in ``memory_summary`` use ``K``/``M``
suffixes with base 1000 (``_format_count``).
"""

from __future__ import annotations

import math
import re
from gpudesk.i18n import _


_BINARY = {
    "": 1,
    "b": 1,
    "byte": 1,
    "bytes": 1,
    "k": 1024,
    "kb": 1024,
    "kib": 1024,
    "m": 1024**2,
    "mb": 1024**2,
    "mib": 1024**2,
    "g": 1024**3,
    "gb": 1024**3,
    "gib": 1024**3,
    "t": 1024**4,
    "tb": 1024**4,
    "tib": 1024**4,
    "p": 1024**5,
    "pb": 1024**5,
    "pib": 1024**5,
}

# A number with an optional unit, as printed by PyTorch/TF/XLA: "14.48 GiB", "0 bytes", "6.00MiB", "17.79G".
# Bounded and anchored at the start of a digit run (issue 14): a number starts only where no digit, point or
# comma precedes it, and has at most 20 digits before and after the separator. A regex search therefore tries
# each digit run once with at most 20 steps of backtracking, so pasted text of any length is scanned in linear
# time, and a 309-digit "size" is not a size at all (it would overflow a float).
MAX_DIGITS = 20
NUM = r"(?<![\d.,])(\d{1,20}(?:[.,]\d{1,20})?)(?![\d])"
UNIT = r"(bytes?|[KMGTP]i?B|[KMGTP]|B)"
SIZE = NUM + r"\s*" + UNIT
SIZE_RE = re.compile(SIZE + r"\b")


def to_bytes(number: str, unit: str) -> int:
    """``to_bytes("14.48", "GiB")`` -> 15547781857. Commas as decimal separators are accepted.

    Raises:
        ValueError: the unit is not a size unit.
    """
    key = unit.strip().lower()
    if key not in _BINARY:
        raise ValueError(_("Not a size unit: {unit!r}").format(unit=unit))
    value = _finite(number)
    return round(value * _BINARY[key])


def _finite(number: str) -> float:
    """``number`` as a float; ValueError naming the value when it is too long, not a number, or not finite."""
    digits = number.strip()
    if len(digits) > 2 * MAX_DIGITS + 1:
        raise ValueError(_("The number '{start}…' has {length} characters; sizes have at most "
                           "{max_digits} digits.").format(start=digits[:24], length=len(digits), max_digits=MAX_DIGITS))
    try:
        value = float(digits.replace(",", "."))
    except ValueError:
        raise ValueError(_("Not a number: {text!r}").format(text=digits)) from None
    if not math.isfinite(value) or value < 0:
        raise ValueError(_("Not a size: {text!r}").format(text=digits))
    return value


def parse_size(text: str) -> int | None:
    """The first size in ``text`` in bytes, or None when there is none."""
    m = SIZE_RE.search(text)
    if not m:
        return None
    return to_bytes(m.group(1), m.group(2))


def parse_count(text: str) -> int | None:
    """A memory_summary count such as ``"12794 K"`` -> 12794000; None when not a count."""
    if len(text) > 64:
        return None
    m = re.fullmatch(r"\s*(\d{1,20}(?:\.\d{1,20})?)\s*([KM]?)\s*", text)
    if not m:
        return None
    return round(float(m.group(1)) * {"": 1, "K": 1000, "M": 1000_000}[m.group(2)])


