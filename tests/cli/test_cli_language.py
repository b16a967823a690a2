"""`--lang` / GPUDESK_LANG for the CLI (gpudesk/cli/__init__.py, argparse_text.py) and the window (__main__.py)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import gpudesk.__main__ as entry
from gpudesk import i18n
from gpudesk.cli import CliError, language_option, main

REPO = Path(__file__).resolve().parents[2]
CHINESE = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(autouse=True)
def english_afterwards(monkeypatch):
    monkeypatch.delenv("GPUDESK_LANG", raising=False)
    monkeypatch.setenv("LANGUAGE", "en")
    before = i18n.current_language()
    yield
    monkeypatch.undo()  # the environment first: set_language(None) reads it
    i18n.set_language(before)


def test_help_in_chinese_with_lang(capsys):
    assert main(["--lang", "zh_CN"]) == 2  # no command: help, status 2
    out = capsys.readouterr().out
    assert out.startswith("用法：gpudesk")
    assert "为机器学习工作选型、监控和排查 GPU" in out
    assert "显示本帮助信息并退出" in out and "选项" in out
    assert "--self-test" in out and "GPUDESK_LANG" in out  # flags and variables stay English
    assert i18n._("options") == "options"  # the language is put back for the next in-process caller


def test_help_stays_english_without_lang(capsys):
    main([])
    out = capsys.readouterr().out
    assert out.startswith("usage: gpudesk") and not CHINESE.search(out)


def test_command_line_errors_in_chinese(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--lang=zh_CN", "no-such-command"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "gpudesk：错误：" in err and "无效的选项：'no-such-command'" in err


def test_own_errors_in_chinese(capsys):
    assert main(["--lang", "zh_CN", "--self-test", "catalog", "list"]) == 2
    assert capsys.readouterr().err.strip() == "gpudesk：--self-test 不接受其他参数"


def test_cli_error_framing_and_user_text(capsys, monkeypatch):
    def failing(_args):
        raise CliError("GPU H999 is not in the catalog.")

    monkeypatch.setattr("gpudesk.cli.catalog.add_parser", lambda sub: sub.add_parser("catalog").set_defaults(func=failing))
    assert main(["--lang", "zh_CN", "catalog"]) == 2
    assert capsys.readouterr().err.strip() == "gpudesk：GPU H999 is not in the catalog."


def test_gpudesk_lang_environment_chooses_chinese(capsys, monkeypatch):
    monkeypatch.setenv("GPUDESK_LANG", "zh_CN")
    i18n.set_language(None)
    main([])
    assert capsys.readouterr().out.startswith("用法：")


def test_unknown_language_is_refused_in_the_users_terms(capsys):
    assert language_option(["--lang", "fr"]) is None
    assert language_option(["--lang"]) is None
    assert language_option(["plan", "--model", "x"]) is None
    with pytest.raises(SystemExit):
        main(["--lang", "fr"])
    assert "invalid choice: 'fr'" in capsys.readouterr().err


def test_entry_point_opens_the_window_in_the_chosen_language(monkeypatch):
    opened = []
    monkeypatch.setattr("gpudesk.ui.app.run_app", lambda language=None: opened.append(language) or 0)
    assert entry.main(["--lang", "zh_CN"]) == 0
    assert entry.main(["--lang=en"]) == 0
    assert entry.main([]) == 0
    assert opened == ["zh_CN", "en", None]


def test_real_process_speaks_chinese():
    result = subprocess.run([sys.executable, "-m", "gpudesk", "--lang", "zh_CN", "--self-test", "catalog", "list"], cwd=REPO,
                            capture_output=True, text=True, timeout=60, env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
    assert result.returncode == 2
    assert result.stderr.strip() == "gpudesk：--self-test 不接受其他参数"
