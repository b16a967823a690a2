"""The text page's operating-system and other-processes inputs: the window ranks as `gpudesk oom diagnose --os …
--other-processes-gib …` does, and shows a given figure as given."""

from __future__ import annotations

from PySide6.QtCore import Qt

from gpudesk.cli import main
from helpers.oom_tab import make_oom_tab

BARE = "RuntimeError: CUDA error: out of memory"  # microsoft/WSL#8447 (WSL2: pinned host memory)
FIGURES = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity "
           "of 23.65 GiB of which 1.20 GiB is free. Of the allocated memory 12.10 GiB is allocated by PyTorch, "
           "and 0.50 GiB is reserved by PyTorch but unallocated.")


def _diagnose(qtbot, tab, text: str):
    tab.picker.text_input.set_text(text)
    before = tab.results.diagnosis
    tab.picker.text_input.diagnose_button.click()
    qtbot.waitUntil(lambda: tab.results.diagnosis is not None and tab.results.diagnosis is not before, timeout=5000)
    return tab.results.diagnosis


def _cli_first_cause(tmp_path, capsys, *flags: str) -> str:
    path = tmp_path / "oom.txt"
    path.write_text(BARE, encoding="utf-8")
    capsys.readouterr()
    assert main(["oom", "diagnose", str(path), "--json", *flags]) == 0
    import json
    return json.loads(capsys.readouterr().out)["causes"][0]["id"]


def test_os_and_other_processes_change_the_first_cause_as_in_the_cli(qtbot, tmp_path, capsys):
    tab = make_oom_tab(qtbot)
    inputs = tab.picker.text_input.context_inputs
    assert inputs.context() is None  # defaults: detect from the text, not given
    plain = _diagnose(qtbot, tab, BARE).top
    assert plain.id == "genuine_shortage" == _cli_first_cause(tmp_path, capsys)

    inputs.set_context("wsl", None)
    wsl = _diagnose(qtbot, tab, BARE).top
    assert (wsl.id, wsl.evidence["deciding_check"]) == ("not_capacity", "pin_memory")
    assert wsl.id == _cli_first_cause(tmp_path, capsys, "--os", "wsl")

    inputs.set_context(None, 6.0)
    others = _diagnose(qtbot, tab, BARE).top
    assert others.id == "other_process" == _cli_first_cause(tmp_path, capsys, "--other-processes-gib", "6")


def test_the_inputs_are_reached_by_keyboard(qtbot):
    tab = make_oom_tab(qtbot)
    inputs = tab.picker.text_input.context_inputs
    inputs.os_combo.setFocus()
    qtbot.keyClick(inputs.os_combo, Qt.Key.Key_Down)
    assert inputs.os_combo.currentData() == "linux"
    for widget in (inputs.os_combo, inputs.others_spin):
        assert widget.toolTip() and widget.focusPolicy() & Qt.FocusPolicy.TabFocus
    inputs.others_spin.setFocus()
    inputs.others_spin.selectAll()
    qtbot.keyClicks(inputs.others_spin, "3.5")  # typed over the "not given" text
    context = inputs.context()
    assert context is not None and context.host_os == "linux" and context.other_processes_bytes == int(3.5 * 1024**3)


def test_a_given_figure_is_shown_as_given_in_the_account(qtbot):
    tab = make_oom_tab(qtbot)
    tab.picker.text_input.context_inputs.set_context(None, 9.0)
    _diagnose(qtbot, tab, FIGURES)
    label = tab.results.account.term_labels["other_processes"].text()
    assert "9.00 GiB" in label and "given by you" in label and "measured" not in label


def test_the_window_says_the_os_was_given(qtbot):
    tab = make_oom_tab(qtbot)
    tab.picker.text_input.context_inputs.set_context("wsl", None)
    _diagnose(qtbot, tab, FIGURES)
    assert "OS WSL2 (given by you)" in tab.results.account.recognised.text()
    tab.picker.text_input.context_inputs.set_context(None, None)
    _diagnose(qtbot, tab, "  File \"C:\\\\Users\\\\me\\\\train.py\", line 3\n" + FIGURES)
    assert "OS Windows (from the text)" in tab.results.account.recognised.text()
