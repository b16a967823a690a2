"""Apply the speedmap4 mapping decisions (tests/fixtures/speed/speedmap4_decisions.md) to the speed fixture rows.

Adds only the server-setting fields the published runs used and the rows did not carry:
``scheduler_recv_interval`` (rule a), ``prefix_caching: false`` (rule b), ``admit_interval_steps`` /
``admit_min_running`` (rule c). No other field is touched; a row that already carries a field keeps it.
Each changed line gets the new keys appended before its closing brace, so the rest of the line stays byte-identical.

Usage: python tools/speedmap4_apply.py [--apply] [--mlperf-v60 GITDIR]
Without --apply it prints the per-group decision counts (dry run).
"""
import argparse
import collections
import glob
import json
import os
import re
import subprocess

SPEED = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "speed")
V60_DEFAULT = "/work/.mirror/gbeezybez+inference_results_v6.0/repo"  # commit 232fbf90fceb1d55b633030556fb02deddb4517b

# rule b: the server command / config / log of the run, as quoted in the row's notes, turns the prefix cache off
EXPLICIT_OFF = re.compile(r"--no-enable-prefix-caching|--disable-radix-cache|enable_prefix_caching[ =:]*(False|false)")
# rule b, one group whose source states it in words (pegainfer GH200 platform table: 'prefix caching off')
WORDED_OFF_GROUPS = {("fresh30_serve_runs.jsonl", "pegainfer-gh200")}
# rule a: InferenceX DeepSeek-R1 FP8 SGLang recipes dsr1_fp8_b200.sh / dsr1_fp8_b300.sh at TP 8:
# SCHEDULER_RECV_INTERVAL=30 if CONC >= 16 else 10
RECV_GROUPS = {("fresh24_serve_runs.jsonl", "inferencex-pr3363"), ("fresh24_serve_runs.jsonl", "inferencex-pr3175")}
MLPERF_V60_SETS = ("fresh33_serve_runs.jsonl", "fresh38_serve_runs.jsonl", "fresh66_serve_runs.jsonl")


def group_of(row_id):
    return "-".join(re.split(r"[-_:/]", row_id)[:2])


class V60:
    """The v6.0 submitters' own harness yaml files (AMD harness_llm), read from the mirror."""

    def __init__(self, gitdir):
        self.gitdir = gitdir
        out = subprocess.run(["git", "ls-tree", "-r", "--name-only", "HEAD"], cwd=gitdir,
                             capture_output=True, text=True, check=True).stdout
        self.files = [p for p in out.split("\n") if p.endswith(".yaml")]

    def yaml_for(self, row):
        m = re.search(r"/(closed|open)/([^/]+)/results/", row["source_url"])
        if not m:
            return None
        div, sub = m.group(1), m.group(2)
        model = "gpt-oss-120b" if "gpt-oss" in row["id"] else "llama2-70b-99"
        scen = re.search(r"(offline|server|interactive)", row["id"]).group(1)
        name = f"{scen}_{row['gpu']}{'_mn' if row['gpus'] > 8 else ''}.yaml".lower()
        cands = [p for p in self.files if p.lower().startswith(f"{div}/{sub}/".lower())
                 and p.lower().endswith(f"/{model}/{name}") and "/configs/" not in p]
        return sorted(cands)[0] if cands else None

    def read(self, path):
        return subprocess.run(["git", "show", "HEAD:" + path], cwd=self.gitdir, capture_output=True,
                              text=True, check=True).stdout


def decide(fname, row, v60):
    """The fields to add to one row, with a short reason, per speedmap4_decisions.md."""
    add = {}
    grp = group_of(row["id"])
    text = (row.get("notes") or "") + " " + (row.get("description") or "")
    engine = row.get("engine")
    own_yaml = None
    if fname in MLPERF_V60_SETS and row["id"].startswith("mlperf-i60") and engine == "vllm" \
            and str(row.get("gpu", "")).startswith("mi"):
        own_yaml = v60.yaml_for(row)
        y = v60.read(own_yaml) if own_yaml else ""
        # rule c
        s = re.search(r"^\s*VLLM_SUBSEQUENT_DECODE_STEPS:\s*(\d+)", y, re.M)
        mm = re.search(r"^\s*VLLM_MIN_REQUEST_DECODE_STEP:\s*(\d+)", y, re.M)
        if s and int(s.group(1)) > 0 and "admit_interval_steps" not in row:
            add["admit_interval_steps"] = int(s.group(1)) + 1
            if mm and int(mm.group(1)) > 0:
                add["admit_min_running"] = int(mm.group(1))
        # rule b for these rows: only from the submitter's own yaml
        if "prefix_caching" not in row and re.search(r"^\s*enable_prefix_caching:\s*(False|false)", y, re.M):
            add["prefix_caching"] = False
        return add, own_yaml
    # rule a
    if (fname, grp) in RECV_GROUPS and engine == "sglang" and row.get("tp") == 8 \
            and "scheduler_recv_interval" not in row:
        add["scheduler_recv_interval"] = 30 if int(row["concurrency"]) >= 16 else 10
    # rule b
    if "prefix_caching" not in row and engine in ("vllm", "sglang"):
        if EXPLICIT_OFF.search(text) or ((fname, grp) in WORDED_OFF_GROUPS and re.search(r"prefix caching off", text)):
            add["prefix_caching"] = False
    return add, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--apply", action="store_true")
    ap.add_argument("--mlperf-v60", default=V60_DEFAULT)
    a = ap.parse_args()
    v60 = V60(a.mlperf_v60)
    table = collections.OrderedDict()
    for path in sorted(glob.glob(os.path.join(SPEED, "*.jsonl"))):
        fname = os.path.basename(path)
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().split("\n")
        changed = False
        for i, ln in enumerate(lines):
            if not ln.strip():
                continue
            row = json.loads(ln)
            if row.get("kind") != "serve":
                continue
            add, yml = decide(fname, row, v60)
            if not add:
                continue
            key = (fname, group_of(row["id"]), tuple(sorted((k, str(v)) for k, v in add.items())), yml)
            table[key] = table.get(key, 0) + 1
            body = ln.rstrip()
            assert body.endswith("}")
            extra = ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in add.items())
            lines[i] = body[:-1] + ", " + extra + "}"
            assert json.loads(lines[i]) == {**row, **add}
            changed = True
        if changed and a.apply:
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(lines))
    total = 0
    for (fname, grp, fields, yml), n in table.items():
        total += n
        print(f"{fname}\t{grp}\t{n}\t{dict(fields)}\t{yml or ''}")
    print("rows changed:", total)


if __name__ == "__main__":
    main()
