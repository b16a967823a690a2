"""A Chinese configuration sheet exported as PDF (gpudesk/ui/plan/sheet_pdf.py) embeds a CJK font and its text
reads back as Chinese, or the export says which font to install instead of writing empty boxes."""

from __future__ import annotations

import shutil
import subprocess
import unicodedata

import pytest

from gpudesk.planner.sheet import SheetError
from gpudesk.ui.plan import sheet_pdf

SHEET_ZH = """# 配置单：Llama-3-8B 全参数微调

| GPU | 显存 | 显存带宽 |
|---|---|---|
| H100 SXM5 | 80 GiB | 3.35 TB/s |

使用混合精度（bf16）与梯度检查点；张量并行 2 路，峰值显存 71.4 GiB。
"""


def test_chinese_sheet_embeds_a_cjk_font_and_reads_back(qapp, tmp_path):
    path = sheet_pdf.markdown_to_pdf(SHEET_ZH, tmp_path / "sheet.pdf", "配置单")
    data = path.read_bytes()
    assert b"/BaseFont /NotoSansCJK" in data or b"CJK" in data  # the CJK face is embedded
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) not installed: text read-back not checked")
    text = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, timeout=60,
                          check=True).stdout
    # Noto CJK shares some glyphs with the Kangxi radicals (用 / U+2F64), and Qt's ToUnicode map may name the
    # radical; NFKC maps it back to the ideograph a reader sees.
    text = unicodedata.normalize("NFKC", text)
    assert "配置单:Llama-3-8B 全参数微调" in text
    assert "H100 SXM5 80 GiB 3.35 TB/s" in " ".join(text.split())  # Latin text and numbers keep their font
    assert "使用混合精度(bf16)与梯度检查点;张量并行 2 路" in text  # NFKC also narrows full-width punctuation


def test_without_a_cjk_font_the_export_says_what_to_install(qapp, tmp_path, monkeypatch):
    monkeypatch.setattr(sheet_pdf, "cjk_font_family", lambda: None)
    with pytest.raises(SheetError, match="fonts-noto-cjk"):
        sheet_pdf.markdown_to_pdf(SHEET_ZH, tmp_path / "sheet.pdf")
    assert not (tmp_path / "sheet.pdf").exists()
    # An English sheet needs no CJK font.
    assert sheet_pdf.markdown_to_pdf("# Sheet\n\nH100 SXM5, 80 GiB.", tmp_path / "en.pdf").stat().st_size > 0
