"""Is there a font with Chinese glyphs? Without one Qt draws empty boxes ("tofu") for CJK text, in the window
and in the PDF sheet, so the app checks at start-up (zh_CN) and before a PDF export, and says what to install.

Debian/Ubuntu ship Noto Sans CJK as ``fonts-noto-cjk``; Windows and macOS have Microsoft YaHei / PingFang SC.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QFontDatabase

#: Preferred families, best first (sans-serif faces designed for Simplified Chinese screens and print).
PREFERRED_FAMILIES = (
    "Noto Sans CJK SC", "Source Han Sans SC", "Source Han Sans CN", "Microsoft YaHei", "PingFang SC",
    "WenQuanYi Micro Hei", "WenQuanYi Zen Hei", "Noto Sans SC", "SimHei", "Noto Sans CJK JP",
)
#: CJK Unified Ideographs (and Extension A), CJK punctuation and full-width forms.
CJK_TEXT = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")


def has_cjk(text: str) -> bool:
    return CJK_TEXT.search(text) is not None


def cjk_font_family(families: Iterable[str] | None = None) -> str | None:
    """The best installed family with Simplified Chinese glyphs, or None. ``families`` defaults to the ones Qt
    reports for the Simplified Chinese writing system (needs a QGuiApplication)."""
    available = list(QFontDatabase.families(QFontDatabase.WritingSystem.SimplifiedChinese)
                     if families is None else families)
    for family in PREFERRED_FAMILIES:
        if family in available:
            return family
    proportional = [f for f in available if "Mono" not in f and "Serif" not in f]
    fallback = proportional or available
    return fallback[0] if fallback else None


def missing_cjk_font_text() -> str:
    """What to tell the user when no CJK font is installed."""
    return QCoreApplication.translate(
        "CjkFont", "No font with Chinese characters is installed, so Chinese text shows as empty boxes. Install "
        "one (Debian/Ubuntu: sudo apt install fonts-noto-cjk; Fedora: google-noto-sans-cjk-fonts) and restart gpudesk.")


def startup_font_warning(language: str, families: Iterable[str] | None = None) -> str | None:
    """The message to show at start-up when ``language`` is written in Chinese and no font has its glyphs."""
    if language.split("_")[0] != "zh" or cjk_font_family(families) is not None:
        return None
    return missing_cjk_font_text()
