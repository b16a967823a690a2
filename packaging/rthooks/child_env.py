"""PyInstaller run-time hook: give child processes the user's library search path, not the bundle's.

On Linux the bootloader prepends the bundle's private ``_internal`` folder to ``LD_LIBRARY_PATH`` (keeping the
user's value in ``LD_LIBRARY_PATH_ORIG``) and starts the app with it. The running app has already resolved its
libraries by then, but every program it starts would inherit that path: the user's training job launched by the
OOM doctor (its torch would load the bundle's libstdc++), ``nvidia-smi``, ``ssh`` for a dmon stream (the
bundle's libcrypto). PyInstaller's manual ("Launching external programs from the frozen application") asks the
app to undo it; this hook does so once, at start-up, for every child process.
"""

import os
import sys

if sys.platform.startswith("linux"):
    _orig = os.environ.pop("LD_LIBRARY_PATH_ORIG", None)
    if _orig is not None:
        os.environ["LD_LIBRARY_PATH"] = _orig
    else:
        os.environ.pop("LD_LIBRARY_PATH", None)
