"""No raw control character from outside text reaches the terminal (issue 25): each CLI command family is run over
hostile text (exporter labels, server error bodies, snapshot frame names, profile names, OOM log text, a stream's
output) and stdout and stderr are searched for control characters other than newline and tab. The window shows the
same texts as plain text (tests/ui); here the CLI's one choke point, gpudesk.cli.terminal_text, is checked."""

from __future__ import annotations

import io
import os
import json
import pickle
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.hostile_server import ESCAPES, HostileServer

from gpudesk.cli import main
from gpudesk.cli.terminal_text import TerminalStream, terminal_text

RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
REPO = Path(__file__).resolve().parents[2]


def assert_clean(out: str, err: str) -> None:
    for name, text in (("stdout", out), ("stderr", err)):
        hit = RAW.search(text)
        assert hit is None, f"raw {hit.group()!r} on {name}: {text[max(0, hit.start() - 60):hit.end() + 20]!r}"


def test_terminal_text_escapes_controls_and_keeps_newlines_tabs_and_text():
    assert terminal_text("a\tb\nc") == "a\tb\nc"
    assert terminal_text("\x1b]52;c;AAAA\x07") == "\\x1b]52;c;AAAA\\x07"
    assert terminal_text("x\b\x00\ry") == "x\\x08\\x00\\x0dy"
    assert terminal_text("\x9b31m \u202eevil") == "\\u009b31m \\u202eevil"
    assert terminal_text("GPU 显存 80 GiB") == "GPU 显存 80 GiB"
    assert terminal_text("dmon-\udcff.log") == "dmon-\\udcff.log"  # a file name that is not UTF-8
    # JSON stays JSON: the escapes used for what json.dumps leaves raw are JSON's own
    doc = {"label": "a\x9b\u202e\x7f\udcff"}
    assert json.loads(terminal_text(json.dumps(doc, ensure_ascii=False))) == doc


def test_a_latin1_terminal_gets_escapes_not_a_traceback():
    raw = io.TextIOWrapper(io.BytesIO(), encoding="latin-1")
    stream = TerminalStream(raw)
    stream.write("显存 80 GiB, café\x1b\n")
    stream.flush()
    assert raw.buffer.getvalue() == "\\u663e\\u5b58 80 GiB, caf\u00e9\\x1b\n".encode("latin-1")


@pytest.fixture(scope="module")
def hostile():
    with HostileServer() as srv:
        yield srv


@pytest.mark.parametrize("args", [
    ["--scrape", "{url}/escapes/metrics"],
    ["--scrape", "{url}/escapes/metrics", "--json"],
    ["--prometheus", "{url}/escapes"],
    ["--prometheus", "{url}/escapes", "--json"],
    ["--prometheus", "{url}/error-escapes"],
    ["--scrape", "{url}/unknown-\x1b[2J/metrics"],
])
def test_fleet_labels_and_error_bodies(hostile, capsys, args):
    main(["monitor", "fleet", *[a.format(url=hostile.url) for a in args]])
    out, err = capsys.readouterr()
    assert_clean(out, err)
    assert "Traceback" not in err
    if "--json" in args:
        doc = json.loads(out)
        assert doc["gpus"][0]["host"].startswith("node\x1b[2J")  # the label itself, losslessly
    elif "error" in args[1]:
        assert "\\x1b[2J" in err  # shown, escaped
    elif "unknown" not in args[1]:
        assert "\\x1b]52;c;" in out


def test_oom_text_and_snapshot_frame_names(capsys, tmp_path):
    log = tmp_path / "oom.log"
    log.write_text("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
                   f"capacity of 79.15 GiB of which 1.50 GiB is free. Process 4242 ({ESCAPES}) has 77.6 GiB memory "
                   "in use.\n")
    main(["oom", "diagnose", str(log)])
    out, err = capsys.readouterr()
    assert_clean(out, err)
    from oom import snapshot_builder as sb

    snap = sb.fragmentation_oom("2.4")

    def poison(node: object) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                if k in ("name", "filename") and isinstance(v, str):
                    node[k] = v + ESCAPES
                else:
                    poison(v)
        elif isinstance(node, list):
            for v in node:
                poison(v)

    poison(snap)
    path = tmp_path / "snap.pickle"
    path.write_bytes(pickle.dumps(snap))
    assert main(["oom", "snapshot", str(path)]) == 0
    out, err = capsys.readouterr()
    assert_clean(out, err)
    assert "\\x1b]0;pwned" in out


def test_profile_name(capsys, tmp_path):
    src = (REPO / "resources" / "examples" / "student-project.toml").read_text()
    bad = re.sub(r'(?m)^name = ".*"$', lambda _m: 'name = "lab \\u001b]52;c;cm0=\\u0007 \\u009b2J \\b\\r"', src,
                 count=1)
    assert bad != src
    profile = tmp_path / "p.toml"
    profile.write_text(bad)
    main(["plan", "--profile", str(profile)])
    out, err = capsys.readouterr()
    assert_clean(out, err)
    assert "# lab \\x1b" in out  # the name is shown, escaped
    main(["plan", "--profile", str(tmp_path / "missing-\x1b[2J.toml")])
    out, err = capsys.readouterr()
    assert_clean(out, err)


def test_a_streams_output(capsys, tmp_path):
    script = tmp_path / "noisy.py"
    script.write_text("import sys\n"
                      f"print({ESCAPES!r})\n"
                      f"print({ESCAPES!r}, file=sys.stderr)\n"
                      "sys.exit(3)\n")
    main(["monitor", "stream", f"{sys.executable} {script}", "--duration", "5s"])
    out, err = capsys.readouterr()
    assert_clean(out, err)


def test_the_real_cli_process_on_a_latin1_terminal(hostile):
    # the whole program in its own process, as a user on LANG=en_US.ISO-8859-1 runs it, in Chinese
    env = {"PYTHONPATH": str(REPO), "PYTHONIOENCODING": "latin-1", "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-m", "gpudesk", "--lang", "zh_CN", "monitor", "fleet", "--scrape",
                           hostile.url + "/escapes/metrics"], capture_output=True, env=env, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout.decode("latin-1")
    assert "Traceback" not in out and "\\x1b" in out
    assert RAW.search(out) is None and RAW.search(proc.stderr.decode("latin-1")) is None


def test_a_log_whose_file_name_is_not_utf8(capsys, tmp_path):
    src = REPO / "tests" / "fixtures" / "monitor" / "sample_a_pucvmet.txt"
    raw = os.fsencode(tmp_path) + b"/dmon-\xff\xfe.log"
    with open(raw, "wb") as fh:
        fh.write(src.read_bytes())
    name = os.fsdecode(raw)  # what argv holds for it: lone surrogates
    assert main(["monitor", "import", name]) == 0
    assert main(["monitor", "analyze", "--list"]) == 0
    assert main(["monitor", "report", name, "--out", str(tmp_path / "r.md")]) == 0
    assert main(["monitor", "analyze", name, "--json"]) == 0
    out, err = capsys.readouterr()
    assert_clean(out, err)
    assert "dmon-\\udcff\\udcfe.log" in out
    assert "dmon-\\udcff\\udcfe.log" in (tmp_path / "r.md").read_text()


def test_ctrl_c_in_a_command_is_one_line(capsys, monkeypatch):
    import gpudesk.cli.catalog as catalog_cli

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(catalog_cli, "cmd_list", interrupted)  # read when the parser is built
    assert main(["catalog", "list"]) == 130
    out, err = capsys.readouterr()
    assert err == "gpudesk: interrupted.\n" and out == ""
