"""Issue 25 (network and output half): run every hostile case class through the real CLI of a gpudesk tree and
print one row per case: exit status, seconds, peak memory (MiB), and what went wrong (traceback, raw control
characters on stdout/stderr, invalid JSON, a credential sent to a server the user did not give, "inf" shown).

    python tools/hostile_matrix.py /path/to/gpudesk/tree [--only NAME]

The hostile server (tests/helpers/hostile_server.py) runs in this process on 127.0.0.1; each case runs the CLI
of the given tree in a subprocess with a hard limit of 60 s.
"""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE / "tests"))
sys.path.insert(0, str(HERE / "tests" / "benchmarks"))

from helpers.hostile_server import HostileServer, gzip_bomb  # noqa: E402

RAW_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
LIMIT_S = 60


def big_page(n_gpus: int) -> str:
    out = []
    for name in ("DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_GPU_TEMP"):
        out.append(f"# HELP {name} x\n# TYPE {name} gauge")
        for i in range(n_gpus):
            node, g = divmod(i, 8)
            out.append(f'{name}{{gpu="{g}",UUID="GPU-{node:06d}{g:02d}-0000",device="nvidia{g}",'
                       f'modelName="NVIDIA H100 80GB HBM3",Hostname="node{node:04d}"}} {i % 100}')
    return "\n".join(out) + "\n"


def run(tree: str, args: list[str], env_extra: dict[str, str] | None = None) -> dict[str, object]:
    env = dict(os.environ, PYTHONPATH=tree, GPUDESK_DATA_DIR=tempfile.mkdtemp(prefix="hm-"))
    env.update(env_extra or {})
    code = ("import resource, sys, runpy; sys.argv = ['gpudesk'] + sys.argv[1:]\n"
            "try:\n    runpy.run_module('gpudesk', run_name='__main__')\n"
            "finally:\n    sys.stderr.flush(); sys.stdout.flush()\n"
            "    import os; os.write(2, ('\\nPEAK_KB=%d\\n' % resource.getrusage(resource.RUSAGE_SELF).ru_maxrss).encode())\n")
    t0 = time.monotonic()
    try:
        p = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, timeout=LIMIT_S,
                           cwd=tree)
        rc: object = p.returncode
        out, err = p.stdout, p.stderr
    except subprocess.TimeoutExpired as exc:
        rc, out, err = "killed@60s", exc.stdout or b"", exc.stderr or b""
    dt = time.monotonic() - t0
    peak = re.search(rb"PEAK_KB=(\d+)", err)
    err = re.sub(rb"\nPEAK_KB=\d+\n", b"", err)
    return {"rc": rc, "s": dt, "mib": int(peak.group(1)) / 1024 if peak else None, "out": out, "err": err}


