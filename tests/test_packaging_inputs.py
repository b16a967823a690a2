"""Quick checks of the packaging inputs (no build): icons, the .desktop entry, the NSIS script, depends.txt.

The full build and install tests are in tests/packaging/ and run only with --run-packaging.
"""

from __future__ import annotations

import configparser
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "packaging"))
sys.path.insert(0, str(REPO / "packaging" / "linux"))

import check_depends  # noqa: E402
import render_icons  # noqa: E402


def test_icons_render_at_every_size(tmp_path, qapp):
    written = render_icons.render(tmp_path)
    for size in render_icons.SIZES:
        image = QImage(str(tmp_path / "hicolor" / f"{size}x{size}" / "apps" / "gpudesk.png"))
        assert (image.width(), image.height()) == (size, size)
        centre = image.pixelColor(size // 2, size // 2)
        corner = image.pixelColor(0, 0)
        assert centre.alpha() == 255 and corner.alpha() == 0  # drawn, with transparent rounded corners
    ico = QImage(str(tmp_path / "gpudesk.ico"))
    assert ico.width() == 256
    assert (tmp_path / "hicolor" / "scalable" / "apps" / "gpudesk.svg") in written


def test_icon_render_reports_a_missing_source(tmp_path, qapp):
    with pytest.raises(RuntimeError, match="is missing"):
        render_icons.render(tmp_path, svg=tmp_path / "nope.svg")


def test_desktop_entry():
    path = REPO / "resources" / "gpudesk.desktop"
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str
    entry.read(path, encoding="utf-8")
    section = entry["Desktop Entry"]
    assert section["Type"] == "Application"
    assert section["Exec"] == "gpudesk" and section["Icon"] == "gpudesk"
    assert section["Terminal"] == "false"
    validator = shutil.which("desktop-file-validate")
    if validator:
        result = subprocess.run([validator, str(path)], capture_output=True, text=True)
        assert result.returncode == 0 and not result.stdout.strip(), result.stdout


def test_debian_package_naming_for_libraries_missing_on_the_host():
    assert check_depends.package_by_name("libxcb-icccm.so.4") == "libxcb-icccm4"
    assert check_depends.package_by_name("libgtk-3.so.0") == "libgtk-3-0"
    assert check_depends.package_by_name("libwayland-egl.so.1") == "libwayland-egl1"


def test_depends_list_parses():
    depends = check_depends.read_depends(REPO / "packaging" / "linux" / "depends.txt")
    assert {"libc6", "libegl1", "libgl1", "libxcb-cursor0", "libxkbcommon-x11-0", "libdbus-1-3"} <= depends
    assert not any(name.startswith("#") or " " in name for name in depends)


@pytest.mark.skipif(shutil.which("makensis") is None, reason="NSIS (Debian package nsis) not installed")
def test_nsis_script_compiles_against_a_stand_in_bundle(tmp_path):
    """Syntax and structure of the Windows installer script; the real build runs on a Windows runner."""
    root = tmp_path / "repo"
    (root / "packaging" / "windows").mkdir(parents=True)
    shutil.copy(REPO / "packaging" / "windows" / "gpudesk.nsi", root / "packaging" / "windows")
    shutil.copy(REPO / "LICENSE", root)
    bundle = root / "dist" / "gpudesk"
    (bundle / "_internal").mkdir(parents=True)
    (bundle / "gpudesk.exe").write_bytes(b"stand-in")
    (bundle / "gpudesk-cli.exe").write_bytes(b"stand-in")
    (bundle / "_internal" / "catalog.db").write_bytes(b"stand-in")
    result = subprocess.run(["makensis", "-V2", "-INPUTCHARSET", "UTF8", "-DVERSION=0.1.0",
                             str(root / "packaging" / "windows" / "gpudesk.nsi")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (root / "dist" / "gpudesk-0.1.0-setup.exe").stat().st_size > 10_000
