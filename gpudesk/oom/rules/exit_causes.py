"""The words of a host-memory cause for a process that ended without an error of its own (gpudesk.oom.exit_marks),
where the generic not-capacity wording of :mod:`gpudesk.oom.rules.signature` would describe another mechanism.

* ``worker_exit_shm``: a DataLoader worker found dead inside a container: /dev/shm first (0.75: the container's
  64 MiB default is the documented limit the batches pass through, but a worker's native crash reads the same).
* ``worker_exit``: a DataLoader worker found dead outside a container, no signal named: the OOM killer first (0.6:
  each worker is a copy of the main process, so num_workers multiplies host memory; a native crash reads the same).
* ``load_exit_paused``: python.exe gone while the checkpoint shards were read, with the Windows console's pause prompt
  after it: the commit limit (RAM + page file) first (0.65), with the commit counters as the check.
"""

from __future__ import annotations

from gpudesk.oom.cause import Cause
from gpudesk.i18n import _


def worker_exit_in_container(cause: Cause) -> Cause:
    """``cause`` (the ``dev_shm`` not-capacity cause) worded for a worker found dead, not one killed by a bus error."""
    cause.title = _("Likely not GPU memory: a DataLoader worker died in a container, most often for shared memory "
                    "(/dev/shm)")
    cause.explanation = _("A DataLoader worker ended without an error of its own while the job ran in a container. "
                          "Workers hand each batch to the main process through shared memory (/dev/shm), which a "
                          "container gets only 64 MB of unless told otherwise; a worker that cannot back a page there "
                          "dies. A crash in the worker's own code reads the same, so the size of /dev/shm decides.")
    return cause


def worker_found_dead(cause: Cause) -> Cause:
    """``cause`` (the ``oom_killer`` not-capacity cause) worded for a DataLoader worker gone with no signal named."""
    cause.title = _("Likely not GPU memory: a DataLoader worker died without an error, most often killed by the "
                    "host's OOM killer")
    cause.explanation = _("A DataLoader worker ended without a Python error of its own, so a signal ended it. Each "
                          "worker is a copy of the main process holding its own batches, so host memory grows with "
                          "num_workers, and the Linux OOM killer ends a process with SIGKILL when RAM and swap run "
                          "out. A crash in the worker's native code reads the same; the kernel log decides.")
    cause.fix = _("Lower num_workers (and prefetch_factor), or the batch or image size the workers prepare; give the "
                  "machine more RAM or swap")
    return cause


def paused_after_load(cause: Cause) -> Cause:
    """``cause`` (the page-file not-capacity cause) worded for a process gone while it read a checkpoint."""
    cause.title = _("Likely not GPU memory: the process ended while loading the checkpoint, the Windows commit limit "
                    "(RAM + page file)")
    cause.explanation = _("The log stops inside the checkpoint-loading bar and the console's pause prompt follows with "
                          "no error: python.exe ended while the shards were being read into system memory. On Windows "
                          "a process that needs more than the commit limit (RAM plus the page file) dies this way, "
                          "whatever the GPU's free memory.")
    cause.fix = _("Let Windows manage the page file, or enlarge it (System > Advanced system settings > Performance > "
                  "Virtual memory) to at least the model's size, then restart; close programs that hold much RAM")
    return cause
