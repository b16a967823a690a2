"""A tab page that imports and builds its real widget the first time it is shown.

Start-up then pays only for the tab that is open; the others (pyqtgraph, numpy, NVML) load when the user
first switches to them. A tab that fails to build shows why, as plain text, and the rest of the app works.
"""

from __future__ import annotations

import importlib
import traceback
from collections.abc import Callable

from PySide6 import QtCore
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from gpudesk.ui.context import AppContext


class LazyTab(QWidget):
    """Holds ``module.class_name(ctx, self)`` once :meth:`ensure_built` has run.

    ``prepare(cls)``, when given, is called with the imported class just before it is built (the main window
    uses it to open the user store first for tabs that need it at construction).
    """

    def __init__(self, ctx: AppContext, module: str, class_name: str, parent: QWidget | None = None,
                 prepare: Callable[[type], None] | None = None):
        super().__init__(parent)
        self._ctx = ctx
        self._prepare = prepare
        self._module = module
        self._class_name = class_name
        self.content: QWidget | None = None
        self.error: str | None = None
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)

    @property
    def module_name(self) -> str:
        """The module that holds the real tab's class."""
        return self._module

    @property
    def built(self) -> bool:
        return self.content is not None or self.error is not None

    def ensure_built(self) -> QWidget | None:
        """Build the real tab if not yet done; returns it, or None when it failed (see :attr:`error`)."""
        if self.built:
            return self.content
        try:
            cls = getattr(importlib.import_module(self._module), self._class_name)
            if self._prepare is not None:
                self._prepare(cls)
            self.content = cls(self._ctx, self)
        except Exception as exc:  # noqa: BLE001 - a broken tab is reported; the other tabs keep working
            self.error = self.tr("This tab could not be opened: {0}").format(f"{type(exc).__name__}: {exc}")
            label = QLabel(self.error + "\n\n" + traceback.format_exc(), self)
            qt = QtCore.Qt  # looked up here: the Qt namespace's enums are built on first use (issue 15)
            label.setTextFormat(qt.TextFormat.PlainText)
            label.setWordWrap(True)
            label.setTextInteractionFlags(qt.TextInteractionFlag.TextSelectableByMouse)
            label.setAlignment(qt.AlignmentFlag.AlignTop | qt.AlignmentFlag.AlignLeft)
            self._layout.addWidget(label)
            self._ctx.notify(self.error, "error")
            return None
        self._layout.addWidget(self.content)
        return self.content

    def shutdown(self) -> None:
        closer = getattr(self.content, "shutdown", None)
        if callable(closer):
            closer()
