"""Translations: lupdate sees the UI's texts, the shipped zh_CN .ts/.qm are current, installing the .qm turns
the main window Chinese, and no literal user text bypasses Qt's translation functions.

Regenerate the shipped files with ``make translations`` (resources/translations/README.md).
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QSettings, QTranslator

from gpudesk.catalog.fields import SPEC_FIELDS
from gpudesk.ui.context import AppContext

REPO = Path(__file__).resolve().parents[2]
UI = REPO / "gpudesk" / "ui"
TRANSLATIONS = REPO / "resources" / "translations"
SHIPPED_TS = TRANSLATIONS / "gpudesk_zh_CN.ts"
SHIPPED_QM = TRANSLATIONS / "gpudesk_zh_CN.qm"

#: lupdate found 1026 messages when this test was written; a drop below this means texts went invisible.
MIN_MESSAGES = 950

#: One translation context per tab (the tab class's own self.tr) plus the window and the Plan questions.
REQUIRED_CONTEXTS = {"MainWindow", "PlanTab", "CatalogTab", "MonitorTab", "OomTab", "PlanWizard",
                     "PlanQuestions", "AboutDialog", "MessageBar"}

#: Files whose texts this test holds to the rules.
OWNED = sorted([*UI.glob("*.py"), *(UI / "plan").glob("*.py"), *(UI / "catalog").glob("*.py"),
                *(UI / "monitor").glob("*.py"), *(UI / "oom").glob("*.py")])

#: Calls whose string arguments are shown to the user.
SINKS = {
    "setText", "setToolTip", "setStatusTip", "setWhatsThis", "setPlaceholderText", "setWindowTitle", "setTitle",
    "addTab", "insertTab", "setTabText", "setTabToolTip", "addAction", "addMenu", "addItem", "addItems",
    "setItemText", "setHorizontalHeaderLabels", "setVerticalHeaderLabels", "setHeaderLabels", "setLabelText",
    "setSpecialValueText", "setPrefix", "setSuffix", "addRow", "setFormat", "QAction", "QLabel", "QPushButton",
    "QCheckBox", "QRadioButton", "QGroupBox", "QToolButton", "QMessageBox", "QTableWidgetItem", "QListWidgetItem",
    "QStandardItem", "information", "warning", "critical", "question", "getOpenFileName", "getSaveFileName",
    "getExistingDirectory", "notify", "showMessage", "show_message", "setLabel",
}
#: Units are not translated (the product keeps datasheet units as they are).
UNIT_WORDS = {"GB", "GiB", "MB", "MiB", "TB", "USD", "TFLOPS", "TOPS", "kW", "ms", "GHz", "MHz"}
WORD = re.compile(r"[A-Za-z]{2,}")
#: translate(context, variable) calls whose sources are marked with QT_TRANSLATE_NOOP elsewhere (file, context).
MARKED_ELSEWHERE = {
    ("main_window.py", "MainWindow"),  # tabs.py TAB_CLASSES
    ("table_model.py", "CatalogFields"),  # table_model.FIELD_TEXTS and SHORT_LABELS
    ("toolbar.py", "MonitorTab"),  # monitor/plots.py WINDOWS_S
    ("gpu_table.py", None),  # self.tr(header): GpuTableModel's COLUMNS
    ("process_table.py", None),  # self.tr(header): ProcessModel's HEADERS
    ("recordings_view.py", None),  # self.tr(header): RecordingsView's HEADERS
}
#: For these calls only the arguments at these positions (and these keywords) are shown text; the others are
#: file names, styles or values (setTitle(text, size="9pt"), getSaveFileName(parent, caption, "out.csv", filter)).
TEXT_ARGS = {
    "setTitle": ((0,), {"title"}),
    "getOpenFileName": ((1, 3), {"caption", "filter"}),
    "getSaveFileName": ((1, 3), {"caption", "filter"}),
    "getExistingDirectory": ((1,), {"caption"}),
}


def _lupdate(ts: Path) -> None:
    tool = Path(sys.executable).with_name("pyside6-lupdate")
    exe = str(tool) if tool.exists() else shutil.which("pyside6-lupdate")
    assert exe, "pyside6-lupdate (part of PySide6) not found next to the Python interpreter or on PATH"
    sources = sorted(str(p) for p in UI.rglob("*.py"))
    subprocess.run([exe, "-no-obsolete", *sources, "-ts", str(ts)], check=True, capture_output=True, timeout=60)


def _messages(ts: Path) -> dict[tuple[str, str], ET.Element]:
    """(context, source) -> <message> for every current (not obsolete/vanished) message of a .ts file."""
    found = {}
    for context in ET.parse(ts).getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            kind = message.find("translation").get("type")
            if kind not in ("obsolete", "vanished"):
                found[(name, message.findtext("source"))] = message
    return found


@pytest.fixture(scope="module")
def fresh_ts(tmp_path_factory) -> dict[tuple[str, str], ET.Element]:
    ts = tmp_path_factory.mktemp("lupdate") / "fresh.ts"
    _lupdate(ts)
    return _messages(ts)


@pytest.fixture
def zh_cn(qapp):
    from gpudesk import i18n

    translator = QTranslator()
    assert translator.load(str(SHIPPED_QM)), f"could not load {SHIPPED_QM}"
    qapp.installTranslator(translator)
    before = i18n.current_language()
    i18n.set_language("zh_CN")  # as the app does: the window's language is the core's too (units, findings)
    yield translator
    i18n.set_language(before)
    qapp.removeTranslator(translator)


def test_lupdate_finds_every_tab_and_many_messages(fresh_ts):
    contexts = {context for context, _ in fresh_ts}
    assert contexts >= REQUIRED_CONTEXTS, REQUIRED_CONTEXTS - contexts
    assert len(fresh_ts) > MIN_MESSAGES
    # Texts reached only through helpers or marked lists are extracted too.
    assert ("PlanQuestions", "1. Data and I/O") in fresh_ts
    assert ("CatalogFields", "Memory bandwidth") in fresh_ts
    assert ("MainWindow", "OOM doctor") in fresh_ts


def test_shipped_ts_is_up_to_date_with_the_sources(fresh_ts):
    shipped = _messages(SHIPPED_TS)
    missing = sorted(set(fresh_ts) - set(shipped))
    stale = sorted(set(shipped) - set(fresh_ts))
    assert not missing and not stale, f"run `make translations`; new: {missing[:5]}, gone: {stale[:5]}"


def test_shipped_qm_is_built_from_the_shipped_ts(tmp_path):
    tool = Path(sys.executable).with_name("pyside6-lrelease")
    exe = str(tool) if tool.exists() else shutil.which("pyside6-lrelease")
    assert exe, "pyside6-lrelease not found"
    built = tmp_path / "check.qm"
    subprocess.run([exe, "-nounfinished", str(SHIPPED_TS), "-qm", str(built)], check=True, capture_output=True,
                   timeout=60)
    assert built.read_bytes() == SHIPPED_QM.read_bytes(), "run `make translations` to rebuild the .qm"


def test_required_parts_are_translated_into_chinese():
    shipped = _messages(SHIPPED_TS)
    for context in ("MainWindow", "AboutDialog", "MessageBar", "PlanWizard", "WizardPage", "PlanQuestions"):
        texts = {source: message for (ctx, source), message in shipped.items() if ctx == context}
        assert texts, context
        for source, message in texts.items():
            translation = message.find("translation")
            assert translation.get("type") is None, f"{context}: {source!r} is unfinished"
            text = (translation.text or "").strip() or "".join(f.text or "" for f in translation.iter("numerusform"))
            assert text.strip(), f"{context}: {source!r} has an empty translation"
    # The translations keep the placeholders and keyboard mnemonics of their sources.
    for (context, source), message in shipped.items():
        translation = message.find("translation")
        # A plural message (Qt's %n) keeps its text in <numerusform> children.
        text = (translation.text or "").strip() or "".join(f.text or "" for f in translation.iter("numerusform"))
        if text and translation.get("type") is None:
            assert set(re.findall(r"\{\d\}", source)) == set(re.findall(r"\{\d\}", text)), (context, source, text)
            assert ("&" in source.replace("&&", "")) == ("&" in text.replace("&&", "")), (context, source, text)


def test_zh_cn_qm_makes_the_main_window_chinese(qtbot, tmp_path, zh_cn):
    from gpudesk.ui.main_window import MainWindow

    window = MainWindow(ctx=AppContext(), settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    titles = [window.tabs.tabText(i) for i in range(window.tabs.count())]
    assert titles[:2] == ["规划", "目录"]
    assert "监控" in titles and "OOM 诊断" in titles
    menus = [action.text() for action in window.menuBar().actions()]
    assert menus[0] == "文件(&F)" and menus[-1] == "帮助(&H)"
    assert window.language_menu.menuAction() in window.menuBar().actions()  # File, Language, Help


def test_the_app_loads_the_shipped_file_for_a_zh_cn_system_locale(qapp, monkeypatch):
    from PySide6.QtCore import QLocale

    from gpudesk.ui import app as app_module

    class ChineseSystem:
        @staticmethod
        def system() -> QLocale:
            return QLocale("zh_CN")

    monkeypatch.setattr(app_module, "QLocale", ChineseSystem)
    translators = app_module.install_translators(qapp)
    try:
        assert any(t.filePath().endswith("gpudesk_zh_CN.qm") for t in translators)
        assert QCoreApplication.translate("MainWindow", "Plan") == "规划"
    finally:
        for translator in translators:
            qapp.removeTranslator(translator)
    assert QCoreApplication.translate("MainWindow", "Plan") == "Plan"


def test_zh_cn_qm_translates_the_plan_wizard_pages(zh_cn):
    from gpudesk.ui.plan.questions import build_pages

    pages = build_pages(None)
    assert [p.title for p in pages] == ["1. 数据与 I/O", "2. 模型与显存", "3. 训练还是推理", "4. 软件栈", "5. 运维与扩展"]
    assert pages[0].question.startswith("数据有多少")
    captions = {f.key: f.label for p in pages for f in p.fields}
    assert captions["model.seq_len_tokens"] == "序列长度"
    assert QCoreApplication.translate("PlanQuestions", "Samples") == "样本数"


def test_zh_cn_qm_translates_the_monitor_tab(qtbot, zh_cn):
    from helpers.fake_pynvml import make_fake_pynvml

    from gpudesk.units import format_duration
    from gpudesk.ui.monitor.no_gpu_panel import headline
    from gpudesk.ui.monitor.tab import MonitorTab

    tab = MonitorTab(AppContext(), nvml=make_fake_pynvml([], init_error="DriverNotLoaded"))
    qtbot.addWidget(tab)
    try:
        assert [tab.subtabs.tabText(i) for i in range(tab.subtabs.count())] == [
            "曲线图", "热力图", "统计", "发现", "进程", "录制", "集群"]
        assert tab.toolbar.window_combo.itemText(0) == "1 分钟"  # plots.WINDOWS_S, marked with QT_TRANSLATE_NOOP
        assert tab.toolbar.pause_button.text() == "暂停(&P)"
    finally:
        tab.shutdown()
    # Texts of the module-level helpers (context "Monitor") reach the .qm too.
    assert headline("driver-not-loaded") == "NVIDIA 驱动未加载"
    assert format_duration(600) == "10 分钟"


def test_zh_cn_qm_translates_the_oom_tab(qtbot, zh_cn):
    from gpudesk.ui.oom.method_choice import method_names
    from gpudesk.ui.oom.results_view import format_value
    from gpudesk.ui.oom.tab import OomTab

    tab = OomTab(AppContext())
    qtbot.addWidget(tab)
    try:
        assert [tab.pages.tabText(i) for i in range(tab.pages.count())] == [
            "诊断(&G)", "实时显存(&M)", "显存快照(&N)", "历史(&Y)"]
        assert tab.results.copy_report_button.text() == "复制报告"
        assert tab.picker.text_input.diagnose_button.text() == "诊断(&D)"
    finally:
        tab.shutdown()
    # Module-level texts (QCoreApplication.translate with a literal context) reach the .qm too.
    assert method_names()["gdb"] == "gdb 注入（较旧的 CPython，Linux）"
    assert format_value("tensor_shape", None) == "N/A" and format_value("flag", True) == "是"
    # The evidence table's byte count: no English unit left in a Chinese window (issue 28).
    assert format_value("requested_bytes", 576716800) == "550.00 MiB（576,716,800 字节）"


def test_without_a_translator_the_sources_are_shown():
    from gpudesk.ui.plan.questions import build_pages

    assert build_pages(None)[0].title == "1. Data and I/O"


def test_every_catalog_field_text_is_marked_for_translation():
    from gpudesk.ui.catalog.table_model import FIELD_TEXTS

    texts = {t for f in SPEC_FIELDS for t in (f.label, f.none_text, f.zero_text) if t}
    assert texts <= set(FIELD_TEXTS), texts - set(FIELD_TEXTS)


# -- static check -------------------------------------------------------------------------------------------
def _call_name(node: ast.Call) -> str | None:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def _user_words(node: ast.AST) -> str | None:
    """The English text of a literal (or f-string, concatenation, list of them) that would reach the user."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
    elif isinstance(node, ast.JoinedStr):
        text = "".join(v.value for v in node.values if isinstance(v, ast.Constant))
    elif isinstance(node, ast.BinOp):
        return _user_words(node.left) or _user_words(node.right)
    elif isinstance(node, (ast.List, ast.Tuple)):
        return next((w for w in map(_user_words, node.elts) if w), None)
    elif isinstance(node, ast.IfExp):
        return _user_words(node.body) or _user_words(node.orelse)
    else:
        return None
    words = [w for w in WORD.findall(text) if w not in UNIT_WORDS]
    return text if words else None


