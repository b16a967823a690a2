"""TOML profiles of a :class:`~gpudesk.planner.requirement.Requirement`: read with tomllib (``tomli`` on
Python 3.10), written with tomli-w (its counterpart writer, so any profile written reads back equal).

A profile has ``version``, ``name``, ``notes`` and one table per question: ``[data]``, ``[model]``,
``[workload]``, ``[software]``, ``[operations]``, ``[tco]`` (see resources/examples).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path

from typing import Any

import tomli_w

from gpudesk.errors import os_error_reason
from gpudesk.file_limits import InputFileError, display_path, read_input
from gpudesk.i18n import _
from gpudesk.planner.errors import ProfileError
from gpudesk.planner.requirement import SECTIONS, Requirement, raise_problems
from gpudesk.planner.toml_errors import toml_error_reason
from gpudesk.planner.workload import profile_problems

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

PROFILE_VERSION = 1
# A profile is a few hundred bytes; 1 MiB leaves room for long notes and price tables, and bounds the parse.
MAX_PROFILE_BYTES = 1024 * 1024
# Numbers above 10^18 are typos in every field of a profile (token counts, prices, GPU counts, parameter counts):
# refused here, before a float() of a 309-digit integer can overflow.
MAX_PROFILE_NUMBER = 1e18

#: Keys a profile once had and no longer has, each with why and where the answer went: a profile that still carries
#: one is refused as an unknown key is (bad input loses nothing), with words that say what to do instead.
RETIRED_KEYS: dict[str, Callable[[], str]] = {
    # Issue 27: the usable capacity every fit compares against is PyTorch's total (gpudesk.sizing.capacity), which
    # already leaves the driver's reserve out; counting it in the plan too made every plan tighter by the reserve.
    "model.driver_reserved_mib": lambda: _(
        "no longer a plan answer: the driver's reserved memory belongs to the card, and the usable memory the plan "
        "fits against already leaves it out. Delete the key; to compare an estimate with a reading that counts it "
        "(NVML v1 used), give it to 'gpudesk estimate memory --driver-reserved-mib'."),
}


def _describe(value: object) -> str:
    """A short description of a TOML value for a message (a nested list or table is not printed whole)."""
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**40:
        return "a number with more than 40 digits"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _number(where: str, value: object) -> int | float:
    """A finite TOML number of at most 10^18 in magnitude, else ProfileError naming the field."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ProfileError(where, _("must be a number, got {value}.").format(value=_describe(value)))
    if isinstance(value, float) and not math.isfinite(value):
        raise ProfileError(where, _("must be a finite number, got {value}.").format(value=repr(value)))
    if abs(value) > MAX_PROFILE_NUMBER:
        raise ProfileError(where, _("{value} is implausibly large (limit 1e18); check the units.").format(value=_describe(value)))
    return value


def _coerce(section: str, key: str, value: object, annotation: object) -> object:
    """Check a TOML value against the field's annotation (``int | None``, ``str``, ``list[str]`` ...).

    Integers are accepted where floats are expected; ``model.params`` also accepts text such as "13B".
    """
    where = f"{section}.{key}"
    kind = str(annotation)
    if kind.startswith("dict"):
        if not isinstance(value, dict):
            raise ProfileError(where, _("must be a table of id = price."))
        return {k: _number(f"{where}.{k}", v) for k, v in value.items()}
    if kind.startswith("list"):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ProfileError(where, _("must be a list of strings."))
        return list(value)
    if kind.startswith("bool"):
        if not isinstance(value, bool):
            raise ProfileError(where, _("must be true or false, got {value}.").format(value=_describe(value)))
        return value
    if kind.startswith("str"):
        if not isinstance(value, str):
            raise ProfileError(where, _("must be text, got {value}.").format(value=_describe(value)))
        return value
    if where in ("model.seq_len_tokens", "workload.prompt_tokens") and isinstance(value, str):
        text = value.strip().lower()
        digits, mult = (text[:-1], 1024) if text.endswith("k") else (text, 1)
        if not digits.isdigit() or len(digits) > 9:
            raise ProfileError(where, _("{value} is not a token count; write e.g. 4096 or \"8k\".").format(value=_describe(value)))
        return int(digits) * mult
    if where == "model.params" and isinstance(value, str):
        from gpudesk.sizing.errors import ShapeError
        from gpudesk.sizing.shapes import parse_param_count

        try:
            return parse_param_count(value)
        except ShapeError as exc:
            raise ProfileError(where, exc.reason) from exc
    return _number(where, value)


def requirement_from_dict(data: dict[str, Any]) -> Requirement:
    """Build a Requirement from the TOML-shaped dict (``{"name":..., "data": {...}, ...}``).

    Raises:
        ProfileError: unknown sections or keys, or values of the wrong type (field named).
    """
    if not isinstance(data, dict):
        raise ProfileError("profile", _("must be a table of sections."))
    version = data.get("version", PROFILE_VERSION)
    if isinstance(version, bool) or not isinstance(version, int):
        raise ProfileError("version", _("must be a whole number, got {value}.").format(value=_describe(version)))
    if version > PROFILE_VERSION:
        raise ProfileError("version", _("profile version {version} is newer than this gpudesk understands ({known}); update gpudesk.").format(
            version=_describe(version), known=PROFILE_VERSION))
    req = Requirement()
    for key, value in data.items():
        if key == "version":
            continue
        if key in ("name", "notes"):
            if not isinstance(value, str):
                raise ProfileError(key, _("must be text."))
            setattr(req, key, value)
            continue
        if key not in SECTIONS:
            raise ProfileError(key, _("unknown section; use {sections}.").format(sections=", ".join(SECTIONS)))
        if not isinstance(value, dict):
            raise ProfileError(key, _("must be a [section] table."))
        target = getattr(req, key)
        known = {f.name: f for f in fields(target)}
        for k, v in value.items():
            if f"{key}.{k}" in RETIRED_KEYS:
                raise ProfileError(f"{key}.{k}", RETIRED_KEYS[f"{key}.{k}"]())
            if k not in known:
                raise ProfileError(f"{key}.{k}", _("unknown key; known keys: {keys}.").format(keys=", ".join(known)))
            setattr(target, k, _coerce(key, k, v, known[k].type))
    workload = data.get("workload")
    if req.model.mode == "inference" and not (isinstance(workload, dict) and "training_share" in workload):
        # The training share follows the mode unless the profile gives it: a service spends no GPU time training.
        req.workload.training_share = 0.0
    return req


