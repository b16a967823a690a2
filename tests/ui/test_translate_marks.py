"""The typed QT_TRANSLATE_NOOP returns its text unchanged, like PySide6's own, so marked tables stay str."""

from PySide6.QtCore import QT_TRANSLATE_NOOP as qt_noop

from gpudesk.ui.tabs import TAB_CLASSES
from gpudesk.ui.translate_marks import QT_TRANSLATE_NOOP


def test_returns_the_source_text_like_pyside6():
    assert QT_TRANSLATE_NOOP("MainWindow", "OOM doctor") == qt_noop("MainWindow", "OOM doctor") == "OOM doctor"


def test_tab_titles_are_the_english_texts():
    assert [title for _, _, title in TAB_CLASSES] == ["Plan", "Catalog", "Monitor", "OOM doctor"]
