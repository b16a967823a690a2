"""Run nvitop's terminal UI over the test suite's fake pynvml: the reference for the Monitor CPU benchmark.

Usage (in a pseudo-terminal): ``python tests/benchmarks/nvitop_on_fake_nvml.py N_GPUS`` runs
``nvitop --monitor full --interval 1 --readonly`` with ``pynvml`` replaced by
:func:`helpers.fake_pynvml.make_fake_pynvml` for N_GPUS devices. nvitop reads more NVML functions than gpudesk
does; the ones the fake does not script (fan speed, performance state, persistence and compute mode, power
limit, MIG, CUDA driver version) answer NVMLError_NotSupported, which nvitop shows as N/A. Its per-tick cost
here is therefore, if anything, a little lower than over a real driver.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pynvml as real_pynvml  # noqa: E402 - after the path set-up, like the tests' conftest
from helpers.fake_pynvml import FakeDevice, make_fake_pynvml  # noqa: E402

DRIVER_CALLS = ("nvmlDevice", "nvmlSystem", "nvmlUnit", "nvmlEvent", "nvmlGpm", "nvmlVgpu", "nvmlGpuInstance",
                "nvmlComputeInstance", "nvmlGet", "nvmlSet")


def _not_supported(name: str):
    def call(*_args, **_kwargs):
        raise real_pynvml.NVMLError_NotSupported()

    call.__name__ = name
    return call


def fake_module(n_gpus: int) -> types.ModuleType:
    """pynvml with every driver call answered by the fake (or NotSupported); helpers and constants are real."""
    fake = make_fake_pynvml([FakeDevice(i) for i in range(n_gpus)])
    module = types.ModuleType("pynvml")
    module.__dict__.update(vars(real_pynvml))
    for name, value in vars(real_pynvml).items():
        if name.startswith("nvml") and isinstance(value, types.FunctionType):
            if hasattr(fake, name):
                module.__dict__[name] = getattr(fake, name)
            elif name.startswith(DRIVER_CALLS):
                module.__dict__[name] = _not_supported(name)
    module.nvmlInitWithFlags = lambda _flags=0: fake.nvmlInit()
    return module


if __name__ == "__main__":
    sys.modules["pynvml"] = fake_module(int(sys.argv[1]))
    sys.argv = ["nvitop", "--monitor", "full", "--interval", "1", "--readonly"]
    from nvitop.cli import main

    sys.exit(main())