def judge(res: dict[str, object], want_json: bool = False) -> list[str]:
    out, err = res["out"], res["err"]
    assert isinstance(out, bytes) and isinstance(err, bytes)
    problems = []
    text = out.decode("utf-8", "replace") + err.decode("utf-8", "replace")
    if "Traceback" in text:
        last = [ln for ln in err.decode("utf-8", "replace").splitlines() if ln.strip()]
        problems.append("traceback: " + (last[-1][:70] if last else "?"))
    if RAW_CONTROL.search(out.decode("utf-8", "replace")) or RAW_CONTROL.search(err.decode("utf-8", "replace")):
        problems.append("raw control chars")
    if re.search(r"\b(util|power|mem)\s+[-+]?inf", text, re.I):
        problems.append("inf shown as a value")
    if want_json and res["rc"] == 0:
        try:
            json.loads(out, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
        except ValueError as exc:
            problems.append(f"invalid JSON ({str(exc)[:30]})")
    if res["rc"] == "killed@60s":
        problems.append("held > 60 s")
    return problems


def first_line(res: dict[str, object]) -> str:
    err = res["err"]
    assert isinstance(err, bytes)
    lines = [ln for ln in err.decode("utf-8", "replace").splitlines() if ln.strip() and "Traceback" not in ln]
    return (lines[-1] if lines else "")[:110].replace("|", "/")


def main() -> None:
    tree = os.path.abspath(sys.argv[1])
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    rows = []
    gzip_bomb()  # built before the clock starts (compressing 1 GiB takes the server seconds)
    with HostileServer(drip_s=0.5, max_answer_s=90) as srv, HostileServer() as other:
        srv.redirect_target = other.url + "/ok"
        u = srv.url
        tok = {"GPUDESK_FLEET_SECRET": "s3cret-token"}
        f = ["monitor", "fleet"]
        page = Path(tempfile.mkdtemp()) / "page"
        cases: list[tuple[str, list[str], dict[str, str] | None, bool]] = [
            ("slow headers (timeout 3 s)", f + ["--prometheus", u + "/slow-headers", "--timeout", "3"], None, False),
            ("slow body (timeout 3 s)", f + ["--prometheus", u + "/slow-body", "--timeout", "3"], None, False),
            ("cross-origin redirect, bearer", f + ["--prometheus", u + "/redirect-away", "--auth", "bearer"], tok, False),
            ("same-origin redirect, bearer", f + ["--prometheus", u + "/redirect-here", "--auth", "bearer", "--json"], tok, True),
            ("cross-origin redirect, basic auth", f + ["--prometheus", u + "/redirect-away", "--auth", "basic",
                                                        "--user", "me"], tok, False),
            ("redirect loop", f + ["--prometheus", u + "/redirect-loop"], None, False),
            ("endless body", f + ["--scrape", u + "/huge/metrics"], None, False),
            ("10 GiB declared body", f + ["--prometheus", u + "/huge-declared"], None, False),
            ("gzip bomb (1 GiB)", f + ["--prometheus", u + "/gzip-bomb"], None, False),
            ("wrong JSON types", f + ["--prometheus", u + "/wrong-types"], None, False),
            ("NaN/Inf/negative (scrape)", f + ["--scrape", u + "/nonfinite/metrics"], None, False),
            ("NaN/Inf/negative (scrape --json)", f + ["--scrape", u + "/nonfinite/metrics", "--json"], None, True),
            ("NaN/Inf (prometheus --json)", f + ["--prometheus", u + "/nonfinite", "--json"], None, True),
            ("escapes in labels (scrape)", f + ["--scrape", u + "/escapes/metrics"], None, False),
            ("escapes in labels (prometheus)", f + ["--prometheus", u + "/escapes"], None, False),
            ("escapes in error body", f + ["--prometheus", u + "/error-escapes"], None, False),
            ("Latin-1 terminal, zh_CN", ["--lang", "zh_CN"] + f + ["--scrape", u + "/ok/metrics"],
             {"PYTHONIOENCODING": "latin-1"}, False),
            ("series limit (--max-series 3)", f + ["--scrape", u + "/ok/metrics", "--max-series", "3"], None, False),
            ("stream output with escapes", ["monitor", "stream", sys.executable + " -c \"import sys; print('"
                                            "\\x1b]52;c;cm0=\\x07\\x1b[2J'); sys.exit(3)\"", "--duration", "3s"],
             None, False),
        ]
        for name, args, env, want_json in cases:
            if only and only not in name:
                continue
            n_before = len(other.requests)
            res = run(tree, args, env)
            probs = judge(res, want_json)
            if ("bearer" in name or "basic" in name) and any(a for _p, a in other.requests[n_before:]):
                probs.append("TOKEN SENT to the other server")
            rows.append((name, res, probs))
            print_row(rows[-1])
        # non-UTF-8 file name of a log (the name itself; the content is a real dcgmi log)
        if not only or "UTF-8" in only:
            bad = Path(tempfile.mkdtemp()).as_posix().encode() + b"/dmon-\xff\xfe.log"
            src = HERE / "tests" / "fixtures" / "fleet" / "dcgmi_dmon_8gpu_na_issue244.txt"
            with open(bad, "wb") as fh:
                fh.write(src.read_bytes())
            name_text = os.fsdecode(bad)
            dmon = Path(tempfile.mkdtemp()).as_posix().encode() + b"/dmon-\xff.log"
            with open(dmon, "wb") as fh:
                fh.write((HERE / "tests" / "fixtures" / "monitor" / "sample_a_pucvmet.txt").read_bytes())
            for label, args in (("non-UTF-8 log name (monitor import)", ["monitor", "import", os.fsdecode(dmon)]),
                                ("non-UTF-8 log name (monitor report)", ["monitor", "report", os.fsdecode(dmon),
                                                                         "--out", os.fsdecode(dmon) + ".md"]),
                                ("non-UTF-8 log name (fleet)", f + ["--dcgmi", name_text, "--host", "n"]),
                                ("non-UTF-8 log name (analyze)", ["monitor", "analyze", name_text]),
                                ("non-UTF-8 missing file", ["monitor", "analyze", name_text + "x"])):
                res = run(tree, args)
                rows.append((label, res, judge(res)))
                print_row(rows[-1])
        for n in (2000, 5000):
            if only and str(n) not in only:
                continue
            page.write_text(big_page(n))
            import http.server
            import threading

            body = page.read_bytes()

            class H(http.server.BaseHTTPRequestHandler):
                page_bytes = body

                def do_GET(self) -> None:
                    body = self.page_bytes
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)

                def log_message(self, *a: object) -> None:
                    pass

            httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
            threading.Thread(target=httpd.serve_forever, daemon=True).start()
            res = run(tree, f + ["--scrape", f"http://127.0.0.1:{httpd.server_address[1]}/metrics", "--json"])
            rows.append((f"{n}-GPU exporter page", res, judge(res, True)))
            print_row(rows[-1])
            httpd.shutdown()


def print_row(row: tuple[str, dict[str, object], list[str]]) -> None:
    name, res, probs = row
    mib = f"{res['mib']:.0f}" if res["mib"] else "?"
    verdict = "; ".join(probs) if probs else "ok"
    print(f"| {name} | rc {res['rc']} | {res['s']:.1f} s | {mib} MiB | {verdict} | {first_line(res)} |", flush=True)


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    main()
