"""Build the Linux bundle, tarball and .deb with packaging/linux/build.sh, then smoke-test what was built.

Runs only with ``--run-packaging`` (several minutes: a clean venv from PyPI, PyInstaller, xz). The .deb test
installs the package on this machine with ``dpkg -i`` (needs root; missing Depends come from Debian through
``apt-get -f install``), upgrades it to a repacked newer version whose catalog differs, removes it, and checks
that user data is untouched throughout. Set ``GPUDESK_PACKAGING_REUSE=1`` to test an existing dist/ instead of
building again.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from gpudesk import __version__, selftest

pytestmark = [pytest.mark.packaging, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
DIST = REPO / "dist"
BUNDLE = DIST / "gpudesk"
TARBALL = DIST / f"gpudesk-{__version__}-linux-x86_64.tar.gz"
DEB = DIST / f"gpudesk_{__version__}_amd64.deb"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256)


def clean_env(tmp: Path, **extra: str) -> dict[str, str]:
    """The environment of a user session: no gpudesk overrides, HOME and XDG folders inside ``tmp``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUDESK_") and k != "PYTHONPATH"}
    env.update(HOME=str(tmp / "home"), XDG_DATA_HOME=str(tmp / "xdg-data"), XDG_CONFIG_HOME=str(tmp / "xdg-config"),
               QT_QPA_PLATFORM="offscreen")
    env.update(extra)
    return env


def run(cmd: list[str], env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, cwd=REPO, check=False)


