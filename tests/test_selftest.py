"""`gpudesk --self-test`: one line per check, exit status, throw-away data folder, the first-run layout."""

from __future__ import annotations

import io
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from gpudesk import paths, selftest

REPO = Path(__file__).resolve().parents[1]


def _ok() -> str:
    return "fine"


def _broken() -> str:
    raise ValueError("catalog row 3 has no memory_bytes")


def test_one_line_per_check_and_failing_status(monkeypatch):
    monkeypatch.setattr(selftest, "CHECKS", [("first", _ok), ("second", _broken), ("third", _ok)])
    out = io.StringIO()
    status = selftest.run_selftest(out)
    lines = out.getvalue().splitlines()
    assert status == 1
    assert lines[0] == "ok   first: fine"
    assert lines[1] == "FAIL second: ValueError: catalog row 3 has no memory_bytes"
    assert lines[2] == "ok   third: fine"  # a failure does not stop the checks after it
    assert lines[3].startswith("gpudesk ") and " self-test: 2 passed, 1 failed in " in lines[3]
    assert len(lines) == 4


def test_all_passing_gives_status_zero(monkeypatch):
    monkeypatch.setattr(selftest, "CHECKS", [("only", _ok)])
    assert selftest.run_selftest(io.StringIO()) == 0


def test_uses_a_throwaway_data_folder_when_none_is_set(monkeypatch):
    monkeypatch.delenv(paths.ENV_DATA_DIR, raising=False)
    seen: list[Path] = []

    def record() -> str:
        seen.append(paths.data_dir())
        (paths.data_dir() / "gpudesk.db").write_bytes(b"x")
        return "recorded"

    monkeypatch.setattr(selftest, "CHECKS", [("record", record)])
    assert selftest.run_selftest(io.StringIO()) == 0
    assert seen and "gpudesk-selftest-" in seen[0].name
    assert not seen[0].exists()  # removed afterwards
    assert paths.ENV_DATA_DIR not in os.environ  # and the variable restored


def test_install_check_on_a_frozen_layout(tmp_path, monkeypatch):
    bundle = tmp_path / "opt" / "gpudesk" / "_internal"
    (bundle / "resources").mkdir(parents=True)
    (bundle / "resources" / "THIRD_PARTY_NOTICES.md").write_text("# notices\n", encoding="utf-8")
    (bundle / "gpudesk" / "catalog").mkdir(parents=True)
    monkeypatch.setattr(sys, "_MEIPASS", str(bundle), raising=False)
    monkeypatch.setattr(paths, "_PACKAGE_DIR", bundle / "gpudesk")
    monkeypatch.delenv("GPUDESK_CATALOG", raising=False)
    monkeypatch.setenv(paths.ENV_DATA_DIR, str(tmp_path / "home" / "data"))
    detail = selftest.check_install()
    assert detail.startswith(f"frozen bundle at {bundle}")

    monkeypatch.setenv(paths.ENV_DATA_DIR, str(bundle / "data"))  # user data inside the install: refused
    with pytest.raises(selftest.SelfTestError, match="inside the install folder"):
        selftest.check_install()


