"""Refreshes a fleet window in the background every ``interval_s`` (15 s by default): the fetch (HTTP to
Prometheus) and the rules run on the thread pool, results come back as signals; a refresh still running when
the timer fires is not doubled. An optional ``first`` fetch (e.g. ``PrometheusSource.window_means``) paints the
heat map before the first full range arrives."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal

from gpudesk.errors import GpudeskError
from gpudesk.telemetry.fleet.fleet import (
    GROUP_BY_JOB,
    FleetFinding,
    FleetHistory,
    fleet_findings,
)
from gpudesk.ui.workers import run_task


def _fetch_and_judge(fetch: Callable[[], FleetHistory], group_by: str) -> tuple[FleetHistory, list[FleetFinding]]:
    history = fetch()
    return history, fleet_findings(history, by=group_by)


class FleetRefresher(QObject):
    """``updated(history, findings)`` after each refresh, ``failed(message)`` when one fails (plain text)."""

    updated = Signal(object, object)
    """A fetch finished: the FleetHistory and its list of Finding (empty for the first, quick answer)."""
    failed = Signal(str)
    """A fetch failed: the message to show."""

    def __init__(self, fetch: Callable[[], FleetHistory], *, interval_s: float = 15.0, group_by: str = GROUP_BY_JOB,
                 first: Callable[[], FleetHistory] | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._fetch = fetch
        self._first = first
        self.group_by = group_by
        self.pending = False
        self.refreshes = 0
        self._timer = QTimer(self)
        self._timer.setInterval(int(interval_s * 1000))
        self._timer.timeout.connect(self.refresh)

    def start(self) -> None:
        self._timer.start()
        if self._first is not None:
            run_task(self._first, on_result=self._first_done, on_error=self._error)
        self.refresh()

    def _first_done(self, history: object) -> None:
        if self.refreshes == 0:  # a full answer that came back sooner is not painted over
            self.updated.emit(history, [])

    def stop(self) -> None:
        self._timer.stop()

    def refresh(self) -> None:
        if self.pending:
            return
        self.pending = True
        run_task(_fetch_and_judge, self._fetch, self.group_by, on_result=self._done, on_error=self._error)

    def _done(self, result: object) -> None:
        self.pending = False
        self.refreshes += 1
        assert isinstance(result, tuple) and len(result) == 2
        self.updated.emit(result[0], result[1])

    def _error(self, exc: BaseException) -> None:
        self.pending = False
        self.failed.emit(exc.user_text() if isinstance(exc, GpudeskError) else f"{type(exc).__name__}: {exc}")
