"""The findings shown in the Monitor tab's Findings page, item by item, as a user walks the tree."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QTreeWidgetItem

from gpudesk.ui.monitor.findings_list import FINDING_ROLE


def finding_items(view: Any) -> list[tuple[QTreeWidgetItem, Any]]:
    """(tree item, finding) for every finding row of a FindingsView (the rows under each rule's heading)."""
    tree, shown = view.tree, view.list._by_item
    pairs = []
    for i in range(tree.topLevelItemCount()):
        head = tree.topLevelItem(i)
        for j in range(head.childCount()):
            child = head.child(j)
            pairs.append((child, shown[int(child.data(0, FINDING_ROLE))]))
    return pairs