def assert_self_test_passes(exe: str, env: dict[str, str], expect_root: str) -> str:
    result = run([exe, "--self-test"], env=env, timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert [line.split(":")[0].split()[-1] for line in lines[:-1]] == [name for name, _ in selftest.CHECKS]
    assert all(line.startswith("ok   ") for line in lines[:-1]), result.stdout
    assert f"frozen bundle at {expect_root}" in lines[0]
    return result.stdout


def tree_digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def built() -> Path:
    if os.environ.get("GPUDESK_PACKAGING_REUSE") == "1" and DEB.is_file() and TARBALL.is_file():
        return DIST
    env = {k: v for k, v in os.environ.items() if k != "GPUDESK_DATA_DIR"}
    result = subprocess.run(["bash", "packaging/linux/build.sh"], cwd=REPO, env=env, capture_output=True,
                            text=True, timeout=1800, check=False)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    return DIST


def test_bundle_self_test(built, tmp_path):
    out = assert_self_test_passes(str(BUNDLE / "gpudesk"), clean_env(tmp_path), str(BUNDLE / "_internal"))
    assert str(BUNDLE / "_internal" / "gpudesk" / "catalog" / "catalog.db") in out
    assert not (tmp_path / "xdg-data" / "gpudesk").exists()  # the self-test used a throw-away data folder


def test_bundle_children_get_the_users_library_path(built, tmp_path):
    """The run-time hook undoes the bootloader's LD_LIBRARY_PATH for programs the app starts."""
    exe = str(BUNDLE / "gpudesk")
    job = ["oom", "run", "--", "sh", "-c", "echo LDP=[$LD_LIBRARY_PATH]"]
    with_user_path = run([exe, *job], env=clean_env(tmp_path, LD_LIBRARY_PATH="/opt/user-lib"))
    assert "LDP=[/opt/user-lib]" in with_user_path.stdout, with_user_path.stdout + with_user_path.stderr
    without = run([exe, *job], env=clean_env(tmp_path))
    assert "LDP=[]" in without.stdout, without.stdout + without.stderr


def test_bundle_launches_a_python_job_with_the_probe(built, tmp_path):
    """`gpudesk oom run` from the bundle: the launch bootstrap (shipped as source) loads in the job."""
    python = shutil.which("python3", path="/usr/bin:/bin") or sys.executable
    result = run([str(BUNDLE / "gpudesk"), "oom", "run", "--", python, "-c", "print('job ran')"], env=clean_env(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "job ran" in result.stdout
    assert "The probe did not load" not in result.stdout + result.stderr


def test_bundle_ships_data_and_notices(built):
    internal = BUNDLE / "_internal"
    for rel in ("gpudesk/catalog/catalog.db", "resources/THIRD_PARTY_NOTICES.md", "resources/gpudesk.desktop",
                "resources/icons/gpudesk.svg", "resources/bundled-packages.txt", "LICENSE", "NOTICE"):
        assert (internal / rel).is_file(), rel
    for qm in (REPO / "resources" / "translations").glob("*.qm"):
        assert (internal / "resources" / "translations" / qm.name).is_file(), qm.name
    manifest = (internal / "resources" / "bundled-packages.txt").read_text()
    assert "PySide6_Essentials==" in manifest or "pyside6-essentials==" in manifest.lower()
    for other in ("PyQt5", "PyQt6", "PySide2"):
        assert not (internal / other).exists()


def test_depends_cover_every_library_the_bundle_needs(built):
    result = run([sys.executable, "packaging/linux/check_depends.py", str(BUNDLE)])
    assert result.returncode == 0, result.stdout + result.stderr


def test_tarball_layout(built):
    with tarfile.open(TARBALL) as tar:
        names = set(tar.getnames())
        owners = {(m.uid, m.gid) for m in tar.getmembers()}
    top = f"gpudesk-{__version__}"
    assert {f"{top}/gpudesk", f"{top}/_internal/gpudesk/catalog/catalog.db"} <= names
    assert owners == {(0, 0)}


def test_deb_metadata_and_contents(built):
    fields = run(["dpkg-deb", "-f", str(DEB), "Package", "Version", "Architecture", "Depends"]).stdout
    assert "Package: gpudesk" in fields and f"Version: {__version__}" in fields
    assert "libxcb-cursor0" in fields and "libegl1" in fields
    listing = run(["dpkg-deb", "-c", str(DEB)]).stdout
    assert "./usr/bin/gpudesk -> /opt/gpudesk/gpudesk" in listing
    assert "./usr/share/applications/gpudesk.desktop" in listing
    assert "./opt/gpudesk/_internal/gpudesk/catalog/catalog.db" in listing
    for size in ICON_SIZES:
        assert f"./usr/share/icons/hicolor/{size}x{size}/apps/gpudesk.png" in listing
    assert "root/root" in listing.splitlines()[0]


def _repack_newer(tmp_path: Path) -> tuple[Path, str]:
    """The built .deb with a higher version and a catalog whose build_date differs: a stand-in upgrade."""
    tree = tmp_path / "newer"
    assert run(["dpkg-deb", "-R", str(DEB), str(tree)]).returncode == 0
    version = f"{__version__}+upgradetest1"
    control = tree / "DEBIAN" / "control"
    control.write_text(control.read_text().replace(f"Version: {__version__}", f"Version: {version}"))
    catalog = tree / "opt" / "gpudesk" / "_internal" / "gpudesk" / "catalog" / "catalog.db"
    conn = sqlite3.connect(catalog)
    conn.execute("UPDATE meta SET value = '2099-12-31' WHERE key = 'build_date'")
    conn.commit()
    conn.close()
    deb = tmp_path / "gpudesk-newer.deb"
    assert run(["dpkg-deb", "--root-owner-group", "-Zgzip", "--build", str(tree), str(deb)]).returncode == 0
    return deb, version


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("dpkg") is None, reason="needs root and dpkg")
def test_deb_install_upgrade_remove_keeps_user_data(built, tmp_path):
    env = clean_env(tmp_path)
    user_data = tmp_path / "xdg-data" / "gpudesk"
    try:
        if run(["dpkg", "-i", str(DEB)], timeout=600).returncode != 0:
            # Depends not yet on this machine: let apt fetch them from Debian and finish the configuration.
            fix = run(["apt-get", "-f", "install", "-y", "--no-install-recommends"], timeout=900)
            assert fix.returncode == 0, fix.stdout[-3000:] + fix.stderr[-3000:]
        status = run(["dpkg-query", "-W", "-f", "${Status} ${Version}", "gpudesk"]).stdout
        assert status == f"install ok installed {__version__}"
        assert os.path.realpath("/usr/bin/gpudesk") == "/opt/gpudesk/gpudesk"
        assert_self_test_passes("/usr/bin/gpudesk", env, "/opt/gpudesk/_internal")
        if shutil.which("xvfb-run"):
            # A real X server: Qt's xcb platform plugin must load with only the packages in Depends.
            x11 = run(["xvfb-run", "-a", "/usr/bin/gpudesk", "--self-test"], env=dict(env, QT_QPA_PLATFORM="xcb"))
            assert x11.returncode == 0 and "painted on 'xcb'" in x11.stdout, x11.stdout + x11.stderr

        # First run as a user: the user database appears in the user data folder, not in /opt.
        first = run(["/usr/bin/gpudesk"], env=dict(env, GPUDESK_EXIT_AFTER_PAINT="1"), timeout=180)
        assert first.returncode == 0, first.stderr
        assert (user_data / "gpudesk.db").is_file()
        assert not list(Path("/opt/gpudesk").rglob("gpudesk.db"))
        before = tree_digest(user_data)

        newer, _version = _repack_newer(tmp_path)
        upgrade = run(["dpkg", "-i", str(newer)], timeout=600)
        assert upgrade.returncode == 0, upgrade.stdout + upgrade.stderr
        assert tree_digest(user_data) == before  # the upgrade did not touch user data
        out = assert_self_test_passes("/usr/bin/gpudesk", env, "/opt/gpudesk/_internal")
        assert "built 2099-12-31" in out  # the newer installed catalog is the one read
        again = run(["/usr/bin/gpudesk"], env=dict(env, GPUDESK_EXIT_AFTER_PAINT="1"), timeout=180)
        assert again.returncode == 0, again.stderr  # the existing user database opens with the new version
        before = tree_digest(user_data)

        removed = run(["dpkg", "-r", "gpudesk"], timeout=300)
        assert removed.returncode == 0, removed.stdout + removed.stderr
        assert not Path("/opt/gpudesk").exists() and not os.path.lexists("/usr/bin/gpudesk")
        assert not Path("/usr/share/applications/gpudesk.desktop").exists()
        assert tree_digest(user_data) == before  # uninstalling leaves user data
    finally:
        run(["dpkg", "--purge", "gpudesk"], timeout=300)