def test_install_check_needs_the_notices(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    with pytest.raises(selftest.SelfTestError, match="third-party notices missing"):
        selftest.check_install()


def test_catalog_check_reads_the_bundled_catalog():
    detail = selftest.check_catalog()
    assert "GPUs" in detail and "search 'H100' -> " in detail
    assert str(paths.catalog_path()) in detail


def test_catalog_check_fails_on_a_damaged_catalog(tmp_path, monkeypatch):
    bad = tmp_path / "catalog.db"
    conn = sqlite3.connect(bad)
    conn.execute("CREATE TABLE t (x)")  # a SQLite database, but not a catalog
    conn.commit()
    conn.close()
    monkeypatch.setenv("GPUDESK_CATALOG", str(bad))
    (result,) = selftest.run_checks([("catalog", selftest.check_catalog)])
    assert not result.ok
    assert result.line().startswith("FAIL catalog: CatalogError: ")


def test_notices_name_every_bundled_component():
    text = (REPO / "resources" / "THIRD_PARTY_NOTICES.md").read_text(encoding="utf-8")
    for needle in ("LGPL-3.0", "PySide6", "pyqtgraph", "nvidia-ml-py", "sqlite-utils", "Apache-2.0", "psutil",
                   "platformdirs", "numpy", "Epoch AI", "CC BY 4.0", "BSD-3-Clause", "MIT"):
        assert needle in text, needle


@pytest.mark.slow
def test_cli_self_test_from_source_passes():
    """The real thing against the source tree: every check, the main window offscreen."""
    env = {k: v for k, v in os.environ.items() if k != paths.ENV_DATA_DIR}
    env["QT_QPA_PLATFORM"] = "offscreen"
    result = subprocess.run([sys.executable, "-m", "gpudesk", "--self-test"], capture_output=True, text=True,
                            env=env, cwd=REPO, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    names = [line.split(":")[0].split()[-1] for line in lines[:-1]]
    assert names == [name for name, _ in selftest.CHECKS]
    assert all(line.startswith("ok   ") for line in lines[:-1])


def test_oom_check_reads_the_bundled_message():
    detail = selftest.check_oom()
    assert detail.startswith("oom-pytorch.txt: PyTorch ") and "550 MiB requested on GPU 0" in detail


def test_dmon_check_reads_the_bundled_capture():
    assert "GPUs [0, 1, 2, 3]" in selftest.check_dmon()


def _resources_copy(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "resources" / "selftest"
    folder.mkdir(parents=True)
    monkeypatch.setattr(paths, "resources_dir", lambda: tmp_path / "resources")
    return folder


@pytest.mark.parametrize("check", [selftest.check_oom, selftest.check_dmon])
def test_checks_fail_when_their_input_is_missing(tmp_path, monkeypatch, check):
    _resources_copy(tmp_path, monkeypatch)
    with pytest.raises(selftest.SelfTestError, match="bundled self-test input .* is missing"):
        check()


def test_dmon_check_notices_a_wrong_reading(tmp_path, monkeypatch):
    folder = _resources_copy(tmp_path, monkeypatch)
    text = (REPO / "resources" / "selftest" / "dmon-pucvmet.txt").read_text(encoding="utf-8")
    (folder / "dmon-pucvmet.txt").write_text(text.replace("    0   111    83", "    0   112    83"), encoding="utf-8")
    with pytest.raises(selftest.SelfTestError, match="GPU 0 power_w expected 111.0, read \\[112.0\\]"):
        selftest.check_dmon()


def test_oom_check_notices_a_wrong_reading(tmp_path, monkeypatch):
    folder = _resources_copy(tmp_path, monkeypatch)
    text = (REPO / "resources" / "selftest" / "oom-pytorch.txt").read_text(encoding="utf-8")
    (folder / "oom-pytorch.txt").write_text(text.replace("550.00 MiB", "551.00 MiB"), encoding="utf-8")
    with pytest.raises(selftest.SelfTestError, match="expected 576716800 bytes on GPU 0"):
        selftest.check_oom()


def test_plan_check_plans_the_bundled_examples():
    detail = selftest.check_plan()
    for profile in sorted(paths.examples_dir().glob("*.toml")):
        assert f"{profile.stem}: " in detail


def test_plan_check_needs_an_example(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "examples_dir", lambda: tmp_path)
    with pytest.raises(selftest.SelfTestError, match="no example profiles"):
        selftest.check_plan()


def test_install_check_refuses_a_leaked_library_path(tmp_path, monkeypatch):
    """A frozen app whose children would inherit the bundle's LD_LIBRARY_PATH (run-time hook missing)."""
    bundle = tmp_path / "bundle"
    (bundle / "resources").mkdir(parents=True)
    (bundle / "resources" / "THIRD_PARTY_NOTICES.md").write_text("# notices\n", encoding="utf-8")
    monkeypatch.setattr(sys, "_MEIPASS", str(bundle), raising=False)
    monkeypatch.setattr(paths, "_PACKAGE_DIR", bundle / "gpudesk")
    monkeypatch.setenv(paths.ENV_DATA_DIR, str(tmp_path / "data"))
    monkeypatch.setenv("LD_LIBRARY_PATH", f"/usr/local/cuda/lib64{os.pathsep}{bundle}")
    with pytest.raises(selftest.SelfTestError, match="bundle's private libraries"):
        selftest.check_install()
    monkeypatch.setenv("LD_LIBRARY_PATH", "/usr/local/cuda/lib64")
    assert "child processes get the user's library path" in selftest.check_install()


def test_oom_check_notices_a_probe_shipped_compiled_only(tmp_path, monkeypatch):
    from gpudesk.oom import probe_script

    compiled = tmp_path / "probe_script.pyc"
    compiled.write_bytes(b"\x00")
    monkeypatch.setattr(probe_script, "__file__", str(compiled))
    with pytest.raises(selftest.SelfTestError, match="gpudesk.oom.probe_script ships compiled only"):
        selftest.check_oom()


def test_window_check_names_a_tab_that_cannot_be_built(qapp, monkeypatch):
    from gpudesk.ui import main_window

    broken = [*main_window.TAB_CLASSES[:1], ("gpudesk.ui.no_such_tab", "NoSuchTab", "Broken")]
    monkeypatch.setattr(main_window, "TAB_CLASSES", broken)
    (result,) = selftest.run_checks([("window", selftest.check_window)])
    assert not result.ok
    assert "broken tabs: Broken (" in result.detail and "No module named 'gpudesk.ui.no_such_tab'" in result.detail


@pytest.mark.slow
def test_self_test_leaves_the_users_window_settings_alone(tmp_path):
    """A data folder given by GPUDESK_DATA_DIR keeps its settings.ini as it was (usertest defect 9)."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "settings.ini").write_text("[main]\ntab=1\n")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", **{paths.ENV_DATA_DIR: str(data)})
    result = subprocess.run([sys.executable, "-m", "gpudesk", "--self-test"], capture_output=True, text=True,
                            env=env, cwd=REPO, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (data / "settings.ini").read_text() == "[main]\ntab=1\n"


def test_languages_check_sees_both_catalogs_of_every_language():
    assert selftest.check_languages() == "core messages and window translation installed for zh_CN"


def test_languages_check_fails_without_the_core_catalog(monkeypatch, tmp_path):
    """The wheel that shipped without gpudesk.mo (issue 31) ran in English only and passed the self-test."""
    from gpudesk import i18n

    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path / "locale")
    with pytest.raises(selftest.SelfTestError) as raised:
        selftest.check_languages()
    assert str(tmp_path / "locale" / "zh_CN" / "LC_MESSAGES" / "gpudesk.mo") in str(raised.value)


def test_languages_check_fails_on_a_catalog_that_translates_nothing(monkeypatch, tmp_path):
    from babel.messages.catalog import Catalog
    from babel.messages.mofile import write_mo

    from gpudesk import i18n

    folder = tmp_path / "locale" / "zh_CN" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    with (folder / "gpudesk.mo").open("wb") as handle:
        write_mo(handle, Catalog(locale="zh_CN"))
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path / "locale")
    with pytest.raises(selftest.SelfTestError, match="does not translate"):
        selftest.check_languages()


def test_languages_check_fails_without_the_window_translation(monkeypatch, tmp_path):
    monkeypatch.setattr(selftest.paths, "resources_dir", lambda: tmp_path)
    with pytest.raises(selftest.SelfTestError) as raised:
        selftest.check_languages()
    assert str(tmp_path / "translations" / "gpudesk_zh_CN.qm") in str(raised.value)
