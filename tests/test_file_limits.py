"""Every input file the CLI and the window open is bounded before parsing (issue 25, "unbounded reads"):
endless and special files (``/dev/zero``, a FIFO with no writer, a folder) are refused at once with a message that
says what the path is and states the limit, and a file over a reader's limit is refused by size."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from gpudesk.cli import main
from gpudesk.errors import GpudeskError
from gpudesk.file_limits import InputFileError, display_path, format_limit, read_input
from gpudesk.oom.snapshot import load_snapshot
from gpudesk.planner.profile import load_profile
from gpudesk.sizing.shapes import spec_from_hf_config
from gpudesk.sizing.validation import load_cases
from gpudesk.telemetry.formats.dcgmi_dmon import read_dcgmi_dmon
from gpudesk.telemetry.formats.dmon import read_dmon_file
from gpudesk.telemetry.rules.thresholds import load_thresholds

READERS = {
    "config.json": spec_from_hf_config,
    "profile": load_profile,
    "dcgmi log": read_dcgmi_dmon,
    "dmon log": read_dmon_file,
    "snapshot": load_snapshot,
    "thresholds": load_thresholds,
    "validation set": load_cases,
}


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


def _special(kind: str, tmp_path: Path, fifo: Path) -> tuple[Path, str]:
    if kind == "dev-zero":
        return Path("/dev/zero"), "character device"
    if kind == "fifo":
        return fifo, "named pipe"
    return tmp_path, "folder"


@pytest.mark.parametrize("kind", ["dev-zero", "fifo", "folder"])
@pytest.mark.parametrize("reader", list(READERS))
def test_special_files_are_refused_at_once_by_every_reader(reader, kind, tmp_path, fifo):
    path, words = _special(kind, tmp_path, fifo)
    started = time.monotonic()
    with pytest.raises(GpudeskError) as info:
        READERS[reader](path)
    assert time.monotonic() - started < 2.0
    text = info.value.user_text()
    assert str(path) in text and words in text


@pytest.mark.parametrize("kind", ["dev-zero", "fifo"])
@pytest.mark.parametrize("argv", [["oom", "diagnose", "{path}"], ["monitor", "analyze", "{path}"],
                                  ["plan", "--profile", "{path}"], ["oom", "snapshot", "{path}"],
                                  ["monitor", "report", "{path}", "--plan-file", "{path}", "--out", "{out}"]])
def test_cli_refuses_special_files_with_a_message(argv, kind, tmp_path, fifo, capsys):
    path, words = _special(kind, tmp_path, fifo)
    if argv[:2] == ["monitor", "report"]:
        log = tmp_path / "log.txt"
        log.write_text("# gpu    sm   mem\n# Idx     %     %\n    0    50    10\n", encoding="utf-8")
        args = [a.format(path=log if i == 2 else path, out=tmp_path / "r.html") for i, a in enumerate(argv)]
    else:
        args = [a.format(path=path) for a in argv]
    started = time.monotonic()
    status = main(args)
    assert time.monotonic() - started < 5.0
    err = capsys.readouterr().err
    assert status != 0 and words in err and "Traceback" not in err


def test_a_file_over_the_limit_is_refused_by_size_and_the_limit_is_named(tmp_path):
    big = tmp_path / "config.json"
    with big.open("wb") as f:
        f.truncate(17 * 2**20)
    with pytest.raises(GpudeskError, match="the limit is 16 MiB"):
        spec_from_hf_config(big)
    with pytest.raises(InputFileError, match="the limit is 1 KiB"):
        read_input(big, 1024, "the test file")


def test_a_file_that_grows_while_read_is_refused(tmp_path):
    # /proc files report size 0 and then hold more: the read itself stops one byte past the limit
    with pytest.raises(InputFileError, match="grew past the limit of 16 B"):
        read_input("/proc/self/status", 16, "the test file")


def test_a_name_that_is_not_utf8_is_shown_escaped(tmp_path):
    name = os.fsdecode(b"log-\xff\xfe.txt")
    path = tmp_path / name
    path.write_bytes(b"")
    assert display_path(path).endswith("log-\\xff\\xfe.txt")
    with pytest.raises(InputFileError) as info:
        read_input(tmp_path / os.fsdecode(b"none-\xff"), 10, "the log")
    info.value.user_text().encode("utf-8")  # printable: no lone surrogate left


def test_format_limit():
    assert [format_limit(n) for n in (100, 1024, 16 * 2**20, 2 * 2**30, 20_000_000, 5_000_000, 1536 * 1024 + 1)] == [
        "100 B", "1 KiB", "16 MiB", "2 GiB", "20 MB", "5 MB", "1.5 MiB"]


class _EndlessStdin:
    """Standard input that never ends (``yes '0 50 10' | gpudesk ...``): any read gets what it asked for."""

    class _Buffer:
        def __init__(self, line: bytes):
            self.line = line
            self.served = 0

        def read(self, n: int = -1) -> bytes:
            assert n > 0, "an unbounded read of an endless stream never returns"
            self.served += n
            return (self.line * (n // len(self.line) + 1))[:n]

    def __init__(self, line: bytes):
        self.buffer = self._Buffer(line)

    def isatty(self) -> bool:
        return False

    def read(self, n: int = -1) -> str:
        return self.buffer.read(n).decode()


@pytest.mark.parametrize("argv, line, words", [
    (["monitor", "analyze", "-"], b"    0    50    10\n", "The dmon log on standard input is larger than 256 MiB"),
    (["monitor", "fleet", "--dcgmi", "-"], b"GPU 0 1 2\n", "The dcgmi dmon log on standard input is larger than 256 MiB"),
])
def test_endless_standard_input_is_refused_at_the_limit(argv, line, words, monkeypatch, capsys):
    stdin = _EndlessStdin(line)
    monkeypatch.setattr("sys.stdin", stdin)
    assert main(argv) != 0
    assert words in capsys.readouterr().err
    assert stdin.buffer.served == 256 * 2**20 + 1


@pytest.mark.parametrize("make", ["missing", "not_a_folder"])
def test_an_unreadable_path_is_explained_in_the_users_language(make, tmp_path):
    """zh_CN once printed the C library's English reason ("No such file or directory") inside a Chinese sentence."""
    from gpudesk import i18n
    from gpudesk.file_limits import InputFileError, read_input

    target = tmp_path / "missing.json"
    if make == "not_a_folder":
        (tmp_path / "plain").write_text("x")
        target = tmp_path / "plain" / "config.json"
    before = i18n.current_language()
    i18n.set_language("zh_CN")
    try:
        with pytest.raises(InputFileError) as caught:
            read_input(target, 1000, "the model config")
    finally:
        i18n.set_language(before)
    text = caught.value.user_text()
    assert "No such file" not in text and "Not a directory" not in text, text
    assert ("不存在" if make == "missing" else "不是文件夹") in text, text
