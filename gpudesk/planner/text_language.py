"""The language a plan document's prose was written in, and the note a reader in another language gets.

A plan document stores its explanations as rendered text (rank reasons, warnings, rationale, price texts): the
words purchasing saw and signed. They are kept as written; the figures, labels and units around them follow the
reader's language. ``text_language`` records which language that prose is in, so a plan saved in English and
opened in zh_CN (or the reverse) says so instead of silently mixing two languages.
"""

from __future__ import annotations

from gpudesk.i18n import _, effective_language

#: The language of prose written with no catalog active (gettext's source language).
SOURCE_LANGUAGE = "en"


def writing_language() -> str:
    """The language prose written now is in: the active catalog's, else English."""
    return effective_language() or SOURCE_LANGUAGE


def language_name(code: str) -> str:
    """A language code as a reader would name it (the code itself when gpudesk has no name for it)."""
    names = {"en": _("English"), "zh_CN": _("Simplified Chinese")}
    return names.get(code, names.get(code.split("_")[0], code))


def prose_language_note(text_language: str | None) -> str | None:
    """The note for a saved plan whose prose is in another language than the reader's; None when they match or
    the plan predates the record (``text_language`` None)."""
    if not text_language:
        return None
    reading = writing_language()
    if text_language.split("_")[0] == reading.split("_")[0]:
        return None
    return _("This plan's explanations (why each rank, warnings, decisions) are shown as they were written when it "
             "was saved, in {saved}; the figures, labels and units follow your language. Plan it again to have "
             "them in {current}.").format(saved=language_name(text_language), current=language_name(reading))
