"""Everything that imports Qt (PySide6, pyqtgraph) lives in this package; one sub-package per tab.

PySide6 creates its Qt types lazily by default (since 6.7: a type and its enums appear in ``PySide6.QtGui`` only
when first read; shiboken6 ``sbkmodule.cpp``, ``PYSIDE6_OPTION_LAZY``). That creation runs Python code in stages,
so it is not atomic under the GIL: while the start-up imports pyqtgraph on a worker thread
(:mod:`gpudesk.ui.startup`), the GUI thread building a tab could see a half-made type ("type object
'PySide6.QtGui.QGradient' has no attribute 'Preset'") or crash the process (SIGSEGV in the self-test on a loaded
CI machine). ``PYSIDE6_OPTION_LAZY=0`` makes PySide6 create every type of a module when the module is imported,
which Python's import lock serialises. It must be set before PySide6 is first imported: every Qt import of the
application goes through this package, whose ``__init__`` runs first. Cost: about 60 ms at the first PySide6
import. A value the user set is kept.
"""

import os

os.environ.setdefault("PYSIDE6_OPTION_LAZY", "0")
