#!/bin/sh
# The README's first command (`make run`, or `sh packaging/linux/quickstart.sh` where make is missing):
#   1. checks the Debian/Ubuntu packages the window needs (packaging/linux/system_libs.py); as root it installs the
#      missing ones, otherwise it prints the exact `sudo apt-get install ...` line and stops;
#   2. creates the virtual environment $VENV (default .venv) with gpudesk and its runtime dependencies only
#      (no test extra, no PyTorch), again only when pyproject.toml or setup.py changed;
#   3. opens the window (arguments are passed to gpudesk, e.g. `--self-test`).
# Environment: PYTHON (default python3), VENV (default .venv), GPUDESK_SKIP_SYSTEM_CHECK=1 skips step 1.
set -eu
cd "$(dirname "$0")/../.."
PYTHON="${PYTHON:-python3}"
VENV="${VENV:-.venv}"
STAMP="$VENV/.installed-runtime"
TEST_STAMP="$VENV/.installed"  # written by `make test`: the same install plus the test extra

if [ "${GPUDESK_SKIP_SYSTEM_CHECK:-0}" != 1 ]; then
  status=0
  "$PYTHON" packaging/linux/system_libs.py --install || status=$?
  # 3 = no dpkg (Fedora/RHEL): the dnf line was printed; go on, the window will say what is missing.
  if [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; then
    exit "$status"
  fi
fi

fresh() { [ -f "$1" ] && [ "$1" -nt pyproject.toml ] && [ "$1" -nt setup.py ]; }
if ! fresh "$STAMP" && ! fresh "$TEST_STAMP"; then
  echo "gpudesk: installing gpudesk and its runtime dependencies into $VENV"
  log="$VENV/pip-install.log"
  "$PYTHON" -m venv "$VENV"
  if ! { "$VENV/bin/python" -m pip install --upgrade pip && "$VENV/bin/python" -m pip install -e .; } >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "gpudesk: installing into $VENV failed; the whole pip output is in $log" >&2
    exit 1
  fi
  touch "$STAMP"
fi
exec "$VENV/bin/gpudesk" "$@"
