"""Errors raised by the OOM doctor. Each message says what was wrong and what the user can do.

Hierarchy::

    OomError
    ├── OomInputError          text given to parse_text() is empty, binary or not text at all
    ├── ProbeError             a probe could not produce a result
    │   ├── MethodUnavailable  this way of running the probe cannot be used here (reason in the message)
    │   ├── TargetNotFound     the PID does not exist, or exited before/while the probe ran
    │   ├── PermissionDenied   the target belongs to another user, or ptrace is not allowed
    │   ├── ProbeTimeout       the target did not run the probe in time (busy in native code); left running
    │   └── ProbeResultError   the probe's answer was not valid JSON / not the expected shape
    └── LaunchError            a command given to ``gpudesk oom run`` could not be started

A saved diagnosis that cannot be read back raises ``gpudesk.store.errors.DiagnosisStoreError``.
"""

from __future__ import annotations

from gpudesk.errors import GpudeskError


class OomError(GpudeskError):
    """Base class for OOM doctor problems."""


class OomInputError(OomError):
    """The text given for diagnosis cannot be used (empty, binary, undecodable)."""


class ProbeError(OomError):
    """A probe of a running process failed."""


class MethodUnavailable(ProbeError):
    """A way of running the probe cannot be used for this target; ``reason`` says why in plain words."""

    def __init__(self, method: str, reason: str):
        super().__init__(f"{method}: {reason}", field=method, detail=reason)
        self.method = method
        self.reason = reason


class TargetNotFound(ProbeError):
    """The target process does not exist or exited during the probe."""


class PermissionDenied(ProbeError):
    """The target belongs to another user or the system forbids attaching (ptrace scope, container)."""


class ProbeTimeout(ProbeError):
    """The probe was injected but no answer came in time: the target is busy (often in native code).

    The target is left running and unharmed; the injected probe may still run later, when the target's
    main thread returns to Python code, and then writes into a folder that no longer exists.
    """


class ProbeResultError(ProbeError):
    """The probe answered with something that is not the JSON document it should write."""


class LaunchError(OomError):
    """A command for ``gpudesk oom run`` could not be started (not found, not executable, empty)."""

