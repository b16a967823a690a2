"""A typed ``QT_TRANSLATE_NOOP``: marks a source text for lupdate and returns it unchanged.

PySide6 ships the same function (it returns ``message`` as is), but its stub types the result as ``object``,
so a table of marked texts could not be typed ``str``. lupdate and tests/ui/test_translations.py find the
marks by the call's name, which is the same here; the text is translated where it is shown
(``self.tr(text)`` or ``QCoreApplication.translate(context, text)``).
"""


def QT_TRANSLATE_NOOP(context: str, source_text: str, /) -> str:
    """``source_text``, marked for translation in ``context`` (translated later, where it is shown)."""
    return source_text
