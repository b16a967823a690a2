"""qa20: a cause card's "Effect of sizing fixes" lines are one translated sentence each (zh_CN: a full-width colon),
and a TensorFlow report's card names no PyTorch-only sharding (gpudesk.oom.framework_fixes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QTranslator
from PySide6.QtWidgets import QLabel

from gpudesk import i18n
from gpudesk.oom import diagnose_text
from gpudesk.ui.oom.results_view import CauseCard

REPO = Path(__file__).resolve().parents[3]
URL = "https://github.com/GoogleCloudPlatform/practical-ml-vision-book/issues/6"  # TensorFlow, training


def _message() -> str:
    for line in (REPO / "tests/fixtures/oom/fresh_cases_14.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip() and json.loads(line)["url"] == URL:
            return str(json.loads(line)["message"])
    raise AssertionError(URL)


@pytest.fixture
def zh_cn(qapp):
    translator = QTranslator()
    assert translator.load(str(REPO / "resources/translations/gpudesk_zh_CN.qm"))
    qapp.installTranslator(translator)
    before = i18n.current_language()
    i18n.set_language("zh_CN")
    yield
    i18n.set_language(before)
    qapp.removeTranslator(translator)


def _sizing_lines(qtbot) -> list[str]:
    cause = next(c for c in diagnose_text(_message()).causes if c.id == "genuine_shortage")
    card = CauseCard(cause, 1)
    qtbot.addWidget(card)
    names = [effect.fix for effect in cause.sizing]
    return [label.text() for label in card.findChildren(QLabel) if any(label.text().startswith(f"• {n}") for n in names)]


def test_sizing_lines_use_the_chinese_colon(zh_cn, qtbot):
    lines = _sizing_lines(qtbot)
    assert len(lines) == 3 and all("：" in line and ": " not in line for line in lines), lines


def test_tensorflow_card_lists_no_pytorch_sharding(qtbot):
    lines = _sizing_lines(qtbot)
    assert lines and not [line for line in lines if "FSDP" in line or "ZeRO" in line], lines
