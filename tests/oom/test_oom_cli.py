"""``gpudesk oom diagnose|probe|methods|run``."""

from __future__ import annotations

import io
import json
import sys

import pytest
from oom_support import FIXTURES, load_cases, spawn  # noqa: F401  (spawn is a fixture)

from gpudesk.cli import CliError, main
from gpudesk.cli.oom import _confirm

CASES = load_cases()


@pytest.fixture
def case_file(tmp_path):
    def make(n: int):
        p = tmp_path / f"case{n}.txt"
        p.write_text(CASES[n - 1]["message"], encoding="utf-8")
        return str(p)
    return make


def test_diagnose_json_shape(case_file, capsys):
    assert main(["oom", "diagnose", case_file(10), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["framework"] == "pytorch"
    assert doc["parsed"]["requested_bytes"] == round(14.06 * 1024**3)
    assert all(k.endswith(("_bytes", "_count", "_index", "_ratio", "_class", "rank")) or k == "rank"
               for k in doc["parsed"])
    first = doc["causes"][0]
    assert first["id"] == "fragmentation"
    assert {"id", "confidence", "evidence", "fix"} <= set(first)
    assert [c["confidence"] for c in doc["causes"]] == sorted((c["confidence"] for c in doc["causes"]), reverse=True)


def test_diagnose_text_output_and_save(case_file, capsys):
    assert main(["oom", "diagnose", case_file(6), "--save"]) == 0
    out = capsys.readouterr().out
    assert "1. Other processes use this GPU [other_process]" in out
    assert "torch.cuda.set_device(local_rank)" in out
    from gpudesk.store import open_store
    from gpudesk.store.diagnoses import list_diagnoses

    rows = list_diagnoses(open_store())
    assert rows[0].top_cause_id == "other_process" and rows[0].target.endswith("case6.txt")


def test_diagnose_stdin(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(CASES[25]["message"].encode())))
    assert main(["oom", "diagnose", "-", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["causes"][0]["id"] == "kv_cache_budget"


@pytest.mark.parametrize("content, message", [(b"", "empty"), (b"\x00\x01\x02binary", "binary")])
def test_diagnose_bad_files(tmp_path, capsys, content, message):
    p = tmp_path / "in.txt"
    p.write_bytes(content)
    assert main(["oom", "diagnose", str(p)]) == 2
    assert message in capsys.readouterr().err


def test_diagnose_missing_file_and_folder(tmp_path, capsys):
    assert main(["oom", "diagnose", str(tmp_path / "nope.txt")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["oom", "diagnose", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err


def test_diagnose_every_format_fixture(capsys):
    for path in sorted((FIXTURES / "formats").glob("*.txt")):
        assert main(["oom", "diagnose", str(path), "--json"]) == 0, path
        doc = json.loads(capsys.readouterr().out)
        assert doc["kind"] != "unknown", path


def test_probe_and_methods_missing_pid(capsys):
    assert main(["oom", "probe", str(2**22 + 3)]) == 1
    assert "No process" in capsys.readouterr().err
    assert main(["oom", "methods", str(2**22 + 3)]) == 1


def test_methods_lists_reasons(spawn, capsys):
    t = spawn("print('READY', flush=True)\nimport time\ntime.sleep(30)")
    assert main(["oom", "methods", str(t.pid), "--json"]) == 0
    doc = {m["name"]: m for m in json.loads(capsys.readouterr().out)}
    assert doc["agent"]["usable"] is False and "no gpudesk agent" in doc["agent"]["reason"]
    assert "3.14" in doc["remote_exec"]["reason"]
    assert main(["oom", "probe", str(t.pid), "--method", "agent"]) == 1
    assert "agent cannot be used" in capsys.readouterr().err


def test_probe_with_agent_json(spawn, capsys):
    t = spawn("import time, gpudesk.oom.agent as a\na.install()\nprint('READY', flush=True)\n"
              "while True:\n    time.sleep(0.01)\n")
    assert main(["oom", "probe", str(t.pid), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["report"]["torch_imported"] is False
    assert doc["report"]["status"].startswith("torch not imported")


def test_confirm_before_injecting(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    with pytest.raises(CliError, match="--yes"):
        _confirm(1, "gdb", "risky", assume_yes=False)
    _confirm(1, "gdb", "risky", assume_yes=True)
    _confirm(1, "agent", None, assume_yes=False)


def test_run(tmp_path, capsys):
    script = tmp_path / "job.py"
    script.write_text(f"import sys\nprint('hello')\nsys.stderr.write({CASES[1]['message']!r})\nsys.exit(3)\n")
    assert main(["oom", "run", "--interval", "0.1", "--json", "--", sys.executable, str(script)]) == 3
    captured = capsys.readouterr()
    assert json.loads(captured.out)["causes"][0]["id"] == "genuine_shortage"
    assert "hello" in captured.err


def test_run_without_command(capsys):
    assert main(["oom", "run"]) == 2
    assert "no command given" in capsys.readouterr().err
    assert main(["oom", "run", "--", "gpudesk-no-such-cmd"]) == 127


def test_diagnose_too_large_file(tmp_path, capsys):
    p = tmp_path / "huge.log"
    p.write_bytes(b"step ok\n" * 700_000)
    assert main(["oom", "diagnose", str(p)]) == 2
    assert "tail -n 2000" in capsys.readouterr().err


def test_print_diagnosis_without_allocator_figures():
    from gpudesk.cli.oom import print_diagnosis
    from gpudesk.oom import diagnose
    from gpudesk.oom.probe_result import report_from_probe

    report = report_from_probe({"probe_version": 1, "torch_imported": True, "cuda_initialized": False,
                                "status": "CUDA not initialised in this process", "probe_duration_s": 0.00012,
                                "devices": []})
    out = io.StringIO()
    print_diagnosis(diagnose(report), out)
    text = out.getvalue()
    assert "Status: CUDA not initialised" in text and "Nothing to diagnose yet" in text
    assert "0.12 ms" in text


def test_probe_text_output_names_the_process_and_its_host_memory(spawn, capsys):
    # QA: a probed process without torch printed "message: probe" and nothing about the process itself.
    t = spawn("import time, gpudesk.oom.agent as a\nb = bytearray(64 * 1024 * 1024)\na.install()\n"
              "print('READY', flush=True)\nwhile True:\n    time.sleep(0.01)\n")
    assert main(["oom", "probe", str(t.pid)]) == 0
    out = capsys.readouterr().out
    assert "source: probe" in out and "message: probe" not in out
    line = next(row for row in out.splitlines() if row.startswith(f"Process {t.pid}: "))
    assert "torch not imported" in line and "host memory (RSS)" in line and "MiB" in line


def test_print_diagnosis_without_any_gpu_figures_does_not_call_them_normal():
    # QA: `oom run -- sh -c ...` (probe not loaded, no NVML) printed "the figures look normal" with no figures.
    from gpudesk.cli.oom import print_diagnosis
    from gpudesk.oom import MemoryReport, diagnose

    out = io.StringIO()
    print_diagnosis(diagnose(MemoryReport(source="launch", pid=4242)), out)
    text = out.getvalue()
    assert "look normal" not in text and "no GPU memory figures were collected" in text


@pytest.mark.parametrize("argv", [["run", "--interval", "0", "--", "true"], ["run", "--interval", "-1", "--", "true"],
                                  ["run", "--interval", "nan", "--", "true"], ["probe", "--timeout", "-1", "1"]])
def test_bad_interval_or_timeout_is_a_usage_error(argv, capsys):
    # QA: --interval 0 exited 127 (the "command not found" status) through LaunchError.
    with pytest.raises(SystemExit) as info:
        main(["oom", *argv])
    assert info.value.code == 2
    assert "positive number of seconds" in capsys.readouterr().err


def _engine_case(url_tail: str) -> str:
    for line in (FIXTURES / "engine_cases.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        if case["url"].endswith(url_tail):
            return case["message"]
    raise KeyError(url_tail)


def test_diagnose_names_engine_platform_and_prints_the_account(tmp_path, capsys):
    p = tmp_path / "mps.txt"
    p.write_text(_engine_case("pytorch/issues/96814"), encoding="utf-8")
    assert main(["oom", "diagnose", str(p)]) == 0
    out = capsys.readouterr().out
    assert "Platform: Apple MPS" in out
    assert "Memory account of GPU 0: MPS high-watermark limit 32.00 GiB (measured)" in out
    p.write_text(_engine_case("vllm/issues/34076"), encoding="utf-8")
    assert main(["oom", "diagnose", str(p), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["engine"] == "vllm" and data["causes"][0]["id"] == "kv_cache_budget"
    assert "--max-model-len 34736" in data["causes"][0]["fix"]


def test_engine_log_without_oom_exits_1_and_says_what_it_recognised(tmp_path, capsys):
    p = tmp_path / "log.txt"
    p.write_text("INFO 04-24 16:33:13 [kv_cache_utils.py:634] GPU KV cache size: 158,656 tokens\n"
                 "INFO vllm serving on http://0.0.0.0:8000\n", encoding="utf-8")
    assert main(["oom", "diagnose", str(p)]) == 1
    out = capsys.readouterr().out
    assert "No out-of-memory message found" in out and "Recognised: vLLM" in out
