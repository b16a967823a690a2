"""The fleet client against a server that misbehaves on purpose (tests/helpers/hostile_server.py, issue 25): each
case ends in a clear FleetError naming the problem and the limit, or in a correct N/A, within its time limit, and
credentials never reach a server the user did not give."""

from __future__ import annotations

import math
import shutil
import time

import pytest
from helpers.hostile_server import ESCAPES, HostileServer, SilentServer
from helpers.prometheus_server import self_signed_cert

from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.fleet.exporter_scrape import scrape
from gpudesk.telemetry.fleet.fleet_http import (
    Auth,
    FleetBadResponse,
    FleetError,
    FleetRedirected,
    FleetTooLarge,
    FleetUnreachable,
    HttpClient,
)
from gpudesk.telemetry.fleet.prometheus_source import PrometheusSource

BEARER = Auth("bearer", secret="s3cret-token")


@pytest.fixture(scope="module")
def servers():
    with HostileServer(drip_s=0.2, max_answer_s=20, bomb_mib=64) as srv, HostileServer() as other:
        srv.redirect_target = other.url + "/ok"
        yield srv, other


@pytest.mark.parametrize("mode", ["slow-headers", "slow-body"])
def test_a_trickling_server_is_cut_at_the_deadline(servers, mode):
    srv, _ = servers
    t0 = time.monotonic()
    with pytest.raises(FleetUnreachable, match=r"did not answer completely within 1 s") as err:
        HttpClient(f"{srv.url}/{mode}", timeout_s=1.0).get_json("/api/v1/labels")
    took = time.monotonic() - t0
    assert took < 2.5, took  # every byte arrives within the per-read timeout: only the deadline stops it
    assert err.value.field == "timeout"


def test_a_redirect_to_another_origin_is_not_followed_and_the_token_stays_home(servers):
    srv, other = servers
    before = len(other.requests)
    with pytest.raises(FleetRedirected, match="credentials were not sent") as err:
        HttpClient(srv.url + "/redirect-away", auth=BEARER).get_json("/api/v1/labels")
    assert err.value.location == other.url + "/ok/api/v1/labels"
    assert other.url in str(err.value)
    assert len(other.requests) == before  # the other server was not contacted at all
    with pytest.raises(FleetRedirected, match="not followed"):  # nor without credentials
        HttpClient(srv.url + "/redirect-away").get_json("/api/v1/labels")
    assert len(other.requests) == before


def test_a_same_origin_redirect_is_followed_with_the_credentials(servers):
    srv, _ = servers
    doc = HttpClient(srv.url + "/redirect-here", auth=BEARER).get_json("/api/v1/label/__name__/values")
    assert doc["data"] == ["DCGM_FI_DEV_GPU_UTIL"]
    path, auth = srv.requests[-1]
    assert path == "/ok/api/v1/label/__name__/values" and auth == "Bearer s3cret-token"


def test_a_redirect_loop_stops_after_three(servers):
    srv, _ = servers
    before = len(srv.requests)
    with pytest.raises(FleetBadResponse, match="redirected more than 3 times"):
        HttpClient(srv.url + "/redirect-loop").get_json("/api/v1/labels")
    assert len(srv.requests) - before <= 4


@pytest.mark.parametrize(("mode", "said"), [
    ("huge", r"too large: more than 1 MiB, limit 1 MiB"),
    ("huge-declared", r"too large: 10240\.0 MiB, limit 1 MiB"),
    ("gzip-bomb", r"too large: more than 1 MiB once decompressed \(from 0\.\d MiB sent\), limit 1 MiB"),
])
def test_answers_over_the_size_limit_are_refused_saying_the_limit(servers, mode, said):
    srv, _ = servers
    t0 = time.monotonic()
    with pytest.raises(FleetTooLarge, match=said):
        HttpClient(f"{srv.url}/{mode}", max_body_bytes=2**20).get_json("/api/v1/labels")
    assert time.monotonic() - t0 < 5


def test_every_wrong_json_shape_is_a_clear_error(servers):
    srv, _ = servers
    src = PrometheusSource(srv.url + "/wrong-types")
    seen = set()
    for shape in range(8):
        with pytest.raises(FleetBadResponse) as err:
            data = src._api("/api/v1/query_range", {"query": "x", "shape": str(shape)})
            result = src.shape.result(data, src.max_series)
            for i, series in enumerate(result):
                src.shape.labels(series, i)
                src.shape.matrix(series, i)
                src.shape.point(series, i)
        seen.add(type(err.value))
        assert "Prometheus API answer" in str(err.value)
    assert seen == {FleetBadResponse}


def test_history_and_snapshot_on_wrong_types_end_in_fleet_errors(servers):
    srv, _ = servers
    src = PrometheusSource(srv.url + "/wrong-types")
    errors = 0
    for _round in range(8):  # the server answers each query with the next wrong shape
        for read in (lambda: src.history(3600, metrics=[m.GPU_UTIL]), lambda: src.snapshot([m.GPU_UTIL])):
            try:
                read()
            except FleetError as exc:  # any other exception fails the test
                assert "Prometheus API answer" in str(exc) or "carry no gpu" in str(exc)
                errors += 1
    assert errors >= 12  # a shape without the field a read uses is simply empty for that read