def parse_profile_text(text: str, where: str | None = None) -> dict[str, Any]:
    """A profile's TOML text -> its tables, bounded: at most :data:`MAX_PROFILE_BYTES`, and nesting or numbers the
    TOML reader cannot take are a :class:`ProfileError` too (``where`` names the file or the saved plan).

    Raises:
        ProfileError: too long, not valid TOML (with line/column), nested too deeply, an unreadable number.
    """
    where = where if where is not None else _("The profile")
    if len(text) > MAX_PROFILE_BYTES:
        raise ProfileError("profile", _("{where} is {length} characters long; a profile is a few hundred (limit {limit}).").format(
            where=where, length=len(text), limit=MAX_PROFILE_BYTES))
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError("profile", _("{where} is not valid TOML: {reason}.").format(where=where,
                                                                                     reason=toml_error_reason(exc))) from exc
    except (RecursionError, ValueError) as exc:  # [[[[...]]]] nested past the parser's stack; 4300+ digit ints
        raise ProfileError("profile", _("{where} nests lists or tables too deeply or holds an unreadable number; a profile is flat: one [section] "
                                        "per question.").format(where=where)) from exc


def profile_file_text(path: str | Path) -> str:
    """The text of a profile file: a regular file of at most :data:`MAX_PROFILE_BYTES`, UTF-8.

    Raises:
        ProfileError: not a regular file (a folder, a FIFO, /dev/zero), too large (the limit is named), unreadable,
            or not UTF-8.
    """
    try:
        raw = read_input(path, MAX_PROFILE_BYTES, _("the profile"))
    except InputFileError as exc:
        cause = exc.__cause__
        if isinstance(cause, OSError):
            raise ProfileError("profile", _("cannot read {path}: {reason}.").format(
                path=display_path(path), reason=os_error_reason(cause))) from exc
        raise ProfileError("profile", exc.user_text()) from exc
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProfileError("profile", _("{path} is not UTF-8 text.").format(path=display_path(path))) from exc


def load_profile(path: str | Path, catalog: Any = None) -> Requirement:
    """Read a TOML profile and validate it.

    Args:
        catalog: a gpudesk.catalog.Catalog; when given, the model answer is checked against it too, and an unknown
            model is reported first, with the close catalog names ("did you mean").

    Raises:
        ProfileError: unreadable file, invalid TOML (with line/column), unknown keys, wrong types.
        PlanInputError: values out of range or contradictory; PlanInputErrors (a PlanInputError) lists every
            problem at once, most fundamental first (model, mode, then sizes).
    """
    p = Path(path)
    text = profile_file_text(p)
    req = requirement_from_dict(parse_profile_text(text, display_path(p)))
    if req.model.config_path and not Path(req.model.config_path).is_absolute():
        req.model.config_path = str((p.parent / req.model.config_path).resolve())
    raise_problems(profile_problems(req, catalog))
    return req


def requirement_to_dict(req: Requirement) -> dict[str, Any]:
    """The TOML-shaped dict of ``req`` (None values left out)."""
    out: dict[str, Any] = {"version": PROFILE_VERSION, "name": req.name}
    if req.notes:
        out["notes"] = req.notes
    for section in SECTIONS:
        obj = getattr(req, section)
        out[section] = {f.name: getattr(obj, f.name) for f in fields(obj) if getattr(obj, f.name) is not None}
    return out


def dumps_profile(req: Requirement) -> str:
    """The TOML text of ``req``, written by tomli-w (https://github.com/hukkin/tomli-w), the writer that pairs with
    tomllib: every string is escaped by the TOML spec's rules (``\\r``, control characters, quotes) and every key
    that is not a bare key is quoted, so what is written reads back equal (tests/planner/test_profile_roundtrip.py).
    Empty id -> price tables are left out, as ``requirement_from_dict`` reads a missing table as empty.
    """
    data = requirement_to_dict(req)
    for section in SECTIONS:
        data[section] = {k: v for k, v in data[section].items() if not (isinstance(v, dict) and not v)}
    try:
        return tomli_w.dumps(data)
    except (TypeError, ValueError) as exc:  # a value of a type TOML has no form for (only reachable by code)
        raise ProfileError("profile", _("cannot write the profile as TOML: {reason}.").format(reason=exc)) from exc


def save_profile(req: Requirement, path: str | Path) -> None:
    """Write ``req`` as a TOML profile (validated first; written to a temporary file then renamed).

    Raises:
        PlanInputError: invalid requirement. ProfileError: the file cannot be written.
    """
    req.validate()
    p = Path(path)
    tmp = p.with_name(p.name + ".tmp")
    try:
        tmp.write_text(dumps_profile(req), encoding="utf-8")
        tmp.replace(p)
    except OSError as exc:
        raise ProfileError("profile", _("cannot write {path}: {reason}.").format(path=p, reason=exc.strerror or exc)) from exc
