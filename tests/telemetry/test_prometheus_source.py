"""The fleet source against a REAL Prometheus (Debian package) scraping real-format DCGM exporter text.

Label sets come from real captures (tests/fixtures/fleet/*.prom, each with its source URL); the values are
varied over time by the test. History for a 24 h window is backfilled with promtool.
"""

from __future__ import annotations

import json
import math
import shutil
import time
from pathlib import Path

import numpy as np
import pytest
from helpers import memory_keyring
from helpers.prometheus_server import (
    PROMETHEUS,
    PROMTOOL,
    SKIP_REASON,
    TEST_PASSWORD,
    TEST_USER,
    Exporter,
    PrometheusServer,
    backfill,
    free_port,
    self_signed_cert,
)
from prometheus_client.parser import text_string_to_metric_families

from gpudesk.telemetry.core import dcgm_fields as df
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.fleet.fleet import GROUP_BY_JOB, fleet_findings, group_keys
from gpudesk.telemetry.fleet.fleet_http import (
    Auth,
    FleetBadResponse,
    FleetError,
    FleetNoData,
    FleetUnauthorized,
    FleetUnreachable,
)
from gpudesk.telemetry.fleet.fleet_secrets import ConnectionSettings, auth_for, store_secret
from gpudesk.telemetry.fleet.prometheus_source import PrometheusSource, choose_step

pytestmark = pytest.mark.skipif(PROMETHEUS is None or PROMTOOL is None, reason=SKIP_REASON)

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "fleet"
V100 = FIXTURES / "dcgm_exporter_v100_issue250.prom"  # r6i3n0, 4 GPUs, Hostname label
MIXED = FIXTURES / "dcgm_exporter_mixed_mig_k8s_pr736.prom"  # hostname label, MIG, pods

INT32_BLANK = 0x7FFFFFF0  # DCGM_INT32_BLANK (dcgm_structs.h)


def label_sets(path: Path) -> list[dict[str, str]]:
    """The distinct label sets (one per GPU / MIG instance) of a real capture."""
    seen: dict[tuple, dict[str, str]] = {}
    for fam in text_string_to_metric_families(path.read_text()):
        for s in fam.samples:
            key = (s.labels.get("gpu"), s.labels.get("UUID"), s.labels.get("GPU_I_ID"))
            seen.setdefault(key, dict(s.labels))
    return list(seen.values())


def fmt_labels(labels: dict[str, str]) -> str:
    return "{" + ",".join(f'{k}="{v}"' for k, v in labels.items()) + "}"


def util_of(labels: dict[str, str], t: float) -> float:
    """The test's utilization pattern: GPU 0 of each node idle, the others busy with a slow wave."""
    if labels.get("gpu") == "0":
        return 0.0
    return 80.0 + 10.0 * math.sin(t / 7.0 + int(labels.get("gpu", "1")))


