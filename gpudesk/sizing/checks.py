"""Input checks shared by the sizing formulas: finite, positive, and below an absurdity ceiling.

Every check raises :class:`~gpudesk.sizing.errors.SizingError` naming the field, so a wizard page can put
the message next to the right input and keep everything else the user typed.
"""

from __future__ import annotations

import math

from gpudesk.i18n import _
from gpudesk.sizing.errors import SizingError

# Ceilings above which an input is treated as a typo rather than a plan (units in the names).
MAX_PARAMS = 100e12  # 100 T parameters: ~50x the largest published dense models
MAX_SEQ_LEN_TOKENS = 16 * 1024 * 1024
MAX_BATCH = 1_000_000
MAX_GPUS = 1_000_000
_INFINITY = math.inf


def positive_int(field: str, value: object, maximum: float | None = None) -> int:
    """Return ``value`` as an int > 0 (and <= ``maximum``), else raise SizingError naming ``field``."""
    if type(value) is int and value > 0 and (maximum is None or value <= maximum):
        return value  # the common case, first (the planner checks thousands of values per plan); same result
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SizingError(field, _("must be a whole number, got {value!r}.").format(value=value))
    if isinstance(value, float):
        if not math.isfinite(value) or value != int(value):
            raise SizingError(field, _("must be a whole number, got {value!r}.").format(value=value))
        value = int(value)
    if value <= 0:
        raise SizingError(field, _("must be greater than zero, got {value}.").format(value=value))
    if maximum is not None and value > maximum:
        if value < 1e300:
            message = _("{value:g} is implausibly large (limit {maximum:g}); check the units.").format(
                value=value, maximum=maximum)
        else:
            message = _("A number with {digits} digits is implausibly large (limit {maximum:g}); check the units."
                        ).format(digits=len(str(value)) if value < 10**4000 else ">4000", maximum=maximum)
        raise SizingError(field, message)
    return value


def positive_float(field: str, value: object, maximum: float | None = None, allow_zero: bool = False) -> float:
    """Return ``value`` as a finite float > 0 (>= 0 with ``allow_zero``), else raise SizingError."""
    if type(value) is float and 0.0 < value < _INFINITY and (maximum is None or value <= maximum):
        return value  # the common case, first (NaN and infinity fail the comparison); same result as below
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SizingError(field, _("must be a number, got {value!r}.").format(value=value))
    try:
        value = float(value)
    except OverflowError:  # an int with more than 308 digits
        raise SizingError(field, _("must be a finite number, got a number with more than 308 digits.")) from None
    if not math.isfinite(value):
        raise SizingError(field, _("must be a finite number, got {value!r}.").format(value=value))
    if value < 0 or (value == 0 and not allow_zero):
        raise SizingError(field, _("must be greater than zero, got {value:g}.").format(value=value))
    if maximum is not None and value > maximum:
        raise SizingError(field, _("{value:g} is implausibly large (limit {maximum:g}); check the units.").format(
            value=value, maximum=maximum))
    return value


def fraction(field: str, value: object, allow_zero: bool = True, allow_one: bool = True) -> float:
    """Return ``value`` as a float in [0, 1] (bounds optional), else raise SizingError."""
    if type(value) is float and 0.0 < value < 1.0:
        return value  # strictly inside: valid whatever the bounds; same result as below
    v = positive_float(field, value, allow_zero=True)
    if v > 1 or (v == 0 and not allow_zero) or (v == 1 and not allow_one):
        lo = "0" if allow_zero else _("just above 0")
        hi = "1" if allow_one else _("just below 1")
        raise SizingError(field, _("must be a fraction between {low} and {high}, got {value:g}.").format(
            low=lo, high=hi, value=v))
    return v


def choice(field: str, value: object, options: tuple[str, ...] | frozenset[str]) -> str:
    """Return ``value`` if it is one of ``options`` (case-insensitive), else raise SizingError listing them."""
    if not isinstance(value, str) or value.lower() not in options:
        raise SizingError(field, _("{value!r} is not one of: {options}.").format(value=value,
                                                                                options=", ".join(sorted(options))))
    return value.lower()
