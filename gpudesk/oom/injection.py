"""Files an injected probe runs from: the probe source plus a call, and the stub the target executes.

The stub runs the probe in a fresh namespace (nothing is added to the target's ``__main__``) and catches its
own failures, because an exception escaping a pending call or remote script would surface in the target's
main thread. Paths are quoted with ``repr`` and checked to contain no quote or backslash characters.
"""

from __future__ import annotations

import os
from pathlib import Path

from gpudesk.oom import probe_script
from gpudesk.i18n import _

RESULT_NAME = "result.json"


def _safe(path: Path) -> str:
    text = str(path)
    if any(ch in text for ch in "'\"\\\n"):
        raise ValueError(_('Unsafe characters in the private folder path {text!r}.').format(text=text))
    return text


def write_probe_files(folder: Path, *, reset_peak: bool = False, owner_uid: int | None = None) -> tuple[Path, Path, str]:
    """Write ``probe.py`` (probe source + call) into ``folder``.

    Returns (probe path, result path, stub source). ``owner_uid``: hand the folder to the target's user when
    gpudesk runs elevated (root) against another user's process, so the target can read and write it.
    """
    probe = folder / "probe.py"
    result = folder / RESULT_NAME
    source = Path(probe_script.__file__).read_text(encoding="utf-8")
    source += f"\n\nrun_to_file({_safe(result)!r}, reset_peak={bool(reset_peak)!r})\n"
    fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(source)
    if owner_uid is not None and owner_uid != os.getuid():
        os.chown(folder, owner_uid, -1)
        os.chown(probe, owner_uid, -1)
    p = _safe(probe)
    stub = (
        "try:\n"
        f"    exec(compile(__import__('pathlib').Path({p!r}).read_text(), {p!r}, 'exec'), {{'__name__': '__gpudesk_probe__'}})\n"
        "except Exception as _gpudesk_exc:\n"
        "    __import__('sys').stderr.write('gpudesk probe could not run: %r\\n' % (_gpudesk_exc,))\n"
        "    del _gpudesk_exc\n"
    )
    return probe, result, stub
