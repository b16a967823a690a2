"""nvidia-ml-py's API changes across releases (calls renamed, GPM and process-utilization structures added), so it
is pinned to the tested range in pyproject.toml (issue 31). Here the installed release is checked against that pin,
and every pynvml name gpudesk reaches directly (``nv.nvmlX``, ``nvml.c_nvmlX_t``, ``nv.NVML_X``) must exist in it;
names read through ``getattr(nv, name, default)`` are optional by construction and not listed.
"""

from __future__ import annotations

import importlib.metadata
import json
import re
import subprocess
import sys
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 only
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
# a module of pynvml's API bound to a short name in gpudesk (nv, nvml, pynvml), then one of its public names
DIRECT_USE = re.compile(r"\b(?:nv|nvml|pynvml)\.((?:nvml|c_nvml|NVML)[A-Za-z0-9_]*)\b")


def _absent_from_installed_pynvml(names: list[str]) -> list[str]:
    """The names the installed pynvml lacks, asked in a fresh interpreter (tests may have put the fake pynvml in
    ``sys.modules``; importing pynvml does not load the NVML library, so no GPU is needed)."""
    code = "import json, sys, pynvml; print(json.dumps([n for n in sys.argv[1:] if not hasattr(pynvml, n)]))"
    out = subprocess.run([sys.executable, "-c", code, *names], capture_output=True, text=True, check=True, timeout=60)
    return list(json.loads(out.stdout))


def _names_used() -> dict[str, list[str]]:
    used: dict[str, list[str]] = {}
    for path in sorted((ROOT / "gpudesk").rglob("*.py")):
        for name in DIRECT_USE.findall(path.read_text(encoding="utf-8")):
            if name not in ("nvml_session", "nvml_processes"):  # gpudesk's own modules gpudesk.nvml.nvml_*
                used.setdefault(name, []).append(str(path.relative_to(ROOT)))
    return used


def test_installed_nvidia_ml_py_is_in_the_pinned_range():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    pin = next(r for r in map(Requirement, deps) if r.name == "nvidia-ml-py")
    installed = Version(importlib.metadata.version("nvidia-ml-py"))
    assert installed in pin.specifier, (
        f"nvidia-ml-py {installed} is installed but pyproject.toml pins {pin}: run this test file and "
        "tests/telemetry/test_gpm.py on it, then move the pin")


def test_every_pynvml_name_gpudesk_calls_exists_in_the_installed_release():
    used = _names_used()
    assert {"nvmlInit", "nvmlGpmMetricsGet", "c_nvmlGpmMetricsGet_t", "nvmlDeviceGetMemoryInfo"} <= set(used)
    missing = {name: used[name] for name in _absent_from_installed_pynvml(sorted(used))}
    assert missing == {}, (
        f"nvidia-ml-py {importlib.metadata.version('nvidia-ml-py')} lacks names gpudesk calls directly: "
        f"{missing}; read them through getattr(nv, name, None) with a fallback, or move the pin in pyproject.toml")
