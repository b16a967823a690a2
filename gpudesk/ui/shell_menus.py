"""The window's File and Help menus (issue 29): New plan, Open/Save profile, Export, Recent profiles; the offline
user guide, keyboard shortcuts, rendered third-party notices and a diagnostics bundle for bug reports.

The actions drive the Plan tab through its public methods (new_plan, load_example, save_profile_to, the results
page's export button); the diagnostics bundle is written by :func:`save_diagnostics_bundle`.
"""

from __future__ import annotations

import json
import platform
import sys
import zipfile
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QSettings, QStandardPaths, qVersion
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHeaderView,
    QMenu,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from gpudesk import __version__, paths

RECENT_KEY = "plan/recent_profiles"
RECENT_LIMIT = 8


def recent_profiles(settings: QSettings) -> list[str]:
    """The profiles opened last, newest first (paths that still exist)."""
    value = settings.value(RECENT_KEY, [])
    items: list[object] = [value] if isinstance(value, str) else list(value) if isinstance(value, (list, tuple)) else []
    return [p for p in items if isinstance(p, str) and Path(p).is_file()][:RECENT_LIMIT]


def remember_profile(settings: QSettings, path: str | Path) -> None:
    """Put ``path`` first in the recent profiles."""
    text = str(Path(path).resolve())
    items = [text] + [p for p in recent_profiles(settings) if p != text]
    settings.setValue(RECENT_KEY, items[:RECENT_LIMIT])


def shortcut_rows() -> list[tuple[str, str]]:
    """(keys, what) of the window's keyboard shortcuts."""
    from PySide6.QtCore import QCoreApplication

    return [
        ("Ctrl+N", QCoreApplication.translate("ShellMenus", "New plan (blank, stated defaults)")),
        ("Ctrl+O", QCoreApplication.translate("ShellMenus", "Open a requirement profile")),
        ("Ctrl+S", QCoreApplication.translate("ShellMenus", "Save the wizard's answers as a profile")),
        ("Ctrl+Shift+E", QCoreApplication.translate("ShellMenus", "Export the configuration sheet of the selected option")),
        ("Alt+1 … Alt+4", QCoreApplication.translate("ShellMenus", "Plan, Catalog, Monitor, OOM doctor")),
        ("F1", QCoreApplication.translate("ShellMenus", "User guide")),
        ("Ctrl+Q", QCoreApplication.translate("ShellMenus", "Quit")),
        ("Alt+underlined letter", QCoreApplication.translate("ShellMenus", "Press the button or field with that letter underlined")),
    ]


def save_diagnostics_bundle(target: str | Path, window: Any) -> Path:
    """Write a zip for a bug report: versions, platform, the catalog's build facts, the settings file and the plan
    on screen (its requirement and result). No recordings, no user database, no passwords. Returns the path.

    Raises:
        OSError: the file cannot be written.
    """
    target = Path(target)
    ctx = getattr(window, "ctx", None)
    catalog = getattr(ctx, "catalog", None)
    facts: dict[str, Any] = {
        "gpudesk": __version__,
        "python": sys.version,
        "platform": platform.platform(),
        "qt": qVersion(),
        "data_folder": str(paths.data_dir(create=False)),
        "catalog": catalog.meta() if catalog is not None and hasattr(catalog, "meta") else None,
        "problems_at_start": list(getattr(ctx, "problems", []) or []),
    }
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as bundle:
        bundle.writestr("about.json", json.dumps(facts, indent=2, default=str))
        settings = getattr(window, "settings", None)
        settings_file = Path(settings.fileName()) if isinstance(settings, QSettings) else None
        if settings_file is not None and settings_file.is_file():
            bundle.write(settings_file, "settings.ini")
        plan_tab = find_plan_tab(window)
        controller = getattr(plan_tab, "ctl", None)
        current = getattr(controller, "current_plan", None)
        if current is not None:  # the plan document as saved plans hold it (docs/plan-document.md)
            bundle.writestr("plan.json", json.dumps({"requirement": getattr(controller, "current_profile", None),
                                                     "plan": current.to_dict()}, indent=2, default=str))
    return target


def user_guide_path(language: str | None = None) -> Path:
    """The offline user guide in ``language`` (default: the window's), the English one where no translation
    exists (``resources/user-guide.<language>.md``)."""
    from gpudesk import i18n

    language = language or i18n.current_language() or "en"  # the window sets it at start (gpudesk.ui.app)
    translated = paths.resources_dir() / f"user-guide.{language}.md"
    return translated if translated.is_file() else paths.resources_dir() / "user-guide.md"


def find_plan_tab(window: Any) -> Any:
    """The window's Plan tab (built now if it was not yet), or None."""
    from gpudesk.ui.tabs import TAB_CLASSES

    tabs = getattr(window, "tabs", None)
    index = next((i for i, (_module, name, _title) in enumerate(TAB_CLASSES) if name == "PlanTab"), None)
    if tabs is None or index is None or index >= tabs.count():
        return None
    tabs.setCurrentIndex(index)
    return window.tab(index)


class TextDialog(QDialog):
    """A Markdown document rendered (links open in the browser): the user guide."""

    def __init__(self, title: str, markdown: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(title)
        self.resize(820, 640)
        self.browser = QTextBrowser(self)
        self.browser.setOpenExternalLinks(True)
        self.browser.setMarkdown(markdown)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser, 1)
        layout.addWidget(buttons)