def _is_literal(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    return isinstance(node, ast.BinOp) and _is_literal(node.left) and _is_literal(node.right)


def find_problems(path: Path, root: Path = REPO) -> list[str]:
    """``file:line: problem`` for texts lupdate cannot see or that skip translation."""
    problems = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        name = _call_name(node)
        where = f"{path.relative_to(root)}:{node.lineno}"
        if name == "tr" and isinstance(node.func, ast.Name):
            problems.append(f"{where}: a module-level tr() gets the wrong context in lupdate; call "
                            f"QCoreApplication.translate(\"Context\", ...): {ast.unparse(node)}")
        elif name in ("tr", "translate", "QT_TRANSLATE_NOOP", "QT_TR_NOOP"):
            index = 1 if name in ("translate", "QT_TRANSLATE_NOOP") else 0
            if len(node.args) <= index:
                continue
            context = node.args[0] if index else None
            if context is not None and not _is_literal(context):
                problems.append(f"{where}: context is not a literal: {ast.unparse(node)}")
            if not _is_literal(node.args[index]):
                ctx = context.value if isinstance(context, ast.Constant) else None
                if (path.name, ctx) not in MARKED_ELSEWHERE:
                    problems.append(f"{where}: source text lupdate cannot see: {ast.unparse(node)}")
        elif name in SINKS:
            if name in ("notify", "showMessage", "show_message"):
                args = node.args[:1]
            elif name == "setLabel":  # pyqtgraph setLabel(axis, text, units=...)
                args = node.args[1:2]
            elif name in TEXT_ARGS:
                positions, keywords = TEXT_ARGS[name]
                args = [node.args[i] for i in positions if i < len(node.args)]
                args += [k.value for k in node.keywords if k.arg in keywords]
            else:
                args = [*node.args, *(k.value for k in node.keywords)]
            for arg in args:
                text = _user_words(arg)
                if text:
                    problems.append(f"{where}: untranslated text passed to {name}: {text!r}")
    return problems


def test_static_check_catches_what_it_should(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "class W:\n"
        "    def f(self, x):\n"
        "        self.label.setText('Memory used')\n"
        "        self.setToolTip(self.tr(f'{x} bytes'))\n"
        "        self.tr(x)\n"
        "        self.button.setText(self.tr('Fine'))\n"
        "        self.box.setSuffix(' GB')\n"
        "        self.ctx.notify('Saved', 'info')\n"
        "        self.plot.setTitle(tr('Power draw'), size='9pt')\n"
        "        self.plot.setTitle(self.tr('Power draw'), size='9pt')\n"
        "        QFileDialog.getSaveFileName(self, self.tr('Save'), 'out.csv', self.tr('CSV (*.csv)'))\n"
        "        QFileDialog.getSaveFileName(self, 'Save samples', 'out.csv')\n",
        encoding="utf-8",
    )
    problems = find_problems(sample, root=tmp_path)
    assert sorted(int(p.split(":")[1]) for p in problems) == [3, 4, 5, 8, 9, 12], problems


def test_owned_ui_files_pass_every_text_through_translation():
    problems = [p for path in OWNED for p in find_problems(path)]
    assert not problems, "\n".join(problems)
