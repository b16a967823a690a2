"""The alert loop of one machine: read a batch, wait for NVML events (the wait is the pause between ticks), judge,
keep each alert in the store and deliver it. Used by ``gpudesk monitor alerts watch`` and the window's tray mode;
each caller shows the alerts its own way (``on_alert``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpudesk.store.sqlite_lib import Database

from gpudesk.i18n import _
from gpudesk.nvml.events import EventWatcher
from gpudesk.store.alerts import save_alert
from gpudesk.telemetry.rules.alert_delivery import Delivery, deliver
from gpudesk.telemetry.rules.alerts import Alert, AlertEngine, AlertThresholds
from gpudesk.telemetry.rules.live_rules import LiveRules


class AlertMonitor:
    """One tick = one batch from ``source`` (an :class:`~gpudesk.telemetry.sources.nvml_source.NvmlSource` or any source
    with ``read()``), then NVML events for up to ``interval_s``."""

    def __init__(self, source: Any, engine: AlertEngine, *, db: Database | None = None,
                 delivery: Delivery | None = None, watcher: EventWatcher | None = None, interval_s: float = 1.0,
                 on_alert: Callable[[Alert, list[str], list[str]], None] | None = None,
                 rules: LiveRules | None = None) -> None:
        self.source = source
        self.engine = engine
        self.rules = rules  # the findings rules on the live window (bounded rate), None: the alert kinds only
        self.db = db
        self.delivery = delivery or Delivery()
        self.watcher = watcher
        self.interval_s = interval_s
        self.on_alert = on_alert
        self.history: list[Alert] = []
        self.notes: list[str] = []
        if watcher is not None and watcher.reasons:
            for gpu, why in sorted(watcher.reasons.items()):
                self.notes.append(_("GPU {gpu}: Xid and ECC events are not watched: {reason}").format(gpu=gpu,
                                                                                                      reason=why))

    def tick(self) -> list[Alert]:
        batch = self.source.read()
        alerts = self.engine.feed(batch)
        if self.rules is not None:
            alerts += self.rules.feed(batch)
        if self.watcher is not None:
            events = self.watcher.wait(int(self.interval_s * 1000))
            uuids = {s.gpu_index: s.gpu_uuid for s in batch.samples}
            alerts += self.engine.feed_events(events, batch.t, uuids)
        for alert in alerts:
            result = deliver(alert, self.delivery)
            delivered = ["desktop" if self.on_alert is not None else "terminal", *result.delivered]
            if self.db is not None:
                save_alert(self.db, t=alert.t, kind=alert.kind.value, severity=alert.severity,
                           gpu_index=alert.gpu_index, gpu_uuid=alert.gpu_uuid, host=self.delivery.host,
                           message=alert.message, evidence={"rule": alert.rule, **alert.evidence},
                           delivered=",".join(delivered),
                           delivery_error="; ".join(result.errors))
            self.history.append(alert)
            if self.on_alert is not None:
                self.on_alert(alert, delivered, result.errors)
        return alerts

    def close(self) -> None:
        if self.watcher is not None:
            self.watcher.close()


def open_alert_monitor(on_alert: Callable[[Alert, list[str], list[str]], None] | None = None, *,
                       interval_s: float = 1.0, thresholds: Any = None, delivery: Delivery | None = None,
                       nvml: Any = None, db: Database | None = None) -> AlertMonitor:
    """An :class:`AlertMonitor` over this machine's GPUs: NVML, its events and the user store, opened in the
    calling thread (the window's alert worker calls it in its own thread).

    Raises:
        NvmlUnavailableError: NVML cannot be used.
        StoreError: the user store cannot be opened.
    """
    from gpudesk.nvml.nvml_session import host_name
    from gpudesk.store import open_store
    from gpudesk.telemetry.sources.nvml_source import NvmlSource

    source = NvmlSource(nvml=nvml, interval_s=interval_s)
    try:
        store = db if db is not None else open_store()
    except Exception:
        source.close()
        raise
    from gpudesk.telemetry.rules.thresholds import Thresholds, ThresholdsError, load_thresholds

    notes: list[str] = []
    try:
        rule_th = load_thresholds()  # the thresholds the user set for the findings: one set for both
    except ThresholdsError as exc:
        rule_th = Thresholds()
        notes.append(_("The rule thresholds file could not be used; the alerts use the default thresholds: "
                       "{reason}").format(reason=exc))
    watcher = EventWatcher(source.session).open()
    delivery = delivery or Delivery(host=host_name())
    monitor = AlertMonitor(source, AlertEngine(thresholds or AlertThresholds.from_rules(rule_th)), db=store,
                           delivery=delivery, watcher=watcher, interval_s=interval_s, on_alert=on_alert,
                           rules=LiveRules(rule_th, devices=list(source.devices())))
    monitor.notes.extend(notes)
    return monitor
