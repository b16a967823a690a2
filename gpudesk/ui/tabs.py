"""The tabs of the main window, in order: (module, class, title).

Each class takes ``(ctx, parent)``. The title is the tab's English source text, translated in the
"MainWindow" context when shown (so the tab's module is imported only when the tab is first opened).
A tab is listed here only once it works; there are no empty tabs.
"""

from gpudesk.ui.translate_marks import QT_TRANSLATE_NOOP

TAB_CLASSES: list[tuple[str, str, str]] = [
    ("gpudesk.ui.plan.tab", "PlanTab", QT_TRANSLATE_NOOP("MainWindow", "Plan")),
    ("gpudesk.ui.catalog.tab", "CatalogTab", QT_TRANSLATE_NOOP("MainWindow", "Catalog")),
    ("gpudesk.ui.monitor.tab", "MonitorTab", QT_TRANSLATE_NOOP("MainWindow", "Monitor")),
    ("gpudesk.ui.oom.tab", "OomTab", QT_TRANSLATE_NOOP("MainWindow", "OOM doctor")),
]


def tab_name(module_name: str) -> str:
    """The name a tab is remembered by in the settings file (``main/tab``): the package of its module
    (``gpudesk.ui.oom.tab`` -> ``oom``), which stays when tabs are added or reordered."""
    return module_name.split(".")[-2]
