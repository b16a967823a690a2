"""HTTP errors of the fleet sources read as short sentences, and impossible addresses or timeouts are refused
before any connection (tryout of issue 16)."""

from __future__ import annotations

import pytest

from gpudesk.telemetry.fleet.fleet_http import MAX_DETAIL_CHARS, FleetError, HttpClient, check_url, plain_text

# The 404 page nginx serves in front of a Prometheus at a wrong path (nginx's built-in error page).
NGINX_404 = ("<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>"
             "\r\n<hr><center>nginx/1.18.0 (Ubuntu)</center>\r\n</body>\r\n</html>\r\n")


def test_an_html_error_page_becomes_one_short_line():
    assert plain_text(NGINX_404) == "404 Not Found 404 Not Found nginx/1.18.0 (Ubuntu)"
    long = "<html><body>" + "<p>Sign in &amp; retry</p>" * 500 + "</body></html>"
    text = plain_text(long)
    assert "<" not in text and "&amp;" not in text and len(text) <= MAX_DETAIL_CHARS


@pytest.mark.parametrize("url", ["http://[::1", "http://host:99999", "ftp://host", "http://"])
def test_bad_addresses_are_fleet_errors(url):
    with pytest.raises(FleetError):
        check_url(url)


@pytest.mark.parametrize("timeout", [-1, 0, float("nan"), float("inf")])
def test_impossible_timeouts_are_refused(timeout):
    with pytest.raises(FleetError, match="positive number of seconds"):
        HttpClient("http://127.0.0.1:1", timeout_s=timeout)
