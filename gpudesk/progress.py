"""The one progress-callback protocol of long core jobs (probe, evidence, launch, imports).

A job that can report progress takes ``progress: Progress | None``; it calls ``progress(message, fraction)``
from the thread it runs in, with a whole translated sentence and the share done (0..1) or ``None`` when the
share is unknown. Used by the OOM doctor (probe, evidence, launch), the store's bulk writes and dmon imports. The UI relays the call to the GUI thread (:func:`gpudesk.ui.workers.run_task`).
"""

from __future__ import annotations

from typing import Protocol


class Progress(Protocol):
    """``progress(message, fraction)``: what is happening now and, where known, the share done (0..1)."""

    def __call__(self, message: str, fraction: float | None, /) -> None: ...
