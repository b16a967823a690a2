"""packaging/linux/system_libs.py: the check `make run` does before it makes a venv (which packages, what it says).

dpkg-query and apt-get are replaced by small scripts on PATH that answer like the real tools and record how they
were called; one test asks the real dpkg of this machine, where CI has installed the packages (.ci/run).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "packaging" / "linux"))

import system_libs

XCB_LIBRARIES_QT_NEEDS = {"libxcb-cursor0", "libxcb-icccm4", "libxcb-keysyms1", "libxkbcommon-x11-0"}


def fake_tools(tmp_path: Path, monkeypatch, installed: set[str]) -> Path:
    """A dpkg-query reporting ``installed`` as installed, and an apt-get that logs its arguments."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "apt-get.log"
    lines = "".join(f"{name}:amd64 ii \n" for name in sorted(installed))
    (bin_dir / "dpkg-query").write_text(f"#!/bin/sh\nprintf '{lines}'\nexit 1\n", encoding="utf-8")
    (bin_dir / "apt-get").write_text(f'#!/bin/sh\necho "$@" >> {log}\n', encoding="utf-8")
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    return log


def test_the_check_covers_the_xcb_libraries_qt_names_in_its_error():
    packages = system_libs.read_packages(system_libs.DEPENDS)
    assert set(packages) >= XCB_LIBRARIES_QT_NEEDS
    assert "libc6" in packages and not any(" " in name or "(" in name for name in packages)


def test_missing_packages_are_named_in_depends_order(tmp_path, monkeypatch):
    everything = set(system_libs.read_packages(system_libs.DEPENDS))
    fake_tools(tmp_path, monkeypatch, everything - {"libxcb-icccm4", "libxcb-keysyms1"})
    monkeypatch.setattr(system_libs, "python_can_make_venv", lambda: True)
    assert system_libs.missing_packages() == ["libxcb-icccm4", "libxcb-keysyms1"]


def test_ubuntu_t64_renames_count_as_installed(tmp_path, monkeypatch):
    everything = set(system_libs.read_packages(system_libs.DEPENDS))
    fake_tools(tmp_path, monkeypatch, (everything - {"libglib2.0-0"}) | {"libglib2.0-0t64"})
    monkeypatch.setattr(system_libs, "python_can_make_venv", lambda: True)
    assert system_libs.missing_packages() == []


def test_a_python_without_ensurepip_needs_python3_venv(tmp_path, monkeypatch):
    fake_tools(tmp_path, monkeypatch, set(system_libs.read_packages(system_libs.DEPENDS)))
    monkeypatch.setattr(system_libs, "python_can_make_venv", lambda: False)
    assert system_libs.missing_packages() == ["python3-venv"]


def test_a_user_gets_the_exact_sudo_line_and_nothing_is_installed(tmp_path, monkeypatch, capsys):
    everything = set(system_libs.read_packages(system_libs.DEPENDS))
    log = fake_tools(tmp_path, monkeypatch, everything - XCB_LIBRARIES_QT_NEEDS)
    monkeypatch.setattr(system_libs, "python_can_make_venv", lambda: True)
    monkeypatch.setattr(system_libs, "is_root", lambda: False)
    assert system_libs.main(["--install"]) == system_libs.EXIT_MISSING
    err = capsys.readouterr().err
    assert "  sudo apt-get install libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1\n" in err
    assert not log.exists()


def test_root_installs_the_missing_packages_with_apt_get(tmp_path, monkeypatch):
    everything = set(system_libs.read_packages(system_libs.DEPENDS))
    log = fake_tools(tmp_path, monkeypatch, everything - {"libxcb-cursor0"})
    monkeypatch.setattr(system_libs, "python_can_make_venv", lambda: True)
    monkeypatch.setattr(system_libs, "is_root", lambda: True)
    assert system_libs.main(["--install"]) == 0
    assert log.read_text().splitlines() == ["update -qq", "install -y --no-install-recommends libxcb-cursor0"]


def test_without_dpkg_it_prints_the_dnf_line(tmp_path, monkeypatch, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert system_libs.main([]) == system_libs.EXIT_NOT_DEBIAN
    err = capsys.readouterr().err
    assert "sudo dnf install glibc libglvnd-egl" in err and "xcb-util-cursor xcb-util-wm" in err


@pytest.mark.skipif(shutil.which("dpkg-query") is None, reason="needs a Debian/Ubuntu host")
def test_this_host_has_every_package_make_run_asks_for(capsys):
    """CI installs depends.txt (.ci/run), so `make run` would go straight on to the venv here."""
    assert system_libs.main([]) == 0, capsys.readouterr().err
