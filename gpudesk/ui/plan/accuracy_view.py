"""How accurate is the memory estimate, and the speed estimate? The estimators' own checks against published runs.

:class:`EstimatorAccuracyView` shows the headline ("within 15 % on X of N published measurements"), the typical
error for the current kind of job, and one row per published case (measured vs estimated, same statistic, and
its source). :class:`AccuracyLink` is the "How accurate is this?" button placed next to a memory figure; it opens
the view in a dialog. The data comes from :func:`gpudesk.sizing.validation.load_accuracy`, run off the GUI thread.
Below it, the speed model's check (:func:`gpudesk.sizing.speed_validation.load_speed_accuracy`): one row per set
(development, later) and class (kind, vendor, GPU, pipeline, MoE, FP8, engine) with its misses. Predicting every
run takes minutes, so the dialog fills the speed table set by set as each is done
(:func:`gpudesk.sizing.speed_accuracy_cache.check_speed_sets`, which keeps finished sets on disk for the next
opening), shows which set it is checking, and tells the check to stop when it is closed (closing never waits for it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, QThreadPool
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from shiboken6 import isValid

from gpudesk.sizing.speed_accuracy_cache import SpeedCheck, check_speed_sets
from gpudesk.sizing import speed_validation
from gpudesk.sizing.validation import AccuracyReport, load_accuracy
from gpudesk.ui.workers import Task, run_task, tracker

from gpudesk.units import GIB
from gpudesk.ui.error_text import error_text


class EstimatorAccuracyView(QWidget):
    """The validation table and its summary; call :meth:`set_report` with an :class:`AccuracyReport`."""

    COLUMNS = 8

    def __init__(self, parent: QWidget | None = None, method: str | None = None):
        super().__init__(parent)
        self._method = method
        self.headline = QLabel(self.tr("Checking the estimator against published measurements…"))
        self.headline.setTextFormat(Qt.TextFormat.PlainText)
        self.headline.setWordWrap(True)
        font = self.headline.font()
        font.setBold(True)
        self.headline.setFont(font)
        self.typical = QLabel("")
        self.typical.setTextFormat(Qt.TextFormat.PlainText)
        self.typical.setWordWrap(True)
        self.breakdown = QLabel("")
        self.breakdown.setTextFormat(Qt.TextFormat.PlainText)
        self.breakdown.setWordWrap(True)
        self.table = QTableWidget(0, self.COLUMNS)
        self.table.setHorizontalHeaderLabels([
            self.tr("Published case"), self.tr("Method"), self.tr("GPUs"), self.tr("Statistic"),
            self.tr("Measured (GiB)"), self.tr("Estimate (GiB)"), self.tr("Estimate / measured"), self.tr("Source"),
        ])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)
        # A source URL is cut in the middle (host and page stay readable); the whole URL is in its tooltip.
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setAccessibleName(self.tr("Estimator accuracy by published case"))
        self.speed_headline = QLabel(self.tr("Checking the speed model against published measured runs…"))
        self.speed_headline.setTextFormat(Qt.TextFormat.PlainText)
        self.speed_headline.setWordWrap(True)
        self.speed_headline.setFont(font)
        self.speed_status = QLabel("")
        self.speed_status.setTextFormat(Qt.TextFormat.PlainText)
        self.speed_status.setWordWrap(True)
        self.speed_progress = QProgressBar()
        self.speed_progress.setAccessibleName(self.tr("Speed check progress"))
        self.speed_progress.setVisible(False)
        self.speed_table = QTableWidget(0, SPEED_COLUMNS)
        self.speed_table.setHorizontalHeaderLabels([
            self.tr("Set"), self.tr("Class"), self.tr("Runs"), self.tr("Within 20 %"), self.tr("Within 50 %"),
            self.tr("Median error"), self.tr("Predicted / measured (geometric mean)"), self.tr("Misses"),
        ])
        self.speed_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.speed_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.speed_table.verticalHeader().setVisible(False)
        self.speed_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.speed_table.setAccessibleName(self.tr("Speed model accuracy by class"))
        layout = QVBoxLayout(self)
        layout.addWidget(self.headline)
        layout.addWidget(self.typical)
        layout.addWidget(self.breakdown)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.speed_headline)
        layout.addWidget(self.speed_status)
        layout.addWidget(self.speed_progress)
        layout.addWidget(self.speed_table, 1)
        self._speed_rows: list[dict[str, Any]] = []

    def show_speed_error(self, message: str) -> None:
        """Say why the speed check could not run (outside text shown as plain text)."""
        self.speed_headline.setText(self.tr("The speed check could not run: %1").replace("%1", message))
        self.speed_progress.setVisible(False)
        self.speed_status.setText("")

    def show_speed_progress(self, done: int, total: int) -> None:
        """``done`` of the ``total`` sets are checked: say which one is being checked now."""
        if done >= total:
            self.speed_progress.setVisible(False)
            self.speed_status.setText("")
            return
        self.speed_progress.setRange(0, total)
        self.speed_progress.setValue(done)
        self.speed_progress.setVisible(True)
        self.speed_status.setText(self.tr("Checking the speed model: set %1 of %2").replace("%1", str(done + 1))
                                  .replace("%2", str(total)))

    def add_speed_set(self, part: tuple[str, int, int, list[dict[str, Any]]]) -> None:
        """A set's rows are in (``(set, number, total, rows)`` from
        :func:`gpudesk.sizing.speed_accuracy_cache.check_speed_sets`): add them and say which set comes next."""
        _set_name, number, total, rows = part
        self._show_speed_rows(self._speed_rows + list(rows), len(self._speed_rows))
        self.show_speed_progress(number, total)

    def finish_speed(self, check: SpeedCheck | None) -> None:
        """The speed check ended (None: it was stopped): hide the progress and say what could not be kept."""
        self.speed_progress.setVisible(False)
        self.speed_status.setText(self.tr("Shown, but not kept for next time: %1").replace("%1", check.cache_error)
                                  if check is not None and check.cache_error else "")

    def set_speed(self, rows: list[dict[str, Any]]) -> None:
        """Fill the speed table from :func:`gpudesk.sizing.speed_validation.load_speed_accuracy` rows."""
        self._show_speed_rows(list(rows), 0)

    def _show_speed_rows(self, rows: list[dict[str, Any]], first: int) -> None:
        """Show ``rows`` (all the speed rows so far): the headline from them, the table's rows from ``first`` on (the
        rows before it are already shown)."""
        self._speed_rows = rows
        train = next((r for r in rows if r["set"] == "dev" and r["class"] == "kind" and r["value"] == "train"), None)
        serve = next((r for r in rows if r["set"] == "dev" and r["class"] == "kind" and r["value"] == "serve"), None)
        parts = []
        for label, r in ((self.tr("training"), train), (self.tr("serving"), serve)):
            if r and r["answered"]:
                parts.append(self.tr("%1: within 20 % on %2 of %3 published runs, %4 misses (more than 50 % off "
                                     "or not answered)").replace("%1", label)
                             .replace("%2", str(round(r["within_20_share"] * r["answered"])))
                             .replace("%3", str(r["rows"])).replace("%4", str(r["misses"])))
        if parts:
            self.speed_headline.setText(self.tr("Speed model: %1.").replace("%1", "; ".join(parts)))
        elif rows:
            unvalidated = self.tr("No published measured run answered yet: treat speeds as unvalidated.")
            self.speed_headline.setText(unvalidated)
        sets = {"dev": self.tr("development"), "later": self.tr("later (collected after the model)"),
                "fresh": self.tr("fresh (collected after the model was frozen)"),
                "fresh2": self.tr("second fresh (collected after the model was frozen again)"),
                "fresh3": self.tr("third fresh (collected after the model was frozen a third time)"),
                "fresh4": self.tr("fourth fresh (collected after the model was frozen a fourth time)"),
                "fresh5": self.tr("fifth fresh (collected after the model was frozen a fifth time)"),
                "fresh6": self.tr("sixth fresh (collected after the model was frozen a sixth time)"),
                "fresh7": self.tr("seventh fresh (collected after the model was frozen a seventh time)"),
                "fresh8": self.tr("eighth fresh (collected after the model was frozen an eighth time)"),
                "fresh9": self.tr("ninth fresh (collected after the model was frozen a ninth time)"),
                "fresh10": self.tr("tenth fresh (collected after the model was frozen a tenth time)"),
                "fresh11": self.tr("eleventh fresh (collected after the model was frozen an eleventh time)"),
                "fresh12": self.tr("twelfth fresh (collected after the model was frozen a twelfth time)"),
                "fresh13": self.tr("thirteenth fresh (collected after the model was frozen a thirteenth time)"),
                "fresh14": self.tr("fourteenth fresh (collected after the model was frozen a fourteenth time)"),
                "fresh15": self.tr("fifteenth fresh (collected after the model was frozen a fifteenth time)"),
                "fresh16": self.tr("sixteenth fresh (collected after the model was frozen a sixteenth time)"),
                "fresh17": self.tr("seventeenth fresh (collected after the model was frozen a seventeenth time)"),
                "fresh18": self.tr("eighteenth fresh (collected after the model was frozen an eighteenth time)"),
                "fresh19": self.tr("nineteenth fresh (collected after the model was frozen a nineteenth time)"),
                "fresh20": self.tr("twentieth fresh (collected after the model was frozen a twentieth time)"),
                "fresh21": self.tr("twenty-first fresh (collected after the model was frozen a twenty-first time)"),
                "fresh22": self.tr("twenty-second fresh (collected after the model was frozen a twenty-second time)"),
                "fresh23": self.tr("twenty-third fresh (collected after the model was frozen a twenty-third time)"),
                "fresh24": self.tr("twenty-fourth fresh (collected after the model was frozen a twenty-fourth time)"),
                "fresh25": self.tr("twenty-fifth fresh (collected after the model was frozen a twenty-fifth time)"),
                "fresh26": self.tr("twenty-sixth fresh (collected after the model was frozen a twenty-sixth time)"),
                "fresh27": self.tr("twenty-seventh fresh (collected after the model was frozen a twenty-seventh time)"),
                "fresh28": self.tr("twenty-eighth fresh (collected after the model was frozen a twenty-eighth time)"),
                "fresh29": self.tr("twenty-ninth fresh (collected after the model was frozen a twenty-ninth time)"),
                "fresh30": self.tr("thirtieth fresh (collected after the model was frozen a thirtieth time)"),
                "fresh31": self.tr("thirty-first fresh (collected after the model was frozen a thirty-first time)"),
                "fresh32": self.tr("thirty-second fresh (collected after the model was frozen a thirty-second time)"),
                "fresh33": self.tr("thirty-third fresh (collected after the model was frozen a thirty-third time)"),
                "fresh34": self.tr("thirty-fourth fresh (collected after the model was frozen a thirty-fourth time)"),
                "fresh35": self.tr("thirty-fifth fresh (collected after the model was frozen a thirty-fifth time)"),
                "fresh36": self.tr("thirty-sixth fresh (collected after the model was frozen a thirty-sixth time)"),
                "fresh37": self.tr("thirty-seventh fresh (collected after the model was frozen a thirty-seventh time)"),
                "fresh38": self.tr("thirty-eighth fresh (collected after the model was frozen a thirty-eighth time)"),
                "fresh39": self.tr("thirty-ninth fresh (collected after the model was frozen a thirty-ninth time)"),
                "fresh40": self.tr("fortieth fresh (collected after the model was frozen a fortieth time)"),
                "fresh41": self.tr("forty-first fresh (collected after the model was frozen a forty-first time)"),
                "fresh42": self.tr("forty-second fresh (collected after the model was frozen a forty-second time)"),
                "fresh43": self.tr("forty-third fresh (collected after the model was frozen a forty-third time)"),
                "fresh44": self.tr("forty-fourth fresh (collected after the model was frozen a forty-fourth time)"),
                "fresh45": self.tr("forty-fifth fresh (collected after the model was frozen a forty-fifth time)"),
                "fresh46": self.tr("forty-sixth fresh (collected after the model was frozen a forty-sixth time)"),
                "fresh47": self.tr("forty-seventh fresh (collected after the model was frozen a forty-seventh time)"),
                "fresh48": self.tr("forty-eighth fresh (collected after the model was frozen a forty-eighth time)"),
                "fresh49": self.tr("forty-ninth fresh (collected after the model was frozen a forty-ninth time)"),
                "fresh50": self.tr("fiftieth fresh (collected after the model was frozen a fiftieth time)"),
                "fresh51": self.tr("fifty-first fresh (collected after the model was frozen a fifty-first time)"),
                "fresh52": self.tr("fifty-second fresh (collected after the model was frozen a fifty-second time)"),
                "fresh53": self.tr("fifty-third fresh (collected after the model was frozen a fifty-third time)"),
                "fresh54": self.tr("fifty-fourth fresh (collected after the model was frozen a fifty-fourth time)"),
                "fresh55": self.tr("fifty-fifth fresh (collected after the model was frozen a fifty-fifth time)"),
                "fresh56": self.tr("fifty-sixth fresh (collected after the model was frozen a fifty-sixth time)"),
                "fresh57": self.tr("fifty-seventh fresh (collected after the model was frozen a fifty-seventh time)"),
                "fresh58": self.tr("fifty-eighth fresh (collected after the model was frozen a fifty-eighth time)"),
                "fresh59": self.tr("fifty-ninth fresh (collected after the model was frozen a fifty-ninth time)"),
                "fresh60": self.tr("sixtieth fresh (collected after the model was frozen a sixtieth time)"),
                "fresh61": self.tr("sixty-first fresh (collected after the model was frozen a sixty-first time)"),
                "fresh62": self.tr("sixty-second fresh (collected after the model was frozen a sixty-second time)"),
                "fresh63": self.tr("sixty-third fresh (collected after the model was frozen a sixty-third time)"),
                "fresh64": self.tr("sixty-fourth fresh (collected after the model was frozen a sixty-fourth time)"),
                "fresh65": self.tr("sixty-fifth fresh (collected after the model was frozen a sixty-fifth time)"),
                "fresh66": self.tr("sixty-sixth fresh (collected after the model was frozen a sixty-sixth time)"),
                "fresh67": self.tr("sixty-seventh fresh (collected after the model was frozen a sixty-seventh time)"),
                "fresh68": self.tr("sixty-eighth fresh (collected after the model was frozen a sixty-eighth time)"),
                "fresh69": self.tr("sixty-ninth fresh (collected after the model was frozen a sixty-ninth time)"),
                "fresh70": self.tr("seventieth fresh (collected after the model was frozen a seventieth time)"),
                "fresh71": self.tr("seventy-first fresh (collected after the model was frozen a seventy-first time)"),
                "fresh72": self.tr("seventy-second fresh (collected after the model was frozen a seventy-second time)"),
                "fresh73": self.tr("seventy-third fresh (collected after the model was frozen a seventy-third time)"),
                "fresh74": self.tr("seventy-fourth fresh (collected after the model was frozen a seventy-fourth time)"),
                "fresh75": self.tr("seventy-fifth fresh (collected after the model was frozen a seventy-fifth time)"),
                "fresh76": self.tr("seventy-sixth fresh (collected after the model was frozen a seventy-sixth time)"),
                "fresh77": self.tr("seventy-seventh fresh (collected after the model was frozen a seventy-seventh time)"),
                "fresh78": self.tr("seventy-eighth fresh (collected after the model was frozen a seventy-eighth time)"),
                "fresh79": self.tr("seventy-ninth fresh (collected after the model was frozen a seventy-ninth time)"),
                "fresh80": self.tr("eightieth fresh (collected after the model was frozen an eightieth time)"),
                "fresh81": self.tr("eighty-first fresh (collected after the model was frozen an eighty-first time)"),
                "fresh82": self.tr("eighty-second fresh (collected after the model was frozen an eighty-second time)"),
                "fresh83": self.tr("eighty-third fresh (collected after the model was frozen an eighty-third time)"),
                "fresh84": self.tr("eighty-fourth fresh (collected after the model was frozen an eighty-fourth time)"),
                "fresh85": self.tr("eighty-fifth fresh (collected after the model was frozen an eighty-fifth time)"),
                "fresh86": self.tr("eighty-sixth fresh (collected after the model was frozen an eighty-sixth time)"),
                "fresh87": self.tr("eighty-seventh fresh (collected after the model was frozen an eighty-seventh time)"),
                "fresh88": self.tr("eighty-eighth fresh (collected after the model was frozen an eighty-eighth time)"),
                "fresh89": self.tr("eighty-ninth fresh (collected after the model was frozen an eighty-ninth time)"),
                "fresh90": self.tr("ninetieth fresh (collected after the model was frozen a ninetieth time)"),
                "fresh91": self.tr("ninety-first fresh (collected after the model was frozen a ninety-first time)"),
                "fresh92": self.tr("ninety-second fresh (collected after the model was frozen a ninety-second time)"),
                "fresh93": self.tr("ninety-third fresh (collected after the model was frozen a ninety-third time)"),
                "fresh94": self.tr("ninety-fourth fresh (collected after the model was frozen a ninety-fourth time)"),
                "fresh95": self.tr("ninety-fifth fresh (collected after the model was frozen a ninety-fifth time)"),
                "fresh96": self.tr("ninety-sixth fresh (collected after the model was frozen a ninety-sixth time)"),
                "fresh97": self.tr("ninety-seventh fresh (collected after the model was frozen a ninety-seventh time)"),
                "fresh98": self.tr("ninety-eighth fresh (collected after the model was frozen a ninety-eighth time)"),
                "fresh99": self.tr("ninety-ninth fresh (collected after the model was frozen a ninety-ninth time)"),
                "fresh100": self.tr("hundredth fresh (collected after the model was frozen a hundredth time)"),
                "fresh101": self.tr("hundred-and-first fresh (collected after the model was frozen a hundred-and-first time)"),
                "fresh102": self.tr("hundred-and-second fresh (collected after the model was frozen a hundred-and-second time)"),
                "fresh103": self.tr("hundred-and-third fresh (collected after the model was frozen a hundred-and-third time)"),
                "fresh104": self.tr("hundred-and-fourth fresh (collected after the model was frozen a hundred-and-fourth time)"),
                "fresh105": self.tr("hundred-and-fifth fresh (collected after the model was frozen a hundred-and-fifth time)"),
                "fresh106": self.tr("hundred-and-sixth fresh (collected after the model was frozen a hundred-and-sixth time)"),
                "fresh107": self.tr("hundred-and-seventh fresh (collected after the model was frozen a hundred-and-seventh time)"),
                "fresh108": self.tr("hundred-and-eighth fresh (collected after the model was frozen a hundred-and-eighth time)"),
                "fresh109": self.tr("hundred-and-ninth fresh (collected after the model was frozen a hundred-and-ninth time)"),
                "fresh110": self.tr("hundred-and-tenth fresh (collected after the model was frozen a hundred-and-tenth time)"),
                "fresh111": self.tr("hundred-and-eleventh fresh (collected after the model was frozen a hundred-and-eleventh time)"),
                "fresh112": self.tr("hundred-and-twelfth fresh (collected after the model was frozen a hundred-and-twelfth time)"),
                "fresh113": self.tr("hundred-and-thirteenth fresh (collected after the model was frozen a hundred-and-thirteenth time)"),
                "fresh114": self.tr("hundred-and-fourteenth fresh (collected after the model was frozen a hundred-and-fourteenth time)"),
                "fresh115": self.tr("hundred-and-fifteenth fresh (collected after the model was frozen a hundred-and-fifteenth time)"),
                "fresh116": self.tr("hundred-and-sixteenth fresh (collected after the model was frozen a hundred-and-sixteenth time)"),
                "fresh117": self.tr("hundred-and-seventeenth fresh (collected after the model was frozen a hundred-and-seventeenth time)"),
                "fresh118": self.tr("hundred-and-eighteenth fresh (collected after the model was frozen a hundred-and-eighteenth time)"),
                "fresh119": self.tr("hundred-and-nineteenth fresh (collected after the model was frozen a hundred-and-nineteenth time)"),
                "fresh120": self.tr("hundred-and-twentieth fresh (collected after the model was frozen a hundred-and-twentieth time)"),
                "fresh121": self.tr("hundred-and-twenty-first fresh (collected after the model was frozen a hundred-and-twenty-first time)"),
                "fresh122": self.tr("hundred-and-twenty-second fresh (collected after the model was frozen a hundred-and-twenty-second time)"),
                "fresh123": self.tr("hundred-and-twenty-third fresh (collected after the model was frozen a hundred-and-twenty-third time)"),
                "fresh124": self.tr("hundred-and-twenty-fourth fresh (collected after the model was frozen a hundred-and-twenty-fourth time)")}
        self.speed_table.setRowCount(len(rows))
        for i, r in enumerate(rows[first:], first):
            answered = bool(r["answered"])
            values = [sets.get(r["set"], r["set"]), f"{r['class']}: {r['value']}", f"{r['answered']}/{r['rows']}",
                      f"{100 * r['within_20_share']:.0f} %" if answered else "",
                      f"{100 * r['within_50_share']:.0f} %" if answered else "",
                      f"{100 * r['median_abs_error']:.1f} %" if answered else "",
                      f"{r['geomean_ratio']:.2f}" if answered else "", str(r["misses"])]
            for col, value in enumerate(values):
                item = QTableWidgetItem(value)
                if col >= 2:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.speed_table.setItem(i, col, item)

    def set_method(self, method: str | None) -> None:
        """The kind of job the user is planning (``full``, ``lora``, ``qlora``, ``inference``)."""
        self._method = method

    def show_error(self, message: str) -> None:
        """Say why the check could not run (outside text shown as plain text)."""
        self.headline.setText(self.tr("The accuracy check could not run: %1").replace("%1", message))

    def set_report(self, report: AccuracyReport) -> None:
        s = report.summary
        within = round(s["within_15_share"] * s["cases"])
        self.headline.setText(
            self.tr("This estimator is within 15 % on %1 of %2 published measurements (median error %3 %).")
            .replace("%1", str(within)).replace("%2", str(s["cases"]))
            .replace("%3", f"{100 * s['median_abs_error']:.1f}"))
        self.typical.setText(self._typical_text(report))
        self.breakdown.setText(
            self.tr("%1 sources; %2 more cases are listed but not scored (their setup is not fully published or "
                    "uses pipeline parallelism, which is not modelled).")
            .replace("%1", str(s["sources"])).replace("%2", str(s["unsupported_cases"])))
        self._fill(report)

    def _typical_text(self, report: AccuracyReport) -> str:
        if not self._method:
            return ""
        sub = report.typical_error(self._method)
        if not sub["cases"]:
            return self.tr("No published measurement of a %1 job yet: treat the figure as unvalidated.").replace(
                "%1", self._method)
        within = round(sub["within_15_share"] * sub["cases"])
        return (self.tr("For %1 jobs: within 15 % on %2 of %3 cases, median error %4 %.")
                .replace("%1", self._method).replace("%2", str(within)).replace("%3", str(sub["cases"]))
                .replace("%4", f"{100 * sub['median_abs_error']:.1f}"))

    def _fill(self, report: AccuracyReport) -> None:
        rows = report.results
        self.table.setRowCount(len(rows))
        grey = QColor(Qt.GlobalColor.gray)
        for i, r in enumerate(rows):
            ratio = f"{r.ratio:.2f}" if r.supported else self.tr("%1 (not scored)").replace("%1", f"{r.ratio:.2f}")
            values = [r.case_id, r.method, str(r.gpus), r.statistic, f"{r.measured_bytes / GIB:.2f}",
                      f"{r.estimated_bytes / GIB:.2f}", ratio, _short_url(r.source_url)]
            for col, value in enumerate(values):
                item = QTableWidgetItem(value)
                item.setToolTip(f"{r.source_url}\n{r.description}" if col == URL_COLUMN else r.description)
                if col in (2, 4, 5, 6):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if not r.supported:
                    item.setForeground(grey)
                self.table.setItem(i, col, item)


#: The column of the source URL in the accuracy table (the last).
URL_COLUMN = 7
#: Columns of the speed table: set, class, runs, within 20 %, within 50 %, median error, geometric mean, misses.
SPEED_COLUMNS = 8


def _short_url(url: str) -> str:
    """The URL without its scheme and "www." (host and path are what tell sources apart); the cell elides the
    middle and its tooltip has the whole URL."""
    for prefix in ("https://", "http://"):
        if url.startswith(prefix):
            url = url[len(prefix):]
    return url[4:] if url.startswith("www.") else url


class AccuracyDialog(QDialog):
    """The accuracy view in a dialog; loads the report in the background when opened."""

    def __init__(self, parent: QWidget | None = None, method: str | None = None):
        super().__init__(parent)
        self.setWindowTitle(self.tr("How accurate is this estimate?"))
        self.view = EstimatorAccuracyView(self, method)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.view)
        layout.addWidget(buttons)
        self.resize(1100, 560)
        self.memory_task: Task | None = None
        self.speed_task: Task | None = None

    def load(self) -> None:
        """Evaluate the validation set off the GUI thread and fill the view; the speed table fills set by set."""
        self.memory_task = run_task(load_accuracy, on_result=self.view.set_report, on_error=self._memory_error)
        self.view.show_speed_progress(0, len(speed_validation.SET_FILES))
        self.speed_task = run_task(_check_speed_sets, on_partial=self.view.add_speed_set,
                                   on_result=self.view.finish_speed, on_error=self._speed_error, pool=speed_pool())
        app = QCoreApplication.instance()
        if app is not None:  # quitting with the dialog open: the check ends at its next boundary
            app.aboutToQuit.connect(self._cancel_speed_check)

    # Slots are the dialog's and its view's own methods, never lambdas: Qt drops a connection to a destroyed object,
    # so a result that arrives after the dialog is gone touches nothing.
    def _memory_error(self, exc: BaseException) -> None:
        self.view.show_error(error_text(exc))

    def _speed_error(self, exc: BaseException) -> None:
        self.view.show_speed_error(error_text(exc))

    def _cancel_speed_check(self) -> None:
        if self.speed_task is not None:
            self.speed_task.cancel()

    def done(self, result: int) -> None:
        """Closing returns at once: it tells the speed check to stop and leaves it to end on its own thread (at its
        next boundary, a run or a set), never waiting for it on the GUI thread. What the check hands over after
        this reaches no part of the dialog; a failure of either check still reaches the main window's message bar."""
        memory, self.memory_task = self.memory_task, None
        if memory is not None:  # its failure, if it comes after closing, is not left to the closed dialog (a finished
            # check emits nothing more)
            memory.signals.error.disconnect(self._memory_error)
            memory.signals.error.connect(tracker().unhandled.emit)
        task, self.speed_task = self.speed_task, None
        if task is not None:
            task.cancel()
            signals = task.signals
            signals.partial.disconnect(self.view.add_speed_set)
            signals.result.disconnect(self.view.finish_speed)
            signals.error.disconnect(self._speed_error)
            signals.error.connect(tracker().unhandled.emit)
        super().done(result)


