"""Keep nvitop's terminal UI running in a pseudo-terminal (60 x 200) and drain its output, in a process of its
own, so that the Monitor CPU benchmark can measure nvitop and gpudesk over the same seconds without reading
nvitop's screen itself.

Usage: ``python tests/benchmarks/nvitop_in_pty.py N_GPUS``: prints nvitop's process id on the first line, then
runs until SIGTERM; it then stops nvitop and prints ``shown`` when nvitop's screen named the fake GPUs
(``NVITOP`` and ``A100``), else the screen's last bytes.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios
from pathlib import Path

LAUNCHER = Path(__file__).with_name("nvitop_on_fake_nvml.py")


def main(n_gpus: int) -> int:
    pid, fd = pty.fork()
    if pid == 0:  # the child: nvitop in the terminal
        os.environ["TERM"] = "xterm-256color"
        os.execv(sys.executable, [sys.executable, str(LAUNCHER), str(n_gpus)])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 60, 200, 0, 0))
    print(pid, flush=True)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    screen = bytearray()
    while not stop:
        try:
            ready = select.select([fd], [], [], 0.2)[0]
        except InterruptedError:
            continue
        if ready:
            try:
                screen.extend(os.read(fd, 65536))
            except OSError:  # the terminal closed: nvitop has ended
                break
            del screen[:-262144]
    os.kill(pid, signal.SIGTERM)
    os.waitpid(pid, 0)
    os.close(fd)
    print("shown" if b"NVITOP" in screen and b"A100" in screen else bytes(screen[-2000:]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1])))