class ShortcutsDialog(QDialog):
    """The keyboard shortcuts, as a table."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(self.tr("Keyboard shortcuts"))
        rows = shortcut_rows()
        self.table = QTableWidget(len(rows), 2, self)
        self.table.setHorizontalHeaderLabels([self.tr("Keys"), self.tr("Action")])
        for row, (keys, what) in enumerate(rows):
            self.table.setItem(row, 0, QTableWidgetItem(keys))
            self.table.setItem(row, 1, QTableWidgetItem(what))
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)
        self.resize(560, 340)


class ShellMenus:
    """Fills the File and Help menus of ``window`` (a MainWindow) and keeps Recent profiles up to date."""

    def __init__(self, window: Any, file_menu: QMenu, help_menu: QMenu):
        """``window``: the MainWindow (its ``settings``, ``message_bar``, ``tabs`` and ``tab()`` are used)."""
        self.window = window
        self.new_action = self._action(file_menu, QCoreApplication.translate("ShellMenus", "&New plan"), QKeySequence.StandardKey.New, self.new_plan)
        self.open_action = self._action(file_menu, QCoreApplication.translate("ShellMenus", "&Open profile…"), QKeySequence.StandardKey.Open,
                                        self.open_profile)
        self.save_action = self._action(file_menu, QCoreApplication.translate("ShellMenus", "&Save profile…"), QKeySequence.StandardKey.Save,
                                        self.save_profile)
        self.export_action = self._action(file_menu, QCoreApplication.translate("ShellMenus", "&Export sheet…"), None, self.export_sheet)
        self.recent_menu = file_menu.addMenu(QCoreApplication.translate("ShellMenus", "&Recent profiles"))
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        file_menu.addSeparator()
        self.guide_action = self._action(help_menu, QCoreApplication.translate("ShellMenus", "&User guide"), QKeySequence.StandardKey.HelpContents,
                                         self.show_guide)
        self.shortcuts_action = self._action(help_menu, QCoreApplication.translate("ShellMenus", "&Keyboard shortcuts"), None, self.show_shortcuts)
        self.bundle_action = self._action(help_menu, QCoreApplication.translate("ShellMenus", "Save a &diagnostics bundle…"), None, self.save_bundle)
        help_menu.addSeparator()

    def finish_startup(self) -> None:
        """After the first paint: the shortcut without a standard key (building a key sequence from text would
        build Qt's namespace enums before the first paint, issue 15) and the recent profiles."""
        self.export_action.setShortcut(QKeySequence("Ctrl+Shift+E"))  # Ctrl+E is the Catalog tab's CSV export
        self._fill_recent()

    def _action(self, menu: QMenu, text: str, keys: Any, slot: Any) -> QAction:
        action = QAction(text, self.window)
        if keys is not None:
            action.setShortcuts(keys)
        action.triggered.connect(lambda _checked=False: slot())
        menu.addAction(action)
        return action

    def _plan(self) -> Any:
        return find_plan_tab(self.window)

    def new_plan(self) -> None:
        tab = self._plan()
        if tab is not None:
            tab.new_plan()

    def open_profile(self, path: str | None = None) -> None:
        tab = self._plan()
        if tab is None:
            return
        if path is None:
            path, _selected = QFileDialog.getOpenFileName(self.window, self.window.tr("Open requirement profile"),
                                                          str(paths.examples_dir()), self.window.tr("TOML profiles (*.toml)"))
        if path:
            tab.load_example(path)
            remember_profile(self.window.settings, path)

    def save_profile(self) -> None:
        tab = self._plan()
        if tab is not None:
            tab.save_profile_to()

    def export_sheet(self) -> None:
        tab = self._plan()
        if tab is None:
            return
        results = tab.pages.results
        if tab.ctl.current_plan is None:
            self.window.message_bar.show_message(self.window.tr("No plan to export yet: answer the wizard and press Plan."), "info")
            return
        from gpudesk.ui.plan.pages import RESULTS

        tab.show_view(RESULTS)
        results.export_button.showMenu()

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        items = recent_profiles(self.window.settings)
        for path in items:
            action = self.recent_menu.addAction(Path(path).name)
            action.setToolTip(path)
            action.triggered.connect(lambda _checked=False, p=path: self.open_profile(p))
        self.recent_menu.setEnabled(bool(items))

    def show_guide(self) -> None:
        guide = user_guide_path()
        try:
            text = guide.read_text(encoding="utf-8")
        except OSError as exc:
            text = self.window.tr("The user guide {0} could not be read: {1}").format(guide, exc.strerror or exc)
        self.guide = TextDialog(self.window.tr("gpudesk user guide"), text, self.window)
        self.guide.show()

    def show_shortcuts(self) -> None:
        self.shortcuts = ShortcutsDialog(self.window)
        self.shortcuts.show()

    def save_bundle(self, path: str | None = None) -> Path | None:
        if path is None:
            folder = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
            path, _selected = QFileDialog.getSaveFileName(self.window, self.window.tr("Save a diagnostics bundle"),
                                                          str(Path(folder) / "gpudesk-diagnostics.zip"),
                                                          self.window.tr("Zip archives (*.zip)"))
        if not path:
            return None
        try:
            written = save_diagnostics_bundle(path, self.window)
        except OSError as exc:
            self.window.message_bar.show_message(self.window.tr("The diagnostics bundle was not saved: {0}").format(
                exc.strerror or exc), "error")
            return None
        self.window.message_bar.show_message(self.window.tr("Diagnostics bundle saved: {0}. Attach it to your report.").format(
            written), "info")
        return written