_SPEED_POOL: QThreadPool | None = None


def speed_pool() -> QThreadPool:
    """The one thread the speed check runs on, owned by the application rather than by a dialog: a closed dialog
    never waits for it (a pool deleted with its dialog would wait for its thread), and two openings never check
    and write the kept sets at once (the second waits in the queue while the first ends)."""
    global _SPEED_POOL
    if _SPEED_POOL is None or not isValid(_SPEED_POOL):  # (a new application after the last one was deleted)
        _SPEED_POOL = QThreadPool(QCoreApplication.instance())
        _SPEED_POOL.setMaxThreadCount(1)
    return _SPEED_POOL


def _check_speed_sets(partial: Callable[[Any], None], should_stop: Callable[[], bool]) -> SpeedCheck | None:
    """:func:`~gpudesk.sizing.speed_accuracy_cache.check_speed_sets` handing each finished set to ``partial``."""
    return check_speed_sets(on_set=lambda name, number, total, rows: partial((name, number, total, rows)),
                            should_stop=should_stop)


class AccuracyLink(QPushButton):
    """A flat "How accurate is this?" button for next to a memory figure; opens :class:`AccuracyDialog`."""

    def __init__(self, parent: QWidget | None = None, method: str | None = None):
        super().__init__(parent)
        self.setText(self.tr("How accurate is this?"))
        self.setFlat(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip(self.tr("Compare the memory and speed estimators with published measured runs"))
        self._method = method
        self.dialog: AccuracyDialog | None = None
        self._dialog_method: str | None = None
        self.clicked.connect(self.open_dialog)

    def set_method(self, method: str | None) -> None:
        self._method = method

    def open_dialog(self) -> None:
        """Raises the dialog already open for this method; otherwise opens a new one, deleted when closed (its
        checks end on their own threads, see :meth:`AccuracyDialog.done`), so clicks never pile up dialogs."""
        open_one = self.dialog if self.dialog is not None and isValid(self.dialog) else None
        if open_one is not None and open_one.isVisible() and self._dialog_method == self._method:
            open_one.raise_()
            open_one.activateWindow()
            return
        if open_one is not None:
            open_one.close()  # another method's check: closed (and deleted) before the new one opens
        self.dialog = AccuracyDialog(self.window(), self._method)
        self.dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self._dialog_method = self._method
        self.dialog.load()
        self.dialog.show()
