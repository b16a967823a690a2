"""The OOM tab as a new user met it (usertest of the real window): duplicate keyboard mnemonics, a failed snapshot
open leaving the previous analysis below, a binary log loaded as mojibake, the "no figures yet" placeholder after
a diagnosis, the engine missing from the header, "NVML" on ROCm / MPS, and the snapshot timeline's counts and
peak label. Real messages from tests/fixtures/oom/engine_cases.jsonl (each with its issue URL)."""

from __future__ import annotations

import collections
import json
import pickle
import re
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QAbstractButton, QLabel, QTabBar

from gpudesk.store import open_store
from gpudesk.ui.context import AppContext
from gpudesk.ui.oom.snapshot_view import SnapshotView
from gpudesk.ui.oom.tab import OomTab

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "oom"))
import snapshot_builder as sb  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "oom"
CASES = {c["url"]: c for c in (json.loads(line) for line in (FIXTURES / "engine_cases.jsonl").read_text(
    encoding="utf-8").splitlines() if line.strip())}
MENU_MNEMONICS = "flh"  # the main window's &File, &Language, &Help


@pytest.fixture
def tab(qtbot):  # type: ignore[no-untyped-def]
    widget = OomTab(AppContext(store=open_store(), notify=lambda text, level="info": None))
    qtbot.addWidget(widget)
    widget.resize(1280, 800)
    widget.show()
    return widget


def _mnemonic(text: str) -> str | None:
    found = re.search(r"&([^&\s])", text.replace("&&", ""))
    return found.group(1).lower() if found else None


def test_every_visible_mnemonic_is_unique_on_every_page(qtbot, tab) -> None:  # type: ignore[no-untyped-def]
    # Alt+P went to "GPU processes" (also "&Probe process"); Alt+L, Alt+H, Alt+F hit the menu bar's too.
    tab.snapshot.cancel_button.setVisible(True)
    clashes = {}
    for source in range(tab.picker.pages.count()):
        tab.picker.pages.setCurrentIndex(source)
        for page in range(tab.pages.count()):
            tab.pages.setCurrentIndex(page)
            qtbot.wait(1)
            seen: dict[str, list[str]] = collections.defaultdict(list)
            for letter in MENU_MNEMONICS:
                seen[letter].append("menu")
            for bar in tab.findChildren(QTabBar):
                if bar.isVisible():
                    for i in range(bar.count()):
                        if (letter := _mnemonic(bar.tabText(i))) is not None:
                            seen[letter].append(bar.tabText(i))
            for widget in tab.findChildren(QAbstractButton) + tab.findChildren(QLabel):
                if widget.isVisible() and (letter := _mnemonic(widget.text())) is not None:
                    seen[letter].append(widget.text())
            clashes.update({(source, page, k): v for k, v in seen.items() if len(v) > 1})
    assert clashes == {}


def test_a_garbage_pickle_clears_the_previous_analysis(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    view = SnapshotView()
    qtbot.addWidget(view)
    view.show()
    good, bad = tmp_path / "good.pickle", tmp_path / "garbage.pickle"
    good.write_bytes(pickle.dumps(sb.shortage_oom("2.5")))
    bad.write_bytes(bytes(range(256)) * 40)
    with qtbot.waitSignal(view.loaded, timeout=20_000):
        view.open_file(good)
    qtbot.waitUntil(lambda: not view.is_loading(), timeout=5_000)
    assert view.explanation.toPlainText()
    with qtbot.waitSignal(view.failed, timeout=20_000):
        view.open_file(bad)
    assert view.analysis is None and view.explanation.toPlainText() == ""
    assert view.device_combo.count() == 0 and not view.tabs.isVisible()


def test_a_binary_log_is_not_loaded_into_the_editor(qtbot, tab, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    text_input = tab.picker.text_input
    text_input.set_text("kept text")
    path = tmp_path / "garbage.log"
    path.write_bytes(bytes(range(256)) * 40)
    with qtbot.waitSignal(text_input.submitted, timeout=10_000):
        text_input.load_file(str(path))
    assert "is not a text log" in text_input.info.text() and "binary" in text_input.info.text()
    assert text_input.text() == "kept text"
    qtbot.waitUntil(lambda: "unparseable" in tab.results.cause_ids() or "binary" in tab.results.header.text()
                    + tab.results.partial.text(), timeout=5000)


def _diagnose(qtbot, tab, text: str):  # type: ignore[no-untyped-def]
    tab.picker.text_input.set_text(text)
    before = tab.results.diagnosis
    tab.picker.text_input.diagnose_button.click()
    qtbot.waitUntil(lambda: tab.results.diagnosis is not None and tab.results.diagnosis is not before, timeout=5000)
    return tab.results


def test_sglang_header_names_the_engine_and_no_placeholder_after_a_diagnosis(qtbot, tab) -> None:  # type: ignore[no-untyped-def]
    results = _diagnose(qtbot, tab, CASES["https://github.com/sgl-project/sglang/issues/4330"]["message"])
    assert results.header.text().startswith("Engine: SGLang · Framework: PyTorch")
    shown = [label.text() for label in results.bars.findChildren(QLabel) if label.isVisible()]
    assert not any("No memory figures yet" in text for text in shown)
    assert any("gives no per-GPU memory figures" in text for text in shown)


def test_rocm_and_mps_results_do_not_name_nvml(qtbot, tab) -> None:  # type: ignore[no-untyped-def]
    for url in ("https://github.com/kyuz0/amd-strix-halo-image-video-toolboxes/issues/3",
                "https://github.com/Comfy-Org/ComfyUI/issues/2489"):
        results = _diagnose(qtbot, tab, CASES[url]["message"])
        visible = [label.text() for label in results.findChildren(QLabel) if label.isVisible()]
        assert not any("NVML" in text for text in visible), (url, [t for t in visible if "NVML" in t])


def test_one_event_snapshot_says_so_instead_of_an_empty_timeline(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = SnapshotView()
    qtbot.addWidget(view)
    view.show()
    snap = sb.many_events(2)
    snap["device_traces"][0] = snap["device_traces"][0][:1]
    from gpudesk.oom.snapshot.analysis import analyse
    from gpudesk.oom.snapshot.convert import to_snapshot

    view.set_analysis(analyse(to_snapshot(snap)))
    assert view.timeline.caption.text().startswith("Only one trace event on GPU 0")
    assert not view.timeline.plot.isVisible()


def test_snapshot_counts_agree_and_the_peak_label_sits_on_the_peak(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = SnapshotView()
    qtbot.addWidget(view)
    view.show()
    from gpudesk.oom.snapshot.analysis import analyse
    from gpudesk.oom.snapshot.convert import to_snapshot

    analysis = analyse(to_snapshot(sb.leak_run("2.5")))
    view.set_analysis(analysis)
    dev = analysis.device()
    assert dev is not None and dev.peak_index is not None
    events = f"{dev.event_count:,}"
    assert f"trace event #{dev.peak_index:,} of the {events} on GPU {dev.device}" in view.explanation.toPlainText()
    assert f"of the {events} on GPU {dev.device}" in view.timeline.caption.text()
    assert "trace events on all GPUs" in view.status.text()
    label = view.timeline._peak_label
    assert label is not None
    assert label.pos().y() == pytest.approx(dev.timeline.allocated_bytes[dev.peak_index] / 1024**3)
