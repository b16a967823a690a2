"""Shared helpers for the OOM doctor tests: the public cases, torch detection, and target processes.

A plain module (not conftest.py): other test folders import the root conftest by name, and a second
conftest module here would shadow it. Test modules import what they need, the ``spawn`` fixture included.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "oom"
REPO = Path(__file__).resolve().parents[2]
HAS_TORCH = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="torch is not importable here")


def cuda_ready() -> str | None:
    """Why the real-GPU tests cannot run here, or None when NVML finds a GPU and torch has CUDA."""
    from gpudesk.nvml.nvml_session import probe_nvml  # imported only by the GPU test modules that ask

    if not probe_nvml().available:
        return "no NVIDIA GPU / NVML here"
    if not HAS_TORCH:
        return "torch is not importable here"
    out = subprocess.run([sys.executable, "-c", "import torch; print(torch.cuda.is_available())"],
                         check=False, capture_output=True, text=True, timeout=120)
    return None if out.stdout.strip() == "True" else "torch has no CUDA here"


@pytest.fixture(scope="module")
def need_cuda() -> None:
    """Skips the whole module without a GPU and CUDA torch (import it and name it in ``pytest.mark.usefixtures``)."""
    why = cuda_ready()
    if why:
        pytest.skip(why)


def load_cases() -> list[dict]:
    with open(FIXTURES / "cases.jsonl", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def fixture_text(name: str) -> str:
    return (FIXTURES / "formats" / name).read_text(encoding="utf-8")


class Target:
    """A Python child process running ``code``; waits until it prints READY. Killed at teardown."""

    def __init__(self, code: str, env: dict | None = None, ready_timeout_s: float = 60.0):
        full_env = dict(os.environ)
        full_env["PYTHONPATH"] = str(REPO) + os.pathsep + full_env.get("PYTHONPATH", "")
        full_env.update(env or {})
        self.proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env=full_env, text=True)
        deadline = time.monotonic() + ready_timeout_s
        line = self.proc.stdout.readline()
        if "READY" not in line:
            self.proc.kill()
            raise RuntimeError(f"target did not start: {line!r} {self.proc.stderr.read()!r}")
        if time.monotonic() > deadline:
            raise RuntimeError("target too slow to start")

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()


@pytest.fixture
def spawn():
    targets: list[Target] = []

    def make(code: str, env: dict | None = None) -> Target:
        t = Target(code, env)
        targets.append(t)
        return t

    yield make
    for t in targets:
        t.close()
