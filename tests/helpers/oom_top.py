"""The doctor's first cause for a pasted text, as the OOM pass tests read it."""

from __future__ import annotations

from gpudesk.oom import diagnose_text
from gpudesk.oom.user_context import UserContext


def top_cause(text: str, host_os: str | None = None) -> tuple[str, bool, str | None]:
    """(first cause id, an OOM was found, the first cause's deciding check) of ``diagnose_text(text)``, with the user's
    host OS when given."""
    d = diagnose_text(text, context=UserContext(host_os=host_os) if host_os else None)
    top = d.causes[0]
    return top.id, d.found_oom, top.evidence.get("deciding_check")
