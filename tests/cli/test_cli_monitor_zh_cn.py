"""`gpudesk --lang zh_CN monitor stream`: what the recording command says (no samples, an exit status, the session
written) reads in Chinese, with the command's own output kept verbatim (issue 31, item 3)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from gpudesk import i18n
from gpudesk.cli import main

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "monitor"


@pytest.fixture(autouse=True)
def language_restored():
    before = i18n.current_language()
    yield
    i18n.set_language(before)


def test_a_command_that_prints_no_samples_is_explained_in_chinese(capsys):
    cmd = [sys.executable, "-c", "print('ssh: Could not resolve hostname lab-node'); raise SystemExit(255)"]
    assert main(["--lang", "zh_CN", "monitor", "stream", shlex.join(cmd)]) == 2
    err = capsys.readouterr().err
    assert "该命令没有输出任何 dmon 样本，退出状态为 255。最后的输出：ssh: Could not resolve hostname lab-node" in err


def test_a_command_that_prints_nothing_gets_the_hint_in_chinese(capsys):
    assert main(["--lang", "zh_CN", "monitor", "stream", shlex.join([sys.executable, "-c", "pass"])]) == 2
    assert "该命令没有输出任何 dmon 样本。请确认该命令运行的是 'nvidia-smi dmon'。" in capsys.readouterr().err


def test_a_recorded_stream_and_its_end_read_in_chinese(tmp_path, capsys):
    script = tmp_path / "dies.py"
    script.write_text(f"print(open({str(FIX / 'sample_a_pucvmet.txt')!r}).read(), flush=True)\n"
                      "print('Connection to lab-node closed by remote host.'); raise SystemExit(255)\n")
    assert main(["--lang", "zh_CN", "monitor", "stream", shlex.join([sys.executable, str(script)])]) == 0
    captured = capsys.readouterr()
    assert "会话 1：已写入 4 个 GPU 样本。" in captured.out
    assert "注：该命令已结束，退出状态为 255：Connection to lab-node closed by remote host." in captured.err
    assert "按 Ctrl+C 停止。" in captured.err
    assert main(["--lang", "zh_CN", "monitor", "analyze", "--list"]) == 0
    listing = capsys.readouterr().out
    assert "4 块 GPU" in listing and "GPU(s)" not in listing
