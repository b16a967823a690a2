#!/usr/bin/env bash
# Build the Linux bundle, tarball and .deb from a clean clone:   make package   (or packaging/linux/build.sh)
#
#   dist/gpudesk/                                   PyInstaller one-dir bundle (run dist/gpudesk/gpudesk)
#   dist/gpudesk-<version>-linux-x86_64.tar.gz      the bundle as a tarball (top folder gpudesk-<version>/)
#   dist/gpudesk_<version>_amd64.deb                installs to /opt/gpudesk, /usr/bin/gpudesk, menu entry, icons
#
# Needs Debian 12 (or newer) with python3 (>= 3.11, built with a shared libpython), python3-venv, binutils and
# dpkg-dev; when run as root it installs the missing Debian packages itself. Python packages come from PyPI into
# a private virtual environment build/venv that holds PySide6 as its only Qt binding.
# Options:  --clean  recreate build/venv;   --no-deb  stop after the tarball.
# Environment: PYTHON (default /usr/bin/python3), GPUDESK_SKIP_SELFTEST=1 skips the smoke test of the bundle.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
# Debian's own python3 by default: an interpreter built elsewhere (pyenv, conda) leaves its build folder as the
# RUNPATH of every bundled extension module (rpmlint: binary-or-shlib-defines-rpath).
PYTHON="${PYTHON:-$(command -v /usr/bin/python3 || command -v python3)}"
BUILD="$ROOT/build"
DIST="$ROOT/dist"
VENV="$BUILD/venv"
GENERATED="$BUILD/generated"
CLEAN=0
MAKE_DEB=1
for arg in "$@"; do
  case "$arg" in
    --clean) CLEAN=1 ;;
    --no-deb) MAKE_DEB=0 ;;
    *) echo "build.sh: unknown option $arg (known: --clean --no-deb)" >&2; exit 2 ;;
  esac
done

START=$(date +%s)
log() { printf '\n==> [%4d s] %s\n' "$(( $(date +%s) - START ))" "$*"; }

