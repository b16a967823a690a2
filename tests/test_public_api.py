"""docs/api.md: the documented public API of the Qt-free core; its examples run here, so they stay true."""

from __future__ import annotations

import doctest
from pathlib import Path

import gpudesk.units
from gpudesk import i18n

API_DOC = Path(__file__).resolve().parents[1] / "docs" / "api.md"


def test_the_examples_of_the_public_api_run():
    i18n.set_language("en")
    try:
        result = doctest.testfile(str(API_DOC), module_relative=False, optionflags=doctest.ELLIPSIS, verbose=False)
    finally:
        i18n.set_language(None)
    assert result.attempted >= 20 and result.failed == 0, result


def test_the_units_docstring_examples_run():
    i18n.set_language("en")
    try:
        result = doctest.testmod(gpudesk.units)
    finally:
        i18n.set_language(None)
    assert result.attempted >= 5 and result.failed == 0, result
