"""Fast reading of a Prometheus range-query answer: the ``values`` arrays straight into numpy.

A range answer (``resultType: matrix``, https://prometheus.io/docs/prometheus/latest/querying/api/#range-vectors)
is almost all ``"values":[[1733000000,"45.5"],...]``: for 512 GPUs x 721 steps, 370,000 pairs per metric. Decoded
by ``json.loads`` each pair becomes a list, a float and a string (0.3-0.5 s per 8 MB answer, most of a 24 h fleet
picture's time), only to be turned into a numpy array afterwards. Here each ``values`` array is cut out of the body
and parsed as plain decimals by whole-array numpy passes (:func:`plain_decimals`; numpy's C text reader
``np.fromstring`` for anything else), and only the small rest (status, labels) goes through ``json.loads``: the
same numbers, several times faster.

Anything unexpected (a ``values`` array with other characters, an odd count of numbers, a rest that is not JSON)
returns None, and the caller decodes the whole body the ordinary way, which says what is wrong.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

_VALUES = re.compile(rb'"values":[ \t\r\n]*\[')
# what a values array may hold once its brackets and quotes are dropped: numbers, NaN, +Inf/-Inf, separators
_NUMBER_BYTES = b"0123456789.eE+-,NaInfity \t\r\n"
SEGMENT_KEY = "\x00values_segment"


_POW10 = 10.0 ** np.arange(23)  # exact in float64 up to 1e22
_BYTE_KIND = np.zeros(256, dtype=np.uint8)
_BYTE_KIND[48:58] = 1
_BYTE_KIND[ord(",")] = 2
_BYTE_KIND[ord(".")] = 3
_BYTE_KIND[ord("-")] = 4
BATCH_BYTES = 1 << 20  # series parsed together, ~1 MiB of text at a time
MAX_PLAIN_DIGITS = 15  # a 15-digit integer and its partial sums stay below 2**53: every step is exact


def plain_decimals(flat: bytes) -> np.ndarray | None:
    """The comma-separated numbers of ``flat`` as float64 when every one is a plain decimal (an optional leading
    ``-``, digits, at most one ``.``, at most 15 digits), else None.

    What Prometheus writes for timestamps (``1733000000`` or ``1733000000.5``) and for most readings (``45``,
    ``345.123``) is parsed with a handful of whole-array numpy passes instead of one C call per number: the digits
    make an exact integer mantissa (each ``d x 10^k`` and every partial sum is an exact float64 below 2**53) that
    one division by the exact power of ten turns into the nearest float64 to the decimal, the same number strtod
    gives. Anything else (``NaN``, ``+Inf``, exponents, 16+ digits, whitespace) returns None for numpy's text
    reader.
    """
    b = np.frombuffer(flat, dtype=np.uint8)
    kind = _BYTE_KIND[b]  # one table lookup per byte: 0 other, 1 digit, 2 comma, 3 dot, 4 minus
    if not kind.all():
        return None
    comma_at = np.flatnonzero(kind == 2)
    n = comma_at.size + 1
    starts = np.empty(n, dtype=np.int64)
    starts[0] = 0
    starts[1:] = comma_at + 1
    ends = np.empty(n, dtype=np.int64)
    ends[:-1] = comma_at
    ends[-1] = b.size
    marks_at = np.flatnonzero(kind > 2)  # dots and minus signs: few, or one per number
    marks_owner = np.searchsorted(comma_at, marks_at)  # the number each belongs to
    per_number = (ends - starts) - np.bincount(marks_owner, minlength=n)  # its digits
    if per_number.min() <= 0 or per_number.max() > MAX_PLAIN_DIGITS:
        return None  # an empty number, or more digits than stay exact
    marks = kind[marks_at]
    minus_at, minus_owner = marks_at[marks == 4], marks_owner[marks == 4]
    if np.any(starts[minus_owner] != minus_at):
        return None  # a '-' that does not start its number
    dot_at, dot_owner = marks_at[marks == 3], marks_owner[marks == 3]
    if dot_at.size and np.bincount(dot_owner, minlength=n).max() > 1:
        return None
    # the digits in order; the i-th digit of a number with D digits has D - 1 - i digits after it
    digit_end = np.cumsum(per_number)
    after = np.repeat(digit_end, per_number) - np.arange(1, int(digit_end[-1]) + 1)
    weights = (b[np.flatnonzero(kind == 1)] - 48).astype(np.float64)
    weights *= _POW10[after]
    mantissa = np.add.reduceat(weights, digit_end - per_number)
    if dot_at.size:
        fraction = np.zeros(n, dtype=np.int64)
        fraction[dot_owner] = ends[dot_owner] - dot_at - 1  # digits after the dot (a '-' only leads)
        mantissa /= _POW10[fraction]
    if minus_at.size:
        mantissa[minus_owner] *= -1.0
    return mantissa


def _parse_one(flat: bytes) -> np.ndarray | None:
    """One series' numbers: plain decimals, else numpy's text reader (NaN, Inf, exponents); None if unreadable."""
    numbers = plain_decimals(flat)
    if numbers is None:
        try:
            numbers = np.fromstring(flat, dtype=np.float64, sep=",")
        except ValueError:
            return None
        if numbers.size != flat.count(b",") + 1:
            return None
    return numbers


def _parse_values(flats: list[bytes]) -> list[np.ndarray] | None:
    """Every series' (time, value) pairs as an (n, 2) array. Series are parsed together in batches of about
    :data:`BATCH_BYTES` (one set of numpy passes per batch, the transient arrays bounded by the batch); a batch
    that is not all plain decimals is parsed series by series."""
    out: list[np.ndarray] = []
    i = 0
    while i < len(flats):
        batch: list[bytes] = []
        size = 0
        while i < len(flats) and (not batch or size < BATCH_BYTES):
            batch.append(flats[i])
            size += len(flats[i]) + 1
            i += 1
        filled = [f for f in batch if f]
        numbers = plain_decimals(b",".join(filled)) if filled else np.empty(0)
        counts = [f.count(b",") + 1 if f else 0 for f in batch]
        if numbers is not None and numbers.size == sum(counts):
            chunks = np.split(numbers, np.cumsum(counts)[:-1])
        else:
            parsed = [_parse_one(f) if f else np.empty(0) for f in batch]
            if any(p is None for p in parsed):
                return None
            chunks = parsed  # type: ignore[assignment]
        for chunk in chunks:
            if chunk.size % 2:
                return None
            out.append(chunk.reshape(-1, 2))
    return out


def decode_range_answer(body: bytes) -> Any | None:
    """The decoded answer with every series' ``values`` as a float64 array of shape (n, 2) (time, value), or None
    when the body is not a plain range answer this reader can take apart (the caller then uses json.loads)."""
    flats: list[bytes] = []
    parts: list[bytes] = []
    pos = 0
    while True:
        mo = _VALUES.search(body, pos)
        if mo is None:
            break
        start = mo.end() - 1  # the values array's "["
        rest = body[start + 1:start + 64].lstrip()
        if rest.startswith(b"]"):
            end = body.index(b"]", start) + 1
            flat = b""
        else:
            close = body.find(b"]]", start)
            if close < 0:
                return None
            end = close + 2
            flat = body[start:end].translate(None, b'[]"')
        if flat.translate(None, _NUMBER_BYTES):
            return None  # anything else in there (a nested object, an escaped quote): not a plain values array
        flats.append(flat.strip())
        parts.append(body[pos:mo.start()])
        parts.append(b'"values":{"\\u0000values_segment":%d}' % (len(flats) - 1))
        pos = end
    if not flats:
        return None
    arrays = _parse_values(flats)
    if arrays is None:
        return None
    parts.append(body[pos:])
    try:
        doc = json.loads(b"".join(parts))
    except (ValueError, RecursionError):
        return None
    data = doc.get("data") if isinstance(doc, dict) else None
    result = data.get("result") if isinstance(data, dict) else None
    if not isinstance(result, list):
        return None
    placed = 0
    for series in result:
        marker = series.get("values") if isinstance(series, dict) else None
        if isinstance(marker, dict) and isinstance(marker.get(SEGMENT_KEY), int) and len(marker) == 1 \
                and 0 <= marker[SEGMENT_KEY] < len(arrays):
            series["values"] = arrays[marker[SEGMENT_KEY]]
            placed += 1
    if placed != len(arrays):
        return None  # a "values" array outside the result list: not the shape this reader knows
    return doc
