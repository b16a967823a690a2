"""A font with Chinese glyphs is found (fonts-noto-cjk in CI), or the user is told what to install."""

from __future__ import annotations

from gpudesk.ui.cjk_font import cjk_font_family, has_cjk, missing_cjk_font_text, startup_font_warning


def test_prefers_noto_sans_cjk_sc_and_falls_back_to_any_sans_family():
    assert cjk_font_family(["Noto Serif CJK SC", "Noto Sans CJK JP", "Noto Sans CJK SC"]) == "Noto Sans CJK SC"
    assert cjk_font_family(["AR PL UMing CN", "Noto Sans Mono CJK SC"]) == "AR PL UMing CN"
    assert cjk_font_family(["Noto Serif CJK SC"]) == "Noto Serif CJK SC"
    assert cjk_font_family([]) is None


def test_installed_fonts_have_chinese_glyphs(qapp):
    """CI installs fonts-noto-cjk (.ci/run); without it Chinese text in the window and the PDF is empty boxes."""
    assert cjk_font_family() is not None, missing_cjk_font_text()


def test_detects_chinese_text():
    assert has_cjk("显存带宽") and has_cjk("GPU，") and not has_cjk("GPU memory 80 GiB — 3.35 TB/s")
    assert "fonts-noto-cjk" in missing_cjk_font_text()


def test_startup_warns_only_for_chinese_without_a_cjk_font():
    assert startup_font_warning("zh_CN", []) == missing_cjk_font_text()
    assert startup_font_warning("zh_CN", ["Noto Sans CJK SC"]) is None
    assert startup_font_warning("en_US", []) is None
