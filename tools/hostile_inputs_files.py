"""Run the hostile inputs of issue 25 (file and data half) against a gpudesk tree; print one line per case.

    python tools/hostile_inputs_files.py TREE WORKDIR [NAME-FILTER...]

TREE is the PYTHONPATH of the gpudesk to test (a checkout, or ``git archive <commit> gpudesk | tar -x``), WORKDIR a
scratch folder (emptied). Each case runs ``python -m gpudesk ...`` in a fresh process under a 4 GiB address-space
cap and a 60 s timeout, and prints its exit status, seconds, whether the expected words came ([ok]/[MISSING]),
and the last line (or TRACEBACK / TIMEOUT). Used for the before/after table of issue 25.
"""

import codecs
import json
import os
import pickle
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

TREE = sys.argv[1]
WORK = Path(sys.argv[2])
shutil.rmtree(WORK, ignore_errors=True)
WORK.mkdir(parents=True)
PY = sys.executable
ENV = dict(os.environ, PYTHONPATH=TREE, GPUDESK_DATA_DIR=str(WORK / "data"), QT_QPA_PLATFORM="offscreen")
CAP = 4 * 2**30


def limit():
    resource.setrlimit(resource.RLIMIT_AS, (CAP, CAP))


def run(args, stdin=None, interrupt_after=None, env=ENV):
    t = time.monotonic()
    p = subprocess.Popen(
        [PY, "-m", "gpudesk", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
        preexec_fn=limit,
        cwd=WORK,
    )
    if interrupt_after:  # a path: Ctrl+C once the session row exists in that database (the write phase)
        while p.poll() is None:
            try:
                c = sqlite3.connect(f"file:{interrupt_after}?mode=ro", uri=True, timeout=0.05)
                n = c.execute("select count(*) from recording_sessions").fetchone()[0]
                c.close()
            except sqlite3.Error:
                n = 0
            if n:
                p.send_signal(signal.SIGINT)
                break
            time.sleep(0.005)
    try:
        out, _ = p.communicate(timeout=60)
        timed_out = False
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
        timed_out = True
    dt = time.monotonic() - t
    text = out.decode("utf-8", "replace")
    return {"rc": p.returncode, "s": round(dt, 1), "timeout": timed_out, "tb": "Traceback" in text, "out": text}


def summarize(r, want=None):
    last = [line for line in r["out"].strip().splitlines() if line.strip()]
    tail = last[-1][:150] if last else ""
    if r["tb"]:
        exc = [line for line in last if "Error" in line or "Exception" in line]
        tail = "TRACEBACK " + (exc[-1][:120] if exc else tail)
    if r["timeout"]:
        tail = "TIMEOUT 60 s " + tail
    hit = "" if want is None else (" [ok]" if want(r["out"]) else " [MISSING]")
    return f"rc={r['rc']} {r['s']}s{hit} | {tail}"


cases = []


def case(name):
    def deco(f):
        cases.append((name, f))
        return f

    return deco


# ---------- recording store ----------
def make_recording():
    code = r"""
import random, sys
from gpudesk.store import open_store
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core.model import Sample, SampleBatch
from gpudesk.telemetry.recording.recorder import Recorder
db = open_store(); rec = Recorder(db, flush_interval_s=1e9); sid = rec.start([], source="test"); rng = random.Random(3)
for i in range(300):
    t = 1.7e9 + i
    rec.write(SampleBatch(t, [Sample(t + g * 1e-3, g, None, {m.GPU_UTIL: rng.uniform(0, 100), m.POWER: 300.0 + g}) for g in range(4)]))
rec.stop(); db.execute("PRAGMA wal_checkpoint(TRUNCATE)"); db.close(); print(sid)
"""
    sid = subprocess.run([PY, "-c", code], env=ENV, capture_output=True, text=True, check=True).stdout.strip()
    db = WORK / "data" / "gpudesk.db"
    conn = sqlite3.connect(db)
    blob = conn.execute(
        "select v_blob from recording_chunk_values where gpu_index = 2 and metric = 'gpu_util_pct'"
    ).fetchone()[0]
    conn.close()
    data = bytearray(db.read_bytes())
    at = data.find(blob)
    mid = at + len(blob) // 2
    data[mid] ^= 0xFF
    data[mid + 1] ^= 0x5A
    db.write_bytes(bytes(data))
    os.chmod(db, 0o600)
    return sid


STATE = {}


@case("store: analyze a recording with one flipped chunk")
def _():
    STATE["sid"] = make_recording()
    return summarize(run(["monitor", "analyze", STATE["sid"]]), lambda o: "GPU 2, gpu_util_pct" in o)


@case("store: export it")
def _():
    return summarize(
        run(["monitor", "export", STATE["sid"], str(WORK / "o.csv")]), lambda o: "GPU 2, gpu_util_pct" in o
    )


@case("store: report it")
def _():
    return summarize(
        run(["monitor", "report", STATE["sid"], "--out", str(WORK / "r.html")]), lambda o: "GPU 2, gpu_util_pct" in o
    )


@case("store: store check")
def _():
    return summarize(run(["store", "check"]), lambda o: "damaged" in o and "gpu_util_pct" in o)


@case("store: store recover --to (count; mode of a 0600 store)")
def _():
    r = run(["store", "recover", "--to", str(WORK / "copy.db")])
    mode = oct((WORK / "copy.db").stat().st_mode & 0o777) if (WORK / "copy.db").exists() else "-"
    return summarize(r, lambda o: "1 unreadable rows" in o) + f" | copy mode {mode}"


# ---------- special files ----------
def special(kind):
    if kind == "/dev/zero":
        return "/dev/zero"
    p = WORK / "fifo"
    if not p.exists():
        os.mkfifo(p)
    return str(p)


for kind in ("/dev/zero", "FIFO"):
    for label, argv in (
        ("config.json", ["estimate", "memory", "--config", "{}"]),
        ("profile", ["plan", "--profile", "{}"]),
        ("dcgmi log", ["monitor", "fleet", "--dcgmi", "{}"]),
        ("dmon log", ["monitor", "analyze", "{}"]),
        ("dmon import", ["monitor", "import", "{}"]),
        ("snapshot", ["oom", "snapshot", "{}"]),
        ("OOM log", ["oom", "diagnose", "{}"]),
    ):

        def f(kind=kind, argv=argv):
            path = special(kind)
            return summarize(run([a.format(path) for a in argv]), lambda o: "device" in o or "pipe" in o)

        case(f"{kind} as {label}")(f)

# ---------- dcgmi ----------
HEADER = "#Entity   GPUTL  POWER  FBUSD\nID                W      MiB\n"


def dcgmi(name, text, want, raw=None):
    def f():
        p = WORK / name
        p.write_bytes(raw if raw is not None else text.encode())
        return summarize(run(["monitor", "fleet", "--dcgmi", str(p)]), want)

    case(f"dcgmi: {name}")(f)


dcgmi("blank 2147483648 as power", HEADER + "GPU 0  50  2147483648  1000\n", lambda o: "power N/A" in o)
dcgmi("NUL byte in a row", HEADER + "GPU 0  61 \x00  250  40000\nGPU 1 1 1 1\n", lambda o: "control character" in o)
dcgmi(
    "UTF-16 log",
    "",
    lambda o: "power 250" in o,
    raw=codecs.BOM_UTF16_LE + (HEADER + "GPU 0  61  250.5  4000\n").encode("utf-16-le"),
)
dcgmi("non-ASCII digit entity id", HEADER + "GPU ٣  61  250  4000\nGPU 1 1 1 1\n", lambda o: "0-9" in o)
dcgmi("negative readings", HEADER + "GPU 0  -5  -3  -1\n", lambda o: "power N/A" in o and "util N/A" in o)

# ---------- snapshots ----------
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "oom"))
import snapshot_builder as sb  # noqa: E402 - the tests' builder, found through the path set just above


