"""A private Xvfb X server for tests that open a real xcb window, and X screenshots read back as images.

Needs Debian's ``xvfb`` (the server), ``x11-utils`` (``xwininfo``) and ``x11-apps`` (``xwd``); .ci/run installs
them. ``Xvfb -displayfd`` picks a free display number and writes it to the given file descriptor.
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

TOOLS = ("Xvfb", "xwininfo", "xwd")
SCREEN = "1600x1000x24"


def missing_tools() -> list[str]:
    return [tool for tool in TOOLS if shutil.which(tool) is None]


@dataclass
class Xvfb:
    process: subprocess.Popen[bytes]
    display: str

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)


def start_xvfb(timeout_s: float = 20.0) -> Xvfb:
    read_fd, write_fd = os.pipe()
    process = subprocess.Popen(["Xvfb", "-displayfd", str(write_fd), "-screen", "0", SCREEN, "-nolisten", "tcp"],
                               pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_fd)
    deadline = time.monotonic() + timeout_s
    number = b""
    with os.fdopen(read_fd, "rb", buffering=0) as pipe:
        while not number.endswith(b"\n") and time.monotonic() < deadline:
            chunk = pipe.read(1)
            if not chunk:
                break
            number += chunk
    if not number.strip().isdigit():
        process.kill()
        raise RuntimeError(f"Xvfb did not report a display number (got {number!r})")
    return Xvfb(process, f":{int(number)}")


def top_level_windows(display: str) -> list[tuple[str, str, int, int]]:
    """(window id, title, width, height) of the root window's named children (``xwininfo -root -tree``)."""
    out = subprocess.run(["xwininfo", "-root", "-tree", "-display", display], capture_output=True, text=True,
                         check=True, timeout=20).stdout
    found = []
    for match in re.finditer(r'^\s+(0x[0-9a-f]+) "([^"\n]*)": \([^)]*\)\s+(\d+)x(\d+)\+', out, flags=re.MULTILINE):
        found.append((match.group(1), match.group(2), int(match.group(3)), int(match.group(4))))
    return found


def is_viewable(display: str, window_id: str) -> bool:
    out = subprocess.run(["xwininfo", "-id", window_id, "-display", display], capture_output=True, text=True,
                         check=False, timeout=20).stdout
    return "Map State: IsViewable" in out


def screenshot(display: str, path: Path) -> np.ndarray:
    """Grab the whole screen with ``xwd -root`` into ``path`` and return it as an (height, width, 3) RGB array.

    XWD layout (X11 XWDFile.h): a header of 25 big-endian CARD32 values whose first is the header size, then the
    window name, then ``ncolors`` 12-byte colour entries, then the pixels as ZPixmap rows of
    ``bytes_per_line``, each pixel split into red, green and blue by the masks given in the header.
    """
    subprocess.run(["xwd", "-root", "-silent", "-display", display, "-out", str(path)], check=True, timeout=30)
    data = path.read_bytes()
    header = struct.unpack(">25I", data[:100])
    header_size, depth, width, height, byte_order = header[0], header[3], header[4], header[5], header[7]
    bits_per_pixel, bytes_per_line = header[11], header[12]
    red_mask, green_mask, blue_mask, ncolors = header[14], header[15], header[16], header[19]
    # Xvfb's depth-24 screen comes as packed 24-bit pixels in rows padded to bytes_per_line.
    bytes_per_pixel = bits_per_pixel // 8
    if depth != 24 or bytes_per_pixel not in (3, 4) or bytes_per_line < width * bytes_per_pixel:
        raise RuntimeError(f"xwd wrote depth {depth} with {bytes_per_pixel} bytes per pixel; expected depth 24")
    offset = header_size + 12 * ncolors
    rows = np.frombuffer(data, dtype=np.uint8, count=bytes_per_line * height, offset=offset)
    raw = rows.reshape(height, bytes_per_line)[:, : width * bytes_per_pixel].reshape(height, width, bytes_per_pixel)
    if byte_order == 1:  # MSBFirst
        raw = raw[:, :, ::-1]
    weights = (1 << (8 * np.arange(bytes_per_pixel, dtype=np.uint32))).astype(np.uint32)
    pixels = (raw.astype(np.uint32) * weights).sum(axis=2, dtype=np.uint32)

    def channel(mask: int) -> np.ndarray:
        shift = (mask & -mask).bit_length() - 1
        return ((pixels & mask) >> shift).astype(np.uint8)

    return np.dstack([channel(red_mask), channel(green_mask), channel(blue_mask)])
