"""argparse's own texts (``usage:``, ``options``, ``error:`` ...) in the user's language.

argparse translates its texts with the standard library's default gettext domain, for which no catalog is
installed; :func:`install` routes them through :mod:`gpudesk.i18n` instead, whose catalogs carry the texts
marked below (the ones a user of ``gpudesk`` sees, as written in CPython 3.11's Lib/argparse.py:
https://github.com/python/cpython/blob/3.11/Lib/argparse.py). Texts not listed stay English.
"""

from __future__ import annotations

import argparse

from gpudesk import i18n
from gpudesk.i18n import N_

#: argparse's texts that reach a gpudesk user: help framing and command-line errors.
ARGPARSE_TEXTS = (
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("show this help message and exit"),
    N_("%(prog)s: error: %(message)s\n"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("the following arguments are required: %s"),
    N_("unrecognized arguments: %s"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("invalid %(type)s value: %(value)r"),
    N_("expected one argument"),
    N_("expected at most one argument"),
    N_("expected at least one argument"),
    N_("one of the arguments %s is required"),
    N_("not allowed with argument %s"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("unknown parser %(parser_name)r (choices: %(choices)s)"),
)


def install() -> None:
    """Make argparse look its texts up in gpudesk's catalog (a module attribute argparse reads at each call)."""
    argparse._ = i18n._  # type: ignore[attr-defined]
    argparse.ngettext = i18n.ngettext  # type: ignore[attr-defined]