# --- Debian tools ------------------------------------------------------------------------------------
need_pkgs=()
command -v objdump >/dev/null || need_pkgs+=(binutils)
[ "$MAKE_DEB" -eq 0 ] || command -v dpkg-deb >/dev/null || need_pkgs+=(dpkg-dev)
"$PYTHON" -c 'import venv, ensurepip' 2>/dev/null || need_pkgs+=(python3-venv)
if [ ${#need_pkgs[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    log "installing Debian packages: ${need_pkgs[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}"
  else
    echo "build.sh: missing tools; install them with: sudo apt-get install ${need_pkgs[*]}" >&2
    exit 1
  fi
fi
"$PYTHON" - <<'EOF'
import sys, sysconfig
if sys.version_info < (3, 11):
    sys.exit(f"build.sh: Python >= 3.11 needed (tomllib), {sys.executable} is {sys.version.split()[0]}")
if sys.platform == "linux" and not sysconfig.get_config_var("Py_ENABLE_SHARED"):
    sys.exit(f"build.sh: {sys.executable} has no shared libpython; PyInstaller needs one (Debian's python3 has it)")
EOF

VERSION="$("$PYTHON" -c 'import ast,sys; t=ast.parse(open("gpudesk/__init__.py").read()); print(next(n.value.value for n in t.body if isinstance(n, ast.Assign) and n.targets[0].id == "__version__"))')"
ARCH="$(dpkg --print-architecture 2>/dev/null || echo amd64)"
log "gpudesk $VERSION ($ARCH)"

# --- clean build environment -------------------------------------------------------------------------
mkdir -p "$BUILD" "$DIST" "$GENERATED"
"$PYTHON" - "$GENERATED/requirements.txt" <<'EOF'
import sys, tomllib
deps = tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"]
build = [l.strip() for l in open("packaging/requirements-build.txt") if l.strip() and not l.startswith("#")]
open(sys.argv[1], "w").write("\n".join(deps + build) + "\n")
EOF
if [ "$CLEAN" -eq 1 ] || ! cmp -s "$GENERATED/requirements.txt" "$VENV/.requirements.txt" 2>/dev/null; then
  log "creating $VENV from PyPI"
  rm -rf "$VENV"
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
  "$VENV/bin/python" -m pip install --quiet -r "$GENERATED/requirements.txt"
  cp "$GENERATED/requirements.txt" "$VENV/.requirements.txt"
fi
"$VENV/bin/python" - <<'EOF'
import importlib.util, sys
other = [m for m in ("PyQt5", "PyQt6", "PySide2") if importlib.util.find_spec(m)]
if other:
    sys.exit(f"build.sh: the build venv must hold PySide6 only as Qt binding, found {other}; rerun with --clean")
if importlib.util.find_spec("gpudesk") is not None and "site-packages" in importlib.util.find_spec("gpudesk").origin:
    sys.exit("build.sh: an installed gpudesk in the build venv would shadow the source tree; rerun with --clean")
EOF
"$VENV/bin/python" -m pip freeze --exclude-editable | grep -viE '^(pyinstaller|pyinstaller-hooks-contrib|altgraph|packaging|setuptools|pip|wheel)==' \
  > "$GENERATED/bundled-packages.txt"
"$VENV/bin/python" -c 'import sys; print(f"Python=={sys.version.split()[0]}")' >> "$GENERATED/bundled-packages.txt"

# --- bundled data that is built, not checked in ------------------------------------------------------
if [ -f db/build_catalog.py ] && [ ! -f gpudesk/catalog/catalog.db ]; then
  log "building the catalog (db/build_catalog.py)"
  "$VENV/bin/python" db/build_catalog.py
fi

log "rendering icons"
QT_QPA_PLATFORM=offscreen "$VENV/bin/python" packaging/render_icons.py "$GENERATED/icons" >/dev/null

# --- the bundle --------------------------------------------------------------------------------------
log "PyInstaller one-dir bundle"
rm -rf "$DIST/gpudesk"
GPUDESK_GENERATED_DIR="$GENERATED" "$VENV/bin/python" -m PyInstaller --noconfirm --clean --log-level WARN \
  --distpath "$DIST" --workpath "$BUILD/pyinstaller" packaging/gpudesk.spec

if [ "${GPUDESK_SKIP_SELFTEST:-0}" != 1 ]; then
  log "smoke test of the bundle: dist/gpudesk/gpudesk --self-test"
  QT_QPA_PLATFORM=offscreen "$DIST/gpudesk/gpudesk" --self-test
fi

# --- tarball -----------------------------------------------------------------------------------------
TARBALL="$DIST/gpudesk-$VERSION-linux-x86_64.tar.gz"
log "tarball $TARBALL"
tar -C "$DIST" --owner=0 --group=0 --numeric-owner --transform "s,^gpudesk,gpudesk-$VERSION," \
  -czf "$TARBALL" gpudesk

# --- .deb --------------------------------------------------------------------------------------------
DEB=""
if [ "$MAKE_DEB" -eq 1 ]; then
  STAGE="$BUILD/deb/gpudesk_${VERSION}_$ARCH"
  DEB="$DIST/gpudesk_${VERSION}_$ARCH.deb"
  log "Debian package $DEB"
  "$VENV/bin/python" packaging/linux/check_depends.py "$DIST/gpudesk" packaging/linux/depends.txt
  rm -rf "$STAGE"
  mkdir -p "$STAGE/DEBIAN" "$STAGE/opt" "$STAGE/usr/bin" "$STAGE/usr/share/applications" \
           "$STAGE/usr/share/doc/gpudesk" "$STAGE/usr/share/icons"
  cp -a "$DIST/gpudesk" "$STAGE/opt/gpudesk"
  ln -s /opt/gpudesk/gpudesk "$STAGE/usr/bin/gpudesk"
  install -m 0644 resources/gpudesk.desktop "$STAGE/usr/share/applications/gpudesk.desktop"
  cp -r "$GENERATED/icons/hicolor" "$STAGE/usr/share/icons/hicolor"
  install -m 0644 LICENSE "$STAGE/usr/share/doc/gpudesk/copyright"
  install -m 0644 resources/THIRD_PARTY_NOTICES.md "$STAGE/usr/share/doc/gpudesk/THIRD_PARTY_NOTICES.md"
  chmod -R u+rwX,go+rX,go-w "$STAGE"
  INSTALLED_KB=$(du -sk --exclude=DEBIAN "$STAGE" | cut -f1)
  sed -e "s/@VERSION@/$VERSION/" -e "s/@ARCH@/$ARCH/" -e "s/@INSTALLED_SIZE@/$INSTALLED_KB/" \
      -e "s/@DEPENDS@/$(grep -v '^#' packaging/linux/depends.txt | paste -sd, - | sed 's/,/, /g')/" \
      packaging/linux/control.in > "$STAGE/DEBIAN/control"
  dpkg-deb --root-owner-group -Zxz --build "$STAGE" "$DEB" >/dev/null
fi

END=$(date +%s)
log "done in $((END - START)) s"
du -sh "$DIST/gpudesk" | sed 's/^/bundle unpacked: /'
for artifact in "$TARBALL" ${DEB:+"$DEB"}; do
  printf '%s: %.1f MB\n' "$artifact" "$(stat -c %s "$artifact" | awk '{print $1 / 1e6}')"
done
