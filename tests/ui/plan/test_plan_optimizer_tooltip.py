"""The wizard's Optimizer help lists the names the sizing accepts, read from its alias table (qafix4 item 1)."""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import QTranslator

from gpudesk.sizing import optimizers
from gpudesk.sizing.optimizers import LEGACY_ACCOUNTING, OPTIMIZER_ALIASES, OPTIMIZER_NAMES
from gpudesk.ui.plan.questions import build_pages, optimizer_tooltip

QM = Path(__file__).resolve().parents[3] / "resources" / "translations" / "gpudesk_zh_CN.qm"


def _names(text: str) -> set[str]:
    return set(re.findall(r"[a-z][a-z0-9_\-]*[a-z0-9]", text)) & set(OPTIMIZER_NAMES)


def _tooltip() -> str:
    fields = {f.key: f for p in build_pages(None) for f in p.fields}
    return fields["model.optimizer"].tooltip


def test_the_field_help_names_every_optimizer_the_sizing_accepts(qapp) -> None:
    assert _tooltip() == optimizer_tooltip()
    assert _names(_tooltip()) == set(OPTIMIZER_NAMES)
    for name in LEGACY_ACCOUNTING:
        assert re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", _tooltip()), name


def test_a_name_added_to_the_alias_table_is_listed(qapp, monkeypatch) -> None:
    monkeypatch.setitem(OPTIMIZER_ALIASES, "paged_adamw_qa", "adam")
    monkeypatch.setitem(OPTIMIZER_ALIASES, "adamw_qa", "adam")
    text = optimizer_tooltip()
    assert "adamw_qa" in text and "paged_adamw_qa" in text
    groups = {(fam, paged): names for fam, paged, names in optimizers.optimizer_alias_groups()}
    assert groups[("adam", True)][-1] == "paged_adamw_qa" and groups[("adam", False)][-1] == "adamw_qa"


def test_zh_cn_help_is_chinese_with_the_same_names(qapp) -> None:
    translator = QTranslator()
    assert translator.load(str(QM))
    qapp.installTranslator(translator)
    try:
        text = optimizer_tooltip()
    finally:
        qapp.removeTranslator(translator)
    assert "亦作" in text and "按字节核算" in text and "、" in text
    assert _names(text) == set(OPTIMIZER_NAMES)
