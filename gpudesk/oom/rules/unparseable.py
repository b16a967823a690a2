"""``unparseable``: nothing in the input could be read as an OOM message; say what is needed instead.

This is a stand-in cause, not a finding: nothing was diagnosed, so its confidence is the lowest a cause has
(0.05) and ``Diagnosis.found_oom`` is False (the CLI exits with status 1).
"""

from __future__ import annotations

from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.i18n import _


def check(f: Facts) -> Cause | None:
    r = f.report
    if r.kind != "unknown" or r.source != "text":
        return None
    return Cause(
        id="unparseable",
        title=_("No out-of-memory message found"),
        confidence=0.05,
        evidence=evidence(characters=len(r.text or ""), framework_guess=r.framework, missing=list(r.missing)),
        explanation=_("Nothing was diagnosed: the text holds no PyTorch, TensorFlow, JAX, cuBLAS or vLLM out-of-memory message that gpudesk "
                    "knows. Nothing was lost: the text is kept with the diagnosis."),
        fix=_("Paste the whole error (from 'Tried to allocate' / 'Resource exhausted' to the end of the line) and, for "
            "PyTorch, the output of print(torch.cuda.memory_summary())"),
        more_fixes=[_("Probe the running process instead: gpudesk oom probe PID, or run it with gpudesk oom run -- "
                      "CMD.")],
    )
