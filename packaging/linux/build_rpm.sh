#!/usr/bin/env bash
# Build dist/gpudesk-<version>-1.x86_64.rpm for Fedora / RHEL / Rocky / Alma from the bundle in dist/gpudesk/
# (packaging/linux/build.sh makes it; this script runs it with --no-deb when the bundle is missing):   make rpm
#
#   /opt/gpudesk (the bundle), /usr/bin/gpudesk, the menu entry, icons 16-256 px + SVG, licence and notices.
#
# Needs rpmbuild (Debian's `rpm` package; run as root, the script installs it); rpmlint checks the result when it
# is installed. The requirements are the bundle's system libraries by soname (see packaging/linux/gpudesk.spec.in),
# so one RPM serves every RPM distribution whose glibc is at least the one the bundle was built against.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-$(command -v /usr/bin/python3 || command -v python3)}"
BUILD="$ROOT/build"
DIST="$ROOT/dist"
GENERATED="$BUILD/generated"
BUNDLE="$DIST/gpudesk"

if ! command -v rpmbuild >/dev/null; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends rpm
  else
    echo "build_rpm.sh: rpmbuild is missing; install it with: sudo apt-get install rpm" >&2
    exit 1
  fi
fi
if [ ! -x "$BUNDLE/gpudesk" ] || [ ! -d "$GENERATED/icons/hicolor" ]; then
  bash packaging/linux/build.sh --no-deb
fi

VERSION="$("$PYTHON" -c 'import ast; t=ast.parse(open("gpudesk/__init__.py").read()); print(next(n.value.value for n in t.body if isinstance(n, ast.Assign) and n.targets[0].id == "__version__"))')"
WORK="$BUILD/rpm"
STAGE="$WORK/stage"
rm -rf "$WORK"
mkdir -p "$STAGE/opt" "$STAGE/usr/bin" "$STAGE/usr/share/applications" "$STAGE/usr/share/doc/gpudesk" \
         "$STAGE/usr/share/licenses/gpudesk" "$STAGE/usr/share/icons" "$WORK/top"
cp -a "$BUNDLE" "$STAGE/opt/gpudesk"
ln -s ../../opt/gpudesk/gpudesk "$STAGE/usr/bin/gpudesk"
install -m 0644 resources/gpudesk.desktop "$STAGE/usr/share/applications/gpudesk.desktop"
cp -r "$GENERATED/icons/hicolor" "$STAGE/usr/share/icons/hicolor"
install -m 0644 LICENSE "$STAGE/usr/share/licenses/gpudesk/LICENSE"
install -m 0644 resources/THIRD_PARTY_NOTICES.md "$STAGE/usr/share/doc/gpudesk/THIRD_PARTY_NOTICES.md"
chmod -R u+rwX,go+rX,go-w "$STAGE"
# Identical files in the bundle (Qt's English translations, wheel metadata, pyqtgraph's icons) become hard links,
# as Fedora's %fdupes does (rpmlint: files-duplicated-waste). util-linux's hardlink; skipped where it is missing.
if command -v hardlink >/dev/null; then
  hardlink --quiet "$STAGE/opt/gpudesk"
fi

# The spec, with the bundle's own shared objects as one regular expression for __requires_exclude (each "."
# and "+" escaped with the double backslash an RPM macro needs).
"$PYTHON" - "$STAGE/opt/gpudesk" "$VERSION" packaging/linux/gpudesk.spec.in "$WORK/gpudesk.spec" <<'PYEOF'
import re, sys, time
from pathlib import Path
bundle, version, template, out = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4])
sonames = sorted({p.name for p in bundle.rglob("*") if re.search(r"\.so(\.|$)", p.name)})
pattern = "|".join(re.sub(r"([.+])", r"\\\\\1", name) for name in sonames)
text = template.read_text(encoding="utf-8")
text = text.replace("@VERSION@", version).replace("@BUNDLED_SONAMES@", pattern)
text = text.replace("@CHANGELOG_DATE@", time.strftime("%a %b %d %Y", time.gmtime()))
out.write_text(text, encoding="utf-8")
PYEOF

rpmbuild -bb --quiet --target x86_64 --define "_topdir $WORK/top" --define "gpudesk_stage $STAGE" \
  --define "_rpmfilename %%{NAME}-%%{VERSION}-%%{RELEASE}.%%{ARCH}.rpm" "$WORK/gpudesk.spec"
RPM="$DIST/gpudesk-$VERSION-1.x86_64.rpm"
cp "$WORK/top/RPMS/gpudesk-$VERSION-1.x86_64.rpm" "$RPM"
printf '%s: %.1f MB\n' "$RPM" "$(stat -c %s "$RPM" | awk '{print $1 / 1e6}')"
if command -v rpmlint >/dev/null; then
  rpmlint --rpmlintrc packaging/linux/gpudesk.rpmlintrc "$RPM"
fi