def snap(name, raw=None, data=None, want=None):
    def f():
        p = WORK / name
        p.write_bytes(data if data is not None else pickle.dumps(raw, protocol=2))
        return summarize(run(["oom", "snapshot", str(p)]), want)

    case(f"snapshot: {name}")(f)


def deep_pickle(raw, depth):
    d = pickle.dumps(raw, protocol=2)
    ph = b"X\x08\x00\x00\x00@@DEEP@@"
    return d.replace(ph, b"(" * depth + b"]" + b"l" * depth)


r = sb.fragmentation_oom("2.5")
r["device_traces"][0][0]["frames"] = [{"filename": "@@DEEP@@", "line": 1, "name": "f"}]
snap("frame nested 100k deep", data=deep_pickle(r, 100_000), want=lambda o: "should be text" in o)
r = sb.fragmentation_oom("2.5")
r["allocator_settings"]["odd"] = "@@DEEP@@"
snap("allocator setting nested 100k deep", data=deep_pickle(r, 100_000), want=lambda o: "Traceback" not in o)
r = sb.fragmentation_oom("2.5")
r["segments"][0]["total_size"] = 1e308
snap("1e308 where an int belongs", r, want=lambda o: "total_size" in o)
r = sb.fragmentation_oom("2.5")
r["segments"][0]["segment_pool_id"] = ("a", "b")
snap("string pool id", r, want=lambda o: "segment_pool_id" in o)
ev = {"action": "alloc", "addr": 1 << 40, "size": 512, "stream": 0, "time_us": 1, "frames": []}
snap(
    "memo reuse (100 M events described)",
    {"segments": [], "device_traces": [[ev] * 50_000] * 2_000},
    want=lambda o: "by reference" in o,
)
r = sb.fragmentation_oom("2.5")
seg = r["segments"][0]
seg["blocks"][1]["address"] = seg["blocks"][0]["address"] + 512
seg["blocks"][1]["size"] = -5
snap("overlapping block with negative size", r, want=lambda o: "negative size" in o or "overlaps" in o)
(WORK / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
case("snapshot: JSON nested 100k deep")(
    lambda: summarize(run(["oom", "snapshot", str(WORK / "deep.json")]), lambda o: "nests" in o)
)

# ---------- config plausibility ----------
MIX = {
    "model_type": "mixtral",
    "hidden_size": 4096,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "intermediate_size": 14336,
    "vocab_size": 32000,
    "num_local_experts": 8,
    "num_experts_per_tok": 2,
}
for name, change, word in (
    ("MoE with 0 experts", {"num_local_experts": 0}, "num_local_experts"),
    ("experts per token > experts", {"num_experts_per_tok": 9}, "num_experts_per_tok"),
    ("kv heads > heads", {"num_key_value_heads": 64}, "num_key_value_heads"),
    ("heads not dividing hidden", {"num_attention_heads": 30, "num_key_value_heads": 10}, "divide"),
):

    def f(change=change, word=word, name=name):
        p = WORK / f"{name.replace(' ', '_')}.json"
        p.write_text(json.dumps({**MIX, **change}))
        return summarize(
            run(["estimate", "memory", "--config", str(p)]),
            lambda o: word in o and "Traceback" not in o and "GiB" not in o,
        )

    case(f"config: {name}")(f)


# ---------- standard input ----------
def endless(argv, line, want):
    def f():
        t = time.monotonic()
        p = subprocess.run(
            ["bash", "-c", f"yes '{line}' | /usr/bin/time -f 'PEAK %M KB' {PY} -m gpudesk {argv}"],
            env=ENV,
            capture_output=True,
            text=True,
            timeout=90,
            preexec_fn=limit,
        )
        out = p.stdout + p.stderr
        peak = [line for line in out.splitlines() if line.startswith("PEAK")]
        r = {
            "rc": p.returncode,
            "s": round(time.monotonic() - t, 1),
            "timeout": False,
            "tb": "Traceback" in out,
            "out": "\n".join(line for line in out.splitlines() if not line.startswith(("PEAK", "Command exited"))),
        }
        return summarize(r, want) + " | " + (peak[0] if peak else "")

    return f


case("stdin: endless dmon text to 'monitor analyze -'")(
    endless("monitor analyze -", "    0    50    10", lambda o: "256 MiB" in o)
)
case("stdin: endless dcgmi text to 'monitor fleet --dcgmi -'")(
    endless("monitor fleet --dcgmi -", "GPU 0 1 2", lambda o: "256 MiB" in o)
)


# ---------- other tracebacks ----------
def dmon_log(path, rounds):
    path.write_text(
        "# gpu    sm   mem\n# Idx     %     %\n"
        + "".join(f"    {g}    {i % 100}    5\n" for i in range(rounds) for g in range(8))
    )


@case("import: a log whose name is not UTF-8")
def _():
    p = WORK / os.fsdecode(b"run-\xff.txt")
    dmon_log(p, 5)
    return summarize(run(["monitor", "import", str(p)]), lambda o: "Imported" in o)


@case("import: Ctrl+C during import")
def _():
    p = WORK / "big.txt"
    dmon_log(p, 400_000)
    env = dict(ENV, GPUDESK_DATA_DIR=str(WORK / "ctrlc"))
    r = run(["monitor", "import", str(p)], interrupt_after=str(WORK / "ctrlc" / "gpudesk.db"), env=env)
    check = subprocess.run(
        [
            PY,
            "-c",
            "from gpudesk.store import open_store; from gpudesk.store.recordings import list_sessions; "
            "db = open_store(); print(len(list_sessions(db)), db.conn.execute('select count(*) from recording_chunks').fetchone()[0])",
        ],
        env=env,
        capture_output=True,
        text=True,
    )
    return (
        summarize(r, lambda o: "interrupted" in o)
        + f" | sessions, chunks left: {check.stdout.strip() or check.stderr.strip()[-80:]}"
    )


only = sys.argv[3:]
for name, f in cases:
    if only and not any(o in name for o in only):
        continue
    try:
        line = f()
    except Exception as exc:
        line = f"harness error {exc!r}"
    print(f"{name} :: {line}", flush=True)