def test_non_finite_and_negative_readings_are_na_with_the_reason(servers):
    srv, _ = servers
    snap = scrape([srv.url + "/nonfinite/metrics"])
    by_gpu = {s.gpu_index: s for s in snap.batch.samples}
    assert by_gpu[0].values[m.GPU_UTIL] is None and by_gpu[0].reasons[m.GPU_UTIL] == "not a number (NaN)"
    assert by_gpu[1].values[m.GPU_UTIL] is None and by_gpu[1].reasons[m.GPU_UTIL] == "infinite (-Inf)"
    assert by_gpu[0].reasons[m.POWER] == "infinite (+Inf)"
    assert by_gpu[1].reasons[m.POWER] == "negative (-5), impossible for a value in W"
    assert by_gpu[0].reasons[m.ECC_DBE].startswith("negative (-3)")
    assert by_gpu[1].reasons[m.ECC_DBE] == "infinite (+Inf)"  # 1e999 overflows to +Inf when read
    hist = PrometheusSource(srv.url + "/nonfinite").history(300, metrics=[m.GPU_UTIL, m.POWER])
    assert all(math.isnan(v) for v in hist.frame.columns[m.GPU_UTIL].ravel())
    assert hist.frame.reasons[(0, m.GPU_UTIL)] == "not a number (NaN)"
    assert hist.frame.reasons[(1, m.GPU_UTIL)] == "infinite (-Inf)"
    assert hist.frame.reasons[(0, m.POWER)] == "infinite (-Inf)"
    now = PrometheusSource(srv.url + "/nonfinite").snapshot([m.GPU_UTIL, m.POWER])
    assert all(v is None for s in now.batch.samples for v in s.values.values())


def test_the_series_limit_is_stated(servers):
    srv, _ = servers
    with pytest.raises(FleetTooLarge, match=r"too large: 4 series, limit 3 \(raise with --max-series\)"):
        scrape([srv.url + "/ok/metrics"], max_series=3)
    with pytest.raises(FleetTooLarge, match=r"too large: 2 series, limit 1 \(raise with --max-series\)"):
        PrometheusSource(srv.url + "/ok", max_series=1).snapshot([m.GPU_UTIL])


def test_escape_characters_in_labels_are_kept_as_text(servers):
    # the core keeps the label as the server sent it (the window shows it as plain text); the CLI escapes it
    srv, _ = servers
    snap = scrape([srv.url + "/escapes/metrics"])
    assert {k.host for k in snap.keys} == {"node" + ESCAPES}


@pytest.mark.parametrize("scheme", ["http", "https"])
def test_a_server_that_never_answers_is_cut_at_the_deadline(scheme):
    # https: the TLS handshake is what hangs; http: the status line
    with SilentServer() as srv:
        t0 = time.monotonic()
        with pytest.raises(FleetUnreachable, match="within 1 s"):
            HttpClient(f"{scheme}://127.0.0.1:{srv.port}", timeout_s=1.0).get_bytes("/metrics")
        assert time.monotonic() - t0 < 2.5


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed (needed to make a test cert)")
def test_a_trickling_tls_server_is_cut_at_the_deadline_too(tmp_path):
    cert, key = self_signed_cert(tmp_path)
    with HostileServer(drip_s=0.2, max_answer_s=20, tls=(str(cert), str(key))) as srv:
        client = HttpClient(srv.url + "/slow-body", timeout_s=1.0, ca_file=str(cert))
        t0 = time.monotonic()
        with pytest.raises(FleetUnreachable, match="within 1 s"):
            client.get_json("/api/v1/labels")
        assert time.monotonic() - t0 < 2.5
        assert HttpClient(srv.url + "/ok", ca_file=str(cert)).get_json("/api/v1/label/__name__/values")["data"] \
            == ["DCGM_FI_DEV_GPU_UTIL"]


@pytest.fixture
def resolver(monkeypatch):
    """socket.getaddrinfo faked at its boundary: ``hang.test`` never answers (until the test ends), ``fleet.test``
    is 127.0.0.1, ``nxdomain.test`` does not exist; every other name goes to the real resolver."""
    import socket
    import threading

    real = socket.getaddrinfo
    release = threading.Event()
    calls: list[str] = []

    def fake(host, port, *args, **kwargs):
        calls.append(host)
        if host == "hang.test":
            release.wait(30)  # a DNS server that never answers (the C resolver takes no timeout)
            raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
        if host == "nxdomain.test":
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        if host == "fleet.test":
            return real("127.0.0.1", port, *args, **kwargs)
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", fake)
    monkeypatch.delenv("http_proxy", raising=False)
    monkeypatch.delenv("HTTP_PROXY", raising=False)
    yield calls
    release.set()


def test_a_resolver_that_never_answers_is_cut_at_the_deadline(resolver):
    t0 = time.monotonic()
    with pytest.raises(FleetUnreachable, match=r"host name hang\.test was not resolved within 1 s") as err:
        HttpClient("http://hang.test:9090", timeout_s=1.0).get_json("/api/v1/labels")
    assert time.monotonic() - t0 < 2.0
    assert err.value.field == "url" and "hang.test" in resolver
    # the same through a fleet read: the deadline covers the lookup too
    t0 = time.monotonic()
    with pytest.raises(FleetUnreachable, match="was not resolved within 1 s"):
        PrometheusSource("http://hang.test:9090", timeout_s=1.0).snapshot([m.GPU_UTIL])
    assert time.monotonic() - t0 < 2.0


def test_names_resolved_in_the_worker_still_reach_the_server_and_unknown_names_are_said(servers, resolver):
    _, other = servers
    port = other.url.rsplit(":", 1)[1]
    answer = HttpClient(f"http://fleet.test:{port}/ok", timeout_s=5.0).get_json("/api/v1/label/__name__/values")
    assert answer["data"] == ["DCGM_FI_DEV_GPU_UTIL"] and "fleet.test" in resolver
    with pytest.raises(FleetUnreachable, match="Could not reach") as err:
        HttpClient("http://nxdomain.test:9090", timeout_s=5.0).get_bytes("/metrics")
    assert "Name or service not known" in (err.value.detail or "")
