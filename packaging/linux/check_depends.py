"""Check that every shared library the Linux bundle needs is inside it or comes from a package in depends.txt.

Usage: ``python packaging/linux/check_depends.py BUNDLE_DIR [DEPENDS_FILE]``

For each ELF file in the bundle it reads the ``NEEDED`` entries (``objdump -p``, binutils). A library is fine when
a file of that name is inside the bundle; otherwise the host's ``ldconfig -p`` and ``dpkg -S`` name the Debian
package that provides it, which must be listed in depends.txt. A library the host does not have is mapped by
Debian's shared-library package naming (``libxcb-icccm.so.4`` -> ``libxcb-icccm4``, Debian Policy 8.1) and
marked "by name". Plugins whose libraries are optional on purpose (the GTK platform theme) are skipped.
Prints one line per missing package and exits 1 when there is any; 0 otherwise.
"""

from __future__ import annotations

import functools
import re
import subprocess
import sys
from pathlib import Path

# Plugins Qt loads only when their libraries exist; a missing library just means the plugin is not used.
OPTIONAL = ("platformthemes/libqgtk3.so",)
ELF_MAGIC = b"\x7fELF"


def is_elf(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return fh.read(4) == ELF_MAGIC
    except OSError:
        return False


def needed(path: Path) -> list[str]:
    out = subprocess.run(["objdump", "-p", str(path)], capture_output=True, text=True, check=True).stdout
    return re.findall(r"^\s+NEEDED\s+(\S+)$", out, flags=re.MULTILINE)


def host_libraries() -> dict[str, str]:
    out = subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True, text=True, check=True).stdout
    libs: dict[str, str] = {}
    for line in out.splitlines():
        match = re.match(r"^\s+(\S+) \((libc6,x86-64[^)]*)\) => (\S+)$", line)
        if match:
            libs.setdefault(match.group(1), match.group(3))
    return libs


@functools.cache
def owner_package(path: str) -> str | None:
    result = subprocess.run(["dpkg", "-S", path], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        resolved = str(Path(path).resolve())
        result = subprocess.run(["dpkg", "-S", resolved], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        return None
    return result.stdout.split(":", 1)[0].strip()


def package_by_name(soname: str) -> str:
    match = re.match(r"^(lib.+?)\.so\.(\d+)", soname)
    if not match:
        return soname
    stem, major = match.groups()
    return f"{stem}-{major}".lower() if stem[-1].isdigit() else f"{stem}{major}".lower()


def read_depends(path: Path) -> set[str]:
    names = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            names.update(alt.strip().split()[0] for alt in line.split("|"))
    return names


def check(bundle: Path, depends_file: Path) -> list[str]:
    """Return one problem line per library that is neither bundled nor provided by a listed package."""
    files = [p for p in bundle.rglob("*") if p.is_file() and not p.is_symlink() and is_elf(p)]
    bundled = {p.name for p in bundle.rglob("*")}
    depends = read_depends(depends_file)
    host = host_libraries()
    problems: dict[str, list[str]] = {}
    for path in files:
        rel = path.relative_to(bundle).as_posix()
        if rel.endswith(OPTIONAL):
            continue
        for soname in needed(path):
            if soname in bundled:
                continue
            where = host.get(soname)
            package = owner_package(where) if where else None
            label = package or f"{package_by_name(soname)} (by name; not on this host)"
            if (package or package_by_name(soname)) not in depends:
                problems.setdefault(f"{soname} -> {label}", []).append(rel)
    return [f"{lib}: needed by {', '.join(sorted(users)[:3])}" for lib, users in sorted(problems.items())]


def main(argv: list[str]) -> int:
    if not argv or len(argv) > 2:
        print("usage: check_depends.py BUNDLE_DIR [DEPENDS_FILE]", file=sys.stderr)
        return 2
    bundle = Path(argv[0])
    depends_file = Path(argv[1]) if len(argv) == 2 else Path(__file__).with_name("depends.txt")
    problems = check(bundle, depends_file)
    for line in problems:
        print(f"not covered by depends.txt: {line}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
