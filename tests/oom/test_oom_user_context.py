"""What a user gives beside the text (gpudesk.oom.user_context): the host OS and other processes' memory."""

from __future__ import annotations

import pytest

from gpudesk.oom.diagnose import diagnose_text
from gpudesk.oom.errors import OomInputError
from gpudesk.oom.user_context import UserContext, detect_host_os

BARE = "RuntimeError: CUDA error: out of memory"  # microsoft/WSL#8447, cocktailpeanut/fluxgym#331 (WSL2)


def test_bare_error_under_wsl_reads_as_pinned_memory_with_its_check():
    top = diagnose_text(BARE, context=UserContext(host_os="wsl")).top
    assert top is not None and top.id == "not_capacity"
    assert top.evidence["deciding_check"] == "pin_memory"


def test_bare_error_without_os_keeps_the_jobs_own_need_first():
    top = diagnose_text(BARE).top
    assert top is not None and top.id == "genuine_shortage"


def test_wsl_words_in_the_text_set_the_os_without_input():
    text = "  File \"/mnt/c/Users/me/train.py\", line 3\n" + BARE
    assert diagnose_text(text).report.host_os == "wsl"
    top = diagnose_text(text).top
    assert top is not None and top.evidence.get("deciding_check") == "pin_memory"


def test_given_os_overrides_the_texts():
    text = "  File \"C:\\Users\\me\\train.py\", line 3\n" + BARE
    assert diagnose_text(text).report.host_os == "windows"
    assert diagnose_text(text, context=UserContext(host_os="wsl")).report.host_os == "wsl"


def test_native_windows_names_the_page_file_beside_a_runtime_shortage():
    # AUTOMATIC1111/stable-diffusion-webui#5252: the driver-API name alone, on Windows.
    causes = diagnose_text("CUDA_ERROR_OUT_OF_MEMORY", context=UserContext(host_os="windows")).causes
    ids = [(c.id, c.evidence.get("not_capacity_kind")) for c in causes]
    assert ("not_capacity", "page_file") in ids
    page = next(c for c in causes if c.evidence.get("not_capacity_kind") == "page_file")
    assert page.evidence["deciding_check"] == "host_ram" and "Commit Limit" in page.evidence["check_command"]
    assert all(c.evidence.get("not_capacity_kind") != "page_file" for c in diagnose_text("CUDA_ERROR_OUT_OF_MEMORY").causes)


def test_other_processes_given_put_them_first():
    top = diagnose_text(BARE, context=UserContext(other_processes_bytes=6 * 1024**3)).top
    assert top is not None and top.id == "other_process"
    small = diagnose_text(BARE, context=UserContext(other_processes_bytes=100 * 1024**2)).top
    assert small is not None and small.id == "genuine_shortage"


@pytest.mark.parametrize("kwargs", [{"host_os": "beos"}, {"other_processes_bytes": -1},
                                    {"device_total_bytes": 2**60}, {"other_processes_bytes": True}])
def test_bad_inputs_are_clear_errors(kwargs):
    with pytest.raises(OomInputError):
        UserContext(**kwargs)


@pytest.mark.parametrize(("text", "expected"), [
    ("5.15.90.1-microsoft-standard-WSL2", "wsl"), ("/usr/lib/wsl/lib/libcuda.so", "wsl"),
    ("OSError: [WinError 1455] The paging file is too small", "windows"),
    ("D:\\Anaconda3\\lib\\site-packages\\torch", "windows"), ("/home/user/train.py", None),
    ("Error loading \"cublas64_11.dll\"", "windows")])
def test_detect_host_os(text, expected):
    assert detect_host_os(text) == expected


def test_cli_takes_the_os_and_other_processes(tmp_path, capsys):
    from gpudesk.cli import main

    path = tmp_path / "oom.txt"
    path.write_text(BARE, encoding="utf-8")
    assert main(["oom", "diagnose", str(path), "--os", "wsl"]) == 0
    assert "pin_memory" in capsys.readouterr().out.split("\n2.")[0]
    assert main(["oom", "diagnose", str(path), "--other-processes-gib", "6"]) == 0
    assert "[other_process]" in capsys.readouterr().out.split("\n2.")[0]


PYTORCH_FIGURES = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity "
                   "of 23.65 GiB of which 1.20 GiB is free. Of the allocated memory 12.10 GiB is allocated by PyTorch, "
                   "and 0.50 GiB is reserved by PyTorch but unallocated.")


def test_a_given_figure_is_marked_given_in_the_account_not_measured():
    from gpudesk.oom.account import GIVEN, MEASURED, accounts_of

    report = diagnose_text(PYTORCH_FIGURES, context=UserContext(other_processes_bytes=9 * 1024**3)).report
    term = accounts_of(report)[0].term("other_processes")
    assert term is not None and term.status == GIVEN and term.value_bytes == 9 * 1024**3
    assert accounts_of(report)[0].term("free").status == MEASURED  # the text's own figures stay measured


def test_a_given_figure_has_no_pid_in_the_evidence():
    top = diagnose_text(BARE, context=UserContext(other_processes_bytes=6 * 1024**3)).top
    assert top is not None and "other_pids" not in top.evidence


def test_cli_prints_the_given_figure_as_given(tmp_path, capsys):
    from gpudesk.cli import main

    path = tmp_path / "oom.txt"
    path.write_text(PYTORCH_FIGURES, encoding="utf-8")
    assert main(["oom", "diagnose", str(path), "--other-processes-gib", "9"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.strip().startswith("other processes"))
    assert "[given]" in line and "[measured]" not in line


def test_a_figureless_message_asks_for_the_check_that_the_inputs_take_back():
    top = diagnose_text(BARE).top
    assert top is not None and top.evidence["deciding_check"] == "other_process"
    ask = top.more_fixes[0]
    assert "nvidia-smi --query-compute-apps" in ask and "--other-processes-gib" in ask and "--os wsl" in ask
    # given back, the answer decides: the other processes come first
    again = diagnose_text(BARE, context=UserContext(other_processes_bytes=6 * 1024**3)).top
    assert again is not None and again.id == "other_process"


def test_cli_says_where_the_os_came_from(tmp_path, capsys):
    from gpudesk.cli import main

    path = tmp_path / "oom.txt"
    path.write_text(BARE, encoding="utf-8")
    assert main(["oom", "diagnose", str(path), "--os", "wsl"]) == 0
    assert "Operating system: WSL2 (given)" in capsys.readouterr().out
    path.write_text("  File \"/mnt/c/Users/me/train.py\", line 3\n" + BARE, encoding="utf-8")
    assert main(["oom", "diagnose", str(path)]) == 0
    assert "Operating system: WSL2 (from the text)" in capsys.readouterr().out
    path.write_text(BARE, encoding="utf-8")
    assert main(["oom", "diagnose", str(path)]) == 0
    assert "Operating system:" not in capsys.readouterr().out
