"""Everything that imports Qt (PySide6, pyqtgraph) lives in this package; one sub-package per tab."""
