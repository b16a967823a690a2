"""The tabs of the main window, in order: (module, class). Each class takes ``(ctx, parent)``.

A tab is listed here only once it works; there are no empty tabs.
"""

TAB_CLASSES: list[tuple[str, str]] = [
    ("gpudesk.ui.plan.tab", "PlanTab"),
    ("gpudesk.ui.catalog.tab", "CatalogTab"),
    ("gpudesk.ui.monitor.tab", "MonitorTab"),
    ("gpudesk.ui.oom.tab", "OomTab"),
]
