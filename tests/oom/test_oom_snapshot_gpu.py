"""Real snapshots captured with CUDA (issue 17): a fragmentation OOM and a leak, recorded by PyTorch itself with
``torch.cuda.memory._record_memory_history()`` and ``_dump_snapshot()``, then read and explained by gpudesk.

They run only where NVML finds a GPU and torch has CUDA. With ``GPUDESK_SNAPSHOT_CAPTURE_DIR`` set, the pickles
are kept there so they can become fixtures.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from oom_support import need_cuda  # noqa: F401  (fixture)

from gpudesk.oom.snapshot.account import diagnose_snapshot
from gpudesk.oom.snapshot.analysis import analyse
from gpudesk.oom.snapshot.reader import load_snapshot

pytestmark = [pytest.mark.gpu, pytest.mark.torch, pytest.mark.usefixtures("need_cuda")]

# Fragmentation: cap the process at 4 GiB, cut cached 180 MiB segments into 100 MiB holes next to live 70 MiB
# tensors, fill what is left with 128 MiB tensors (larger than the holes, so they cannot use them), then ask for
# 150 MiB. Leak: a training loop whose 64 MiB activations are freed each step while an 8 MiB slice of the output
# is kept in a list.
FRAGMENT = r"""
import sys, torch
torch.cuda.set_per_process_memory_fraction(4 * 1024**3 / torch.cuda.get_device_properties(0).total_memory)
torch.cuda.memory._record_memory_history(max_entries=100000)
MiB = 1024 * 1024
first = [torch.empty(180 * MiB, dtype=torch.uint8, device="cuda") for _ in range(20)]
del first
pairs = [(torch.empty(100 * MiB, dtype=torch.uint8, device="cuda"),
          torch.empty(70 * MiB, dtype=torch.uint8, device="cuda")) for _ in range(20)]
keep = [small for _big, small in pairs]
del pairs
filler = []
try:
    while True:
        filler.append(torch.empty(128 * MiB, dtype=torch.uint8, device="cuda"))
except torch.OutOfMemoryError:
    pass
try:
    torch.empty(150 * MiB, dtype=torch.uint8, device="cuda")
except torch.OutOfMemoryError:
    torch.cuda.memory._dump_snapshot(sys.argv[1])
"""

LEAK = r"""
import sys, torch
torch.cuda.memory._record_memory_history(max_entries=100000)
model = torch.nn.Linear(4096, 4096).cuda()
kept = []
for step in range(8):
    x = torch.randn(4096, 4096, device="cuda")
    h = model(x)
    loss = h.pow(2).mean()
    loss.backward()
    kept.append(h[:512].detach().clone())  # the leak: 8 MiB per step
    del x, h, loss
torch.cuda.memory._dump_snapshot(sys.argv[1])
"""


def _capture(tmp_path: Path, script: str, name: str) -> Path:
    path = tmp_path / name
    job = tmp_path / (Path(name).stem + "_job.py")
    job.write_text(script)
    subprocess.run([sys.executable, str(job), str(path)], check=True, timeout=300)
    keep = os.environ.get("GPUDESK_SNAPSHOT_CAPTURE_DIR")
    if keep:
        shutil.copy(path, Path(keep) / name)
    return path


def test_real_fragmentation_oom_snapshot(tmp_path: Path) -> None:
    analysis = analyse(load_snapshot(_capture(tmp_path, FRAGMENT, "fragmentation.pickle")))
    dev = analysis.device()
    assert dev is not None and dev.oom is not None
    assert dev.oom.requested_bytes == 150 * 1024 * 1024
    assert dev.verdict == "fragmentation", dev.explanation
    assert dev.fragmentation.largest_usable_free_block_bytes is not None
    assert dev.fragmentation.largest_usable_free_block_bytes < dev.oom.requested_bytes
    diag = diagnose_snapshot(analysis)
    assert diag.top is not None and diag.top.id == "fragmentation"


def test_real_leak_snapshot(tmp_path: Path) -> None:
    analysis = analyse(load_snapshot(_capture(tmp_path, LEAK, "leak.pickle")))
    dev = analysis.device()
    assert dev is not None
    assert dev.leak_suspects, dev.explanation
    assert dev.leak_suspects[0].label.startswith(str(tmp_path / "leak_job.py") + ":")
    assert dev.leak_suspects[0].iterations >= 6
