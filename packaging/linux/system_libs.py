"""Check the system packages gpudesk's window needs on Debian/Ubuntu; install them as root or say how.

Usage: ``python3 packaging/linux/system_libs.py [--install] [DEPENDS_FILE]``   (standard library only: it runs
before any virtual environment exists; ``make run`` calls it through packaging/linux/quickstart.sh).

The packages are those of packaging/linux/depends.txt (the .deb's Depends: Qt's xcb and Wayland platform
libraries, libxcb-cursor0 since Qt 6.5, EGL/GL, fontconfig, D-Bus; https://doc.qt.io/qt-6/linux-requirements.html)
plus ``python3-venv`` when this Python cannot create a virtual environment (Debian splits ensurepip out).
A package counts as installed when ``dpkg-query`` reports it, or its Ubuntu 24.04 64-bit-time_t rename
(``<name>t64``), as installed.

Exit status: 0 when everything is installed (or was just installed with ``--install`` as root); 1 when packages
are missing and this process cannot install them: it prints the exact ``sudo apt-get install ...`` line;
3 on a system without dpkg (Fedora, RHEL, ...): it prints the dnf line from packaging/linux/depends-rpm.txt and
does not check (the venv route still works once those packages are there).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEPENDS = HERE / "depends.txt"
DEPENDS_RPM = HERE / "depends-rpm.txt"
# Debian/Ubuntu rename for the 64-bit time_t transition (Ubuntu 24.04: libglib2.0-0 -> libglib2.0-0t64).
T64_SUFFIX = "t64"
EXIT_MISSING = 1
EXIT_NOT_DEBIAN = 3


def read_packages(path: Path) -> list[str]:
    """Package names of a depends file: the first word of each line (version constraints dropped)."""
    names = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            names.append(line.split("|")[0].split()[0])
    return names


def installed_packages(names: list[str]) -> set[str]:
    """The subset of ``names`` (and their t64 renames) that dpkg reports as installed."""
    query = sorted(set(names) | {name + T64_SUFFIX for name in names})
    result = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${db:Status-Abbrev}\\n", *query],
                            capture_output=True, text=True, check=False)
    installed = set()
    for line in result.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[1].startswith("ii"):
            installed.add(parts[0].split(":")[0])
    return installed


def python_can_make_venv() -> bool:
    """True when this Python has ensurepip (Debian's python3 needs python3-venv for it)."""
    result = subprocess.run([sys.executable, "-c", "import ensurepip, venv"], capture_output=True, check=False)
    return result.returncode == 0


def missing_packages(depends_file: Path = DEPENDS) -> list[str]:
    """Debian packages gpudesk's window (and its venv) needs that are not installed, in depends-file order."""
    names = read_packages(depends_file)
    installed = installed_packages(names)
    missing = [name for name in names if name not in installed and name + T64_SUFFIX not in installed]
    if not python_can_make_venv():
        missing.append("python3-venv")
    return missing


def is_root() -> bool:
    return os.geteuid() == 0


def apt_command(packages: list[str]) -> list[str]:
    return ["apt-get", "install", "-y", "--no-install-recommends", *packages]


def install(packages: list[str]) -> int:
    """Install ``packages`` with apt-get (as root); returns apt-get's exit status."""
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    update = subprocess.run(["apt-get", "update", "-qq"], env=env, check=False)
    if update.returncode != 0:
        return update.returncode
    return subprocess.run(apt_command(packages), env=env, check=False).returncode


def main(argv: list[str]) -> int:
    want_install = "--install" in argv
    files = [arg for arg in argv if arg != "--install"]
    depends_file = Path(files[0]) if files else DEPENDS
    if shutil.which("dpkg-query") is None:
        rpm_packages = " ".join(read_packages(DEPENDS_RPM))
        print("gpudesk: no dpkg here, so the system libraries were not checked. On Fedora, RHEL, Rocky or Alma "
              f"install them with:\n  sudo dnf install {rpm_packages}", file=sys.stderr)
        return EXIT_NOT_DEBIAN
    missing = missing_packages(depends_file)
    if not missing:
        print(f"gpudesk: the {len(read_packages(depends_file))} system packages the window needs are installed")
        return 0
    if want_install and is_root() and shutil.which("apt-get"):
        print(f"gpudesk: installing missing system packages: {' '.join(missing)}")
        return install(missing)
    print("gpudesk: the window needs system packages that are not installed: " + " ".join(missing), file=sys.stderr)
    print("Install them, then run the same command again:", file=sys.stderr)
    print("  sudo apt-get install " + " ".join(missing), file=sys.stderr)
    return EXIT_MISSING


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
