"""Property (issue 31): any profile the app can hold writes (``dumps_profile``, tomli-w) and reads back (tomllib)
equal — names and notes with ``\\r``, control characters and any Unicode, price tables keyed by any text.

The hand-written writer this replaced wrote ``"a\\rb"`` raw (tomllib refuses a bare CR in a basic string), left
other control characters unescaped, and wrote a key like ``"é"`` bare only when ``str.isalnum`` said so, which
is true for non-ASCII letters TOML does not allow in bare keys.
"""

from __future__ import annotations

import sys
from dataclasses import fields

from helpers.fuzz_profile import fuzz
from hypothesis import example, given
from hypothesis import strategies as st

from gpudesk.planner.profile import (MAX_PROFILE_NUMBER, dumps_profile, requirement_from_dict,
                                     requirement_to_dict)
from gpudesk.planner.requirement import SECTIONS, Requirement

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 only
    import tomli as tomllib

TEXT = st.text()  # every code point but surrogates (UTF-8 cannot hold them): CR, NUL, DEL, U+2028, emoji ...
NUMBER_FLOAT = st.floats(-MAX_PROFILE_NUMBER, MAX_PROFILE_NUMBER, allow_nan=False, allow_infinity=False)
NUMBER_INT = st.integers(-int(MAX_PROFILE_NUMBER), int(MAX_PROFILE_NUMBER))


def _values_for(annotation: str) -> st.SearchStrategy[object]:
    """Values of a field's annotated type ("int | None", "list[str]", "dict[str, float]", ...)."""
    kind = annotation.split(" | ")[0]
    base: st.SearchStrategy[object]
    if kind.startswith("dict"):
        base = st.dictionaries(TEXT, NUMBER_FLOAT, max_size=4)
    elif kind.startswith("list"):
        base = st.lists(TEXT, max_size=4)
    elif kind == "bool":
        base = st.booleans()
    elif kind == "str":
        base = TEXT
    elif kind == "int":
        base = NUMBER_INT
    elif kind == "float":
        base = NUMBER_FLOAT
    else:  # a new annotation kind must be given a strategy here, not skipped
        raise AssertionError(f"no strategy for the annotation {annotation!r}")
    return st.one_of(st.none(), base) if "None" in annotation else base


@st.composite
def requirements(draw: st.DrawFn) -> Requirement:
    req = Requirement(name=draw(TEXT), notes=draw(TEXT))
    for section in SECTIONS:
        obj = getattr(req, section)
        for f in fields(obj):
            if draw(st.booleans()):
                setattr(obj, f.name, draw(_values_for(str(f.type))))
    return req


def _expected(req: Requirement) -> dict:
    data = requirement_to_dict(req)
    for section in SECTIONS:  # an empty price table is not written; reading a missing one gives the default {}
        data[section] = {k: v for k, v in data[section].items() if v != {}}
    return data


@fuzz
@given(requirements())
@example(Requirement(name="a\rb"))
@example(Requirement(name="bell\x07 nul\x00 del\x7f", notes="line\r\nnext\u2028"))
@example(Requirement(name="x", notes='"""\'\'\'\\'))
def test_any_profile_writes_and_reads_back_equal(req):
    text = dumps_profile(req)
    assert tomllib.loads(text) == _expected(req)
    assert requirement_from_dict(tomllib.loads(text)) == req


def test_non_ascii_and_control_keys_in_price_tables_read_back():
    req = Requirement()
    req.tco.gpu_price_overrides_usd = {"é-gpu": 1.0, "h100\r": 2.0, "a b": 3.0, "": 4.0, "数": 5.0}
    back = requirement_from_dict(tomllib.loads(dumps_profile(req)))
    assert back.tco.gpu_price_overrides_usd == req.tco.gpu_price_overrides_usd


def test_a_missing_profile_is_explained_in_chinese_under_zh_cn(tmp_path):
    """The OS reason (strerror, English) once sat inside the Chinese sentence: "无法读取 ...：No such file or directory"."""
    import pytest

    from gpudesk import i18n
    from gpudesk.planner.errors import ProfileError
    from gpudesk.planner.profile import profile_file_text

    before = i18n.current_language()
    i18n.set_language("zh_CN")
    try:
        with pytest.raises(ProfileError) as caught:
            profile_file_text(tmp_path / "nope.toml")
    finally:
        i18n.set_language(before)
    assert "No such file" not in caught.value.user_text() and "不存在" in caught.value.user_text()
