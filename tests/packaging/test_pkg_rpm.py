"""Build the RPM with packaging/linux/build_rpm.sh, then check it with rpm, rpmlint and an install.

Runs only with ``--run-packaging``. It reuses dist/gpudesk/ when ``GPUDESK_PACKAGING_REUSE=1`` and the bundle is
there (build_rpm.sh builds it otherwise). Debian's rpm cannot resolve Fedora dependencies, so the install test
puts the package into a private RPM root (``rpm --root``, ``--nodeps``) and runs the installed bundle from there:
its self-test, then ``rpm -e``. The requirements are checked against this host: every system library the RPM asks
for (by soname) is one that a package of depends.txt (the .deb's Depends) provides here.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gpudesk import __version__, selftest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "packaging" / "linux"))

import check_depends

pytestmark = [pytest.mark.packaging, pytest.mark.slow,
              pytest.mark.skipif(shutil.which("rpmbuild") is None, reason="needs rpmbuild (Debian: apt-get install rpm)")]

DIST = REPO / "dist"
RPM = DIST / f"gpudesk-{__version__}-1.x86_64.rpm"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256)


def run(cmd: list[str], timeout: float = 600, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=REPO, check=False, **kwargs)


@pytest.fixture(scope="module")
def built() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "GPUDESK_DATA_DIR"}
    if os.environ.get("GPUDESK_PACKAGING_REUSE") != "1":
        shutil.rmtree(DIST / "gpudesk", ignore_errors=True)
    result = run(["bash", "packaging/linux/build_rpm.sh"], timeout=1800, env=env)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert RPM.is_file()
    return {"stdout": result.stdout, "stderr": result.stderr}


def query(*args: str) -> list[str]:
    result = run(["rpm", "-qp", *args, str(RPM)])
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_the_rpm_holds_the_bundle_command_menu_entry_and_icons(built):
    files = set(query("--list"))
    for path in ("/opt/gpudesk/gpudesk", "/opt/gpudesk/_internal/gpudesk/catalog/catalog.db",
                 "/opt/gpudesk/_internal/resources/THIRD_PARTY_NOTICES.md", "/usr/bin/gpudesk",
                 "/usr/share/applications/gpudesk.desktop", "/usr/share/licenses/gpudesk/LICENSE",
                 "/usr/share/icons/hicolor/scalable/apps/gpudesk.svg"):
        assert path in files, path
    for size in ICON_SIZES:
        assert f"/usr/share/icons/hicolor/{size}x{size}/apps/gpudesk.png" in files
    assert query("--queryformat", "%{NAME} %{VERSION} %{ARCH}\\n") == [f"gpudesk {__version__} x86_64"]


def elf_needed(path: Path) -> list[str]:
    out = run(["objdump", "-p", str(path)]).stdout
    return re.findall(r"^\s+NEEDED\s+(\S+)$", out, flags=re.MULTILINE)


def test_the_rpm_requires_what_the_bundle_does_not_carry_and_provides_none_of_it(built):
    requires = query("--requires")
    required = {re.sub(r"\(.*$", "", r) for r in requires if ".so" in r and not r.startswith("rpmlib(")}
    bundle = DIST / "gpudesk"
    bundled = {p.name for p in bundle.rglob("*.so*")}
    assert not required & bundled, sorted(required & bundled)[:5]
    assert any(r.startswith("libc.so.6(GLIBC_2.") for r in requires)
    assert not [p for p in query("--provides") if ".so" in p]
    # Qt's xcb platform (the window on X11) gets every library it loads from the bundle or from a requirement.
    xcb = [bundle / "_internal/PySide6/Qt/plugins/platforms/libqxcb.so", bundle / "_internal/libQt6XcbQpa.so.6"]
    uncovered = {lib for path in xcb for lib in elf_needed(path) if lib not in bundled and lib not in required}
    assert uncovered == set()
    assert "libqgtk3" not in " ".join(requires) and "libgtk-3.so.0()(64bit)" not in requires  # optional theme


def test_every_required_library_comes_from_a_package_the_deb_depends_on(built):
    depends = {line.split()[0] for line in (REPO / "packaging/linux/depends.txt").read_text().splitlines()
               if line.strip() and not line.startswith("#")}
    ldconfig = run(["/sbin/ldconfig", "-p"]).stdout
    owners = {}
    for requirement in query("--requires"):
        match = re.match(r"^(lib[^(]+\.so[.\d]*)\(", requirement)
        if not match:
            continue
        path = re.search(rf"^\s+{re.escape(match.group(1))} \(libc6,x86-64[^)]*\) => (\S+)$", ldconfig, re.MULTILINE)
        assert path, f"{match.group(1)} is not on this host"
        owners[match.group(1)] = check_depends.owner_package(path.group(1))
    assert {lib: pkg for lib, pkg in owners.items() if pkg not in depends} == {}


def test_rpmlint_finds_no_errors(built):
    if shutil.which("rpmlint") is None:
        pytest.skip("needs rpmlint (Debian: apt-get install rpmlint)")
    result = run(["rpmlint", "--rpmlintrc", "packaging/linux/gpudesk.rpmlintrc", str(RPM)])
    assert re.search(r"\b0 errors\b", result.stdout), result.stdout[-4000:]


def test_installed_into_an_rpm_root_it_self_tests_and_uninstalls(built, tmp_path):
    root = tmp_path / "root"
    assert run(["rpm", "--root", str(root), "--initdb"]).returncode == 0
    install = run(["rpm", "--root", str(root), "-i", "--nodeps", "--noscripts", str(RPM)])
    assert install.returncode == 0, install.stderr
    exe = root / "opt" / "gpudesk" / "gpudesk"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUDESK_")}
    env.update(HOME=str(tmp_path / "home"), XDG_DATA_HOME=str(tmp_path / "xdg"), QT_QPA_PLATFORM="offscreen")
    result = run([str(exe), "--self-test"], timeout=300, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"self-test: {len(selftest.CHECKS)} passed, 0 failed" in result.stdout
    assert f"frozen bundle at {root / 'opt' / 'gpudesk' / '_internal'}" in result.stdout
    assert os.readlink(root / "usr" / "bin" / "gpudesk") == "../../opt/gpudesk/gpudesk"
    assert run(["rpm", "--root", str(root), "-e", "--noscripts", "gpudesk"]).returncode == 0
    assert not (root / "opt" / "gpudesk").exists()
