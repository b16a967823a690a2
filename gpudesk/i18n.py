"""Translation of the Qt-free core's messages with the standard library's gettext.

Core modules write ``from gpudesk.i18n import _`` and wrap every user-visible sentence in ``_()``, with named
replacement fields filled after translation (``_("{gpu} has {size_gib:.1f} GiB").format(...)``), never a sentence glued
from pieces. Stable ids in ``--json`` output (rule ids, cause ids, field names) are not translated.

Catalogs are compiled ``.mo`` files under ``gpudesk/locale/<lang>/LC_MESSAGES/gpudesk.mo``; the language follows
``GPUDESK_LANG``, then the usual ``LANGUAGE`` / ``LC_ALL`` / ``LC_MESSAGES`` / ``LANG`` variables, and can be
switched at run time with :func:`set_language` (the UI does so to match its own language setting).
"""

from __future__ import annotations

import gettext as _gettext
import os
from pathlib import Path

DOMAIN = "gpudesk"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
#: Languages the app can be switched to (``--lang``, the Language menu): the source language and each catalog.
LANGUAGES = ("en", "zh_CN")

_translation: _gettext.NullTranslations = _gettext.NullTranslations()
_language: str | None = None


def _languages_from_environment() -> list[str] | None:
    explicit = os.environ.get("GPUDESK_LANG")
    if explicit:
        return [explicit]
    return None  # let gettext read LANGUAGE, LC_ALL, LC_MESSAGES and LANG


def set_language(language: str | None) -> None:
    """Use ``language`` (``"zh_CN"``, ``"en"``) for core messages from now on; ``None`` follows the environment."""
    global _translation, _language
    languages = [language] if language else _languages_from_environment()
    _translation = _gettext.translation(DOMAIN, localedir=LOCALE_DIR, languages=languages, fallback=True)
    _language = language


def current_language() -> str | None:
    return _language


def effective_language() -> str | None:
    """The language core messages are shown in: the one set, else the one the environment selects (GPUDESK_LANG,
    LANGUAGE, LC_ALL, LC_MESSAGES, LANG, as gettext reads them); None for English (no catalog found)."""
    if _language:
        return _language
    found = _gettext.find(DOMAIN, localedir=LOCALE_DIR, languages=_languages_from_environment())
    return Path(found).parent.parent.name if found else None  # <locale>/<language>/LC_MESSAGES/gpudesk.mo


def _(message: str) -> str:
    """Translate one whole sentence."""
    return _translation.gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """Translate a sentence whose form depends on ``count``."""
    return _translation.ngettext(singular, plural, count)


def N_(message: str) -> str:
    """Mark a message for extraction where it is defined; translate it with :func:`marked` where it is shown."""
    return message


def marked(message: str) -> str:
    """Translate a message that was marked with ``N_()`` where it was defined (a field label held in a table):
    ``_()`` takes only literals, so that extraction sees every message it translates."""
    return _translation.gettext(message)


set_language(None)


def join_sentences(*sentences: str) -> str:
    """Whole translated sentences as one text: a space after a Latin full stop, none after a full-width one
    (Chinese writes "。" with no space before the next sentence); empty sentences are left out."""
    text = ""
    for sentence in sentences:
        sentence = sentence.strip()
        if not sentence:
            continue
        if text and not text.endswith(("。", "！", "？", "；", "：", "）")):
            text += " "
        text += sentence
    return text
