"""A stand-in for ``AppContext.notify`` that keeps what a tab showed."""

from __future__ import annotations


class Notes(list):
    """Collects what the tab shows through ``ctx.notify``: (text, level) pairs."""

    def __call__(self, text: str, level: str = "info") -> None:
        self.append((text, level))

    def levels(self) -> list[str]:
        return [level for _text, level in self]