def render_node(sets: list[dict[str, str]]) -> str:
    t = time.time()
    lines = []
    for name, kind, value in (
        ("DCGM_FI_DEV_GPU_UTIL", "gauge", lambda lb: util_of(lb, t)),
        ("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "gauge", lambda lb: util_of(lb, t) / 100.0),
        ("DCGM_FI_DEV_FB_USED", "gauge", lambda lb: 30000.0 if lb.get("gpu") != "0" else 1.0),
        ("DCGM_FI_DEV_POWER_USAGE", "gauge", lambda lb: 250.5),
        ("DCGM_FI_DEV_GPU_TEMP", "gauge", lambda lb: 61.0),
        ("DCGM_FI_DEV_SM_CLOCK", "gauge", lambda lb: 1530.0),
        ("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "gauge", lambda lb: 0.0),
        ("DCGM_FI_DEV_MEMORY_TEMP", "gauge", lambda lb: float(INT32_BLANK)),  # a blank passed through
        ("DCGM_FI_DEV_XID_ERRORS", "gauge", lambda lb: 79.0 if lb.get("gpu") == "3" else 0.0),  # fell off the bus
    ):
        lines.append(f"# HELP {name} test\n# TYPE {name} {kind}")
        for lb in sets:
            lines.append(f"{name}{fmt_labels(lb)} {value(lb):.6f}")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    sets = {"r6i3n0": label_sets(V100), "dcgm-exporter-wwwjh": label_sets(MIXED)}
    exporter = Exporter(lambda host: render_node(sets[host]))
    work = tmp_path_factory.mktemp("prom-live")
    server = PrometheusServer(work, {h: exporter.url(h) for h in sets}, scrape_interval_s=1)
    try:
        server.wait_ready(90)
        time.sleep(2.5)  # a few scrapes, so a short range has several points
        yield server, exporter, sets
    finally:
        server.stop()
        exporter.close()


def test_discover_labels_and_series_of_a_real_prometheus(live):
    server, _, _ = live
    src = PrometheusSource(server.url, scrape_interval_s=1)
    found = src.discover()
    assert {m.GPU_UTIL, df.GR_ENGINE_ACTIVE, m.MEM_USED, m.POWER, m.GPU_TEMP, m.SM_CLOCK} <= set(found)
    labels = src.labels()
    assert {"Hostname", "hostname", "UUID", "modelName", "GPU_I_ID", "pod", "namespace"} <= set(labels)
    series = src.series(["DCGM_FI_DEV_GPU_UTIL"])
    assert len(series) == 4 + 4  # 4 V100s + 1 GPU and 3 MIG instances of the mixed node
    assert {s.get("Hostname") or s.get("hostname") for s in series} == {"r6i3n0", "dcgm-exporter-wwwjh"}


def test_snapshot_maps_hosts_gpus_mig_jobs_and_units(live):
    server, _, _ = live
    src = PrometheusSource(server.url, scrape_interval_s=1)
    snap = src.snapshot()
    assert src.queries == 1  # the whole fleet in one instant query
    by_label = {k.label: (k, snap.batch.samples[i]) for i, k in enumerate(snap.keys)}
    assert set(by_label) == {
        "r6i3n0 GPU 0", "r6i3n0 GPU 1", "r6i3n0 GPU 2", "r6i3n0 GPU 3",
        "dcgm-exporter-wwwjh GPU 1", "dcgm-exporter-wwwjh GPU 2 / MIG 3",
        "dcgm-exporter-wwwjh GPU 0 / MIG 6", "dcgm-exporter-wwwjh GPU 0 / MIG 3",
    }
    key, sample = by_label["r6i3n0 GPU 2"]
    assert key.uuid == "GPU-a9079f15-493e-6c1c-c78c-73ec2b840cba"
    assert key.model_name == "Tesla V100-SXM2-32GB"
    assert sample.values[m.MEM_USED] == 30000 * 2**20  # MiB -> bytes
    assert sample.values[m.SM_CLOCK] == 1530e6  # MHz -> Hz
    assert sample.values[m.POWER] == pytest.approx(250.5)
    assert 70 <= sample.values[df.GR_ENGINE_ACTIVE] <= 90  # ratio -> percent
    assert sample.values[m.MEM_TEMP] is None and sample.reasons[m.MEM_TEMP] == "DCGM blank"
    mig, _ = by_label["dcgm-exporter-wwwjh GPU 2 / MIG 3"]
    assert (mig.mig_instance, mig.mig_profile, mig.job_name) == (3, "1g.6gb", "default/triton-server-f7cb5d77-95xcf")
    groups = group_keys(snap.keys, GROUP_BY_JOB)
    assert "default/triton-server-f7cb5d77-2w5b2" in groups and "(no job)" in groups
    assert snap.to_dict()["gpus"][0]["host"] in {"r6i3n0", "dcgm-exporter-wwwjh"}


def test_history_of_the_live_window_is_one_range_query_per_metric(live):
    server, _, _ = live
    src = PrometheusSource(server.url, scrape_interval_s=1)
    hist = src.history(20, metrics=[m.GPU_UTIL, m.POWER], step_s=1)
    assert src.queries == 1 + 2  # the metric names once, then one range query per metric (not per GPU)
    assert len(hist.keys) == 8
    util = hist.values(m.GPU_UTIL)
    labels = [k.label for k in hist.keys]
    assert util[labels.index("r6i3n0 GPU 0")] == 0.0
    assert 70 < util[labels.index("r6i3n0 GPU 1")] < 90
    # MIG instances carry no DCGM_FI_DEV_GPU_UTIL in real life, but the test exporter serves it: still mapped
    assert np.isfinite(util).sum() == 8


def om_history(start: float, end: float, interval_s: float, n_nodes: int, gpus_per_node: int) -> str:
    """OpenMetrics backfill text: real V100 label layout (issue 250), hosts node00..; GPU 0 of node00 held by a
    pod but idle, the rest busy."""
    base = label_sets(V100)[0]
    times = np.arange(start, end, interval_s)
    out = []
    for name, scale in (("DCGM_FI_DEV_GPU_UTIL", 1.0), ("DCGM_FI_DEV_POWER_USAGE", 3.0)):
        out.append(f"# TYPE {name} gauge")
        for node in range(n_nodes):
            for g in range(gpus_per_node):
                lb = dict(base, gpu=str(g), device=f"nvidia{g}", Hostname=f"node{node:02d}",
                          UUID=f"GPU-{node:04d}{g:04d}-0000-0000-0000-000000000000")
                if node == 0:
                    lb.update(namespace="research", pod=f"train-{g // 4}", container="main")
                busy = 0.0 if (node == 0 and g == 0) else 85.0
                label_text = fmt_labels(lb)
                vals = busy + 0 * times
                out.extend(f"{name}{label_text} {v * scale:g} {ts:.0f}" for ts, v in zip(times, vals))
    out.append("# EOF")
    return "\n".join(out) + "\n"


@pytest.fixture(scope="module")
def backfilled(tmp_path_factory):
    work = tmp_path_factory.mktemp("prom-backfill")
    end = math.floor(time.time() / 3600) * 3600 - 3600
    start = end - 26 * 3600
    backfill(om_history(start, end, 60.0, n_nodes=1, gpus_per_node=8), work / "tsdb")
    server = PrometheusServer(work, {}, data_dir=work / "tsdb")
    try:
        server.wait_ready(90, targets_up=False)
        yield server, end
    finally:
        server.stop()


def test_a_24_hour_window_from_backfilled_blocks(backfilled):
    server, end = backfilled
    src = PrometheusSource(server.url, scrape_interval_s=60)
    step = choose_step(24 * 3600, 60)
    assert step == 120  # 720 points, not 1440 raw samples per GPU
    t0 = time.perf_counter()
    hist = src.history(24 * 3600, end=end, metrics=[m.GPU_UTIL, m.POWER])
    elapsed = time.perf_counter() - t0
    assert src.queries == 1 + 2
    assert len(hist.keys) == 8
    assert len(hist.frame) == 721
    util = hist.values(m.GPU_UTIL)
    assert util[0] == 0.0 and np.allclose(util[1:], 85.0)
    assert np.allclose(hist.values(m.POWER)[1:], 255.0)
    assert elapsed < 5.0
    findings = fleet_findings(hist)
    idle = [f for f in findings if f.finding.rule == "allocated-idle"]
    assert [f.key.label for f in idle] == ["node00 GPU 0"]
    assert idle[0].key.job_name == "research/train-0"
    assert idle[0].to_dict()["gpu"]["uuid"] == "GPU-00000000-0000-0000-0000-000000000000"


def test_unreachable_server_is_a_clear_error():
    src = PrometheusSource(f"http://127.0.0.1:{free_port()}", timeout_s=2)
    with pytest.raises(FleetUnreachable) as err:
        src.discover()
    assert "Could not reach" in err.value.user_text()


def test_an_exporter_address_is_not_a_prometheus(live):
    _, exporter, _ = live
    src = PrometheusSource(f"http://127.0.0.1:{exporter.port}", timeout_s=5)
    with pytest.raises(FleetBadResponse) as err:
        src.snapshot()
    assert "HTTP 404" in err.value.message


def test_basic_auth_from_the_keyring_and_no_dcgm_metrics(tmp_path):
    memory_keyring.install()
    server = PrometheusServer(tmp_path, {}, basic_auth=True)
    try:
        server.wait_ready(60, targets_up=False)
        with pytest.raises(FleetUnauthorized):
            PrometheusSource(server.url).discover()
        with pytest.raises(FleetUnauthorized):
            PrometheusSource(server.url, auth=Auth("basic", TEST_USER, "wrong")).discover()
        settings = ConnectionSettings(server.url, auth_kind="basic", username=TEST_USER)
        store_secret(server.url, TEST_PASSWORD)
        assert TEST_PASSWORD not in str(settings.to_dict())
        src = PrometheusSource(server.url, auth=auth_for(settings))
        with pytest.raises(FleetNoData) as err:
            src.discover()  # logged in, but this server scrapes no exporter
        assert "no DCGM exporter metrics" in err.value.message
    finally:
        server.stop()


def test_cli_monitor_fleet_against_the_real_prometheus(live, capsys):
    from gpudesk.cli import main

    server, exporter, _ = live
    assert main(["monitor", "fleet", "--prometheus", server.url, "--window", "20s", "--step", "1",
                 "--interval", "1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["gpus"]) == 8
    v100 = next(g for g in doc["gpus"] if g["host"] == "r6i3n0" and g["gpu_index"] == 2)
    assert v100["uuid"] == "GPU-a9079f15-493e-6c1c-c78c-73ec2b840cba" and v100["mem_used_bytes_max"] == 30000 * 2**20
    assert main(["monitor", "fleet", "--prometheus", server.url, "--window", "20s", "--interval", "1"]) == 0
    text = capsys.readouterr().out
    assert "8 GPU(s) from" in text and "r6i3n0 GPU 0 | GPU-a6158b59-2c1e-1e63-0068-9178c4298abd" in text
    assert "job default/triton-server-f7cb5d77-95xcf" in text
    assert main(["monitor", "fleet", "--scrape", exporter.url("r6i3n0"), "--scrape",
                 exporter.url("dcgm-exporter-wwwjh"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["gpus"]) == 8 and doc["notes"]
    assert main(["monitor", "fleet", "--prometheus", f"http://127.0.0.1:{free_port()}", "--timeout", "2"]) == 1
    assert "Could not reach" in capsys.readouterr().err


def test_gpus_without_a_job_are_judged_node_by_node():
    from gpudesk.telemetry.fleet.fleet import FleetHistory, GpuKey, frame_from_matrix

    keys = [GpuKey(f"n{h}", g, f"GPU-{h}{g}") for h in range(2) for g in range(2)]
    util = np.tile(np.array([[90.0, 90.0, 10.0, 10.0]]), (120, 1))  # each node even; the nodes differ
    frame = frame_from_matrix(np.arange(120) * 15.0, {m.GPU_UTIL: util})
    loose = FleetHistory(keys, frame, 15.0)
    # Each node is even: the imbalance rule only says what it checked (an "info" finding), it warns of nothing.
    assert not [f for f in fleet_findings(loose)
                if f.finding.rule == "multi-gpu-imbalance" and f.finding.severity in ("warning", "critical")]
    job = (("namespace", "ml"), ("pod", "ddp-0"))
    one_job = FleetHistory([GpuKey(k.host, k.gpu_index, k.uuid, job=job) for k in keys], frame, 15.0)
    found = [f for f in fleet_findings(one_job)
             if f.finding.rule == "multi-gpu-imbalance" and f.finding.severity in ("warning", "critical")]
    assert found and all(f.group == "ml/ddp-0" for f in found)


def test_lowercased_metric_names_through_prometheus_issue_272(tmp_path):
    text = (FIXTURES / "dcgm_exporter_a100_mig_lowercase_issue272.prom").read_text()
    exporter = Exporter(lambda host: text.replace("} 0.000000", "} 0.420000"))
    server = PrometheusServer(tmp_path, {"a100": exporter.url("a100")}, scrape_interval_s=1)
    try:
        server.wait_ready(60)
        time.sleep(1.5)
        src = PrometheusSource(server.url, scrape_interval_s=1)
        assert df.GR_ENGINE_ACTIVE in src.discover()
        snap = src.snapshot()
        assert len(snap.keys) == 4 and {s.values[df.GR_ENGINE_ACTIVE] for s in snap.batch.samples} == {42.0}
        assert snap.keys[0].host.startswith("127.0.0.1:")  # no Hostname label: Prometheus' instance label
        hist = src.history(10, metrics=[df.GR_ENGINE_ACTIVE], step_s=1)
        assert np.nanmax(hist.values(df.GR_ENGINE_ACTIVE)) == pytest.approx(42.0)
    finally:
        server.stop()
        exporter.close()


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed (needed to make a test cert)")
def test_tls_with_a_given_ca_file(tmp_path):
    cert, key = self_signed_cert(tmp_path)
    server = PrometheusServer(tmp_path, {}, tls=(cert, key))
    try:
        server.wait_ready(60, targets_up=False)
        assert server.url.startswith("https://")
        with pytest.raises(FleetUnreachable) as err:  # not in the system CA store
            PrometheusSource(server.url, timeout_s=5).labels()
        assert "CERTIFICATE_VERIFY_FAILED" in (err.value.detail or "")
        assert PrometheusSource(server.url, ca_file=str(cert), timeout_s=5).labels() == []
        with pytest.raises(FleetError):
            PrometheusSource(server.url, ca_file=str(tmp_path / "missing.pem"))
    finally:
        server.stop()


def test_xid_and_renamed_metrics_in_the_live_fleet(live):
    server, _, _ = live
    src = PrometheusSource(server.url, scrape_interval_s=1)
    hist = src.history(20, step_s=1)
    xid = [f for f in fleet_findings(hist) if f.finding.rule == "xid-error"]
    assert [f.key.label for f in xid] == ["r6i3n0 GPU 3"]
    assert xid[0].finding.severity == "critical" and xid[0].finding.evidence["xid_codes"] == [79]
    # a deployment that exports power under another name: the override is what gets queried
    renamed = PrometheusSource(server.url, scrape_interval_s=1, metric_names={m.POWER: "DCGM_FI_DEV_GPU_TEMP"})
    snap = renamed.snapshot([m.POWER])
    assert {s.values[m.POWER] for s in snap.batch.samples} == {61.0}
    with pytest.raises(FleetError):
        PrometheusSource(server.url, metric_names={m.POWER: "bad name{}"})


def test_window_means_match_the_range_and_take_one_query(backfilled):
    server, end = backfilled
    src = PrometheusSource(server.url, scrape_interval_s=60)
    means = src.window_means(24 * 3600, end=end, metrics=[m.GPU_UTIL, m.POWER])
    assert src.queries == 1 + 2  # names once, then one instant query per metric
    assert len(means.keys) == 8 and len(means.frame) == 1 and len(means.frame.gpus) == 8 and means.step_s == 24 * 3600
    util = means.values(m.GPU_UTIL)
    assert util[0] == 0.0 and np.allclose(util[1:], 85.0)
    full = src.history(24 * 3600, end=end, metrics=[m.GPU_UTIL])
    assert np.allclose(full.values(m.GPU_UTIL), util)


def test_a_renamed_metric_that_matches_nothing_is_said_and_not_judged(live):
    server, _, _ = live
    src = PrometheusSource(server.url, scrape_interval_s=1, metric_names={m.GPU_UTIL: "my_gpu_util_renamed"})
    hist = src.history(20, metrics=[m.GPU_UTIL, m.POWER], step_s=1)
    assert any("my_gpu_util_renamed" in n and "not judged" in n for n in hist.notes)
    quiet = fleet_findings(hist, include_not_judged=True)
    assert any(f.finding.rule == "multi-gpu-imbalance" and not f.finding.judged for f in quiet)


def test_unknown_metric_key_and_bad_step_window_are_refused(live):
    server, _, _ = live
    with pytest.raises(FleetError, match="foo: not a gpudesk metric"):
        PrometheusSource(server.url, metric_names={"foo": "bar"})
    src = PrometheusSource(server.url, scrape_interval_s=1)
    with pytest.raises(FleetError, match="step must be a positive"):
        src.history(60, step_s=0)
    with pytest.raises(FleetError, match="window must be a positive"):
        src.history(0)
