"""ONNX Runtime's "not enough space: expected N, got M": a caller's buffer shorter than its tensor's shape, not memory.

ONNX Runtime's C API wraps memory the caller already holds as a tensor (``CreateTensorWithDataAsOrtValue``, and the C++
``Ort::Value::CreateTensor(memory_info, data, count, shape, ...)`` over it). It computes the bytes the shape needs
(elements × element size) and, when the buffer given is shorter, returns ``ORT_INVALID_ARGUMENT`` with "not enough
space: expected <bytes the shape needs>, got <bytes of the buffer>" (onnxruntime/core/session/onnxruntime_c_api.cc,
https://github.com/microsoft/onnxruntime; ORT's StatusCode 2 is INVALID_ARGUMENT, hence "onnx runtime error 2"). No
memory is allocated there: the shape and the data disagree (a feature length changed by another thread between sizing
the buffer and creating the tensor, wenet-e2e/wenet#906; a float16 array read as zero bytes by a binding), so the fix is
the shape or the buffer, and no amount of free memory changes it. 0.9: the wording is the C API's own argument check.
"""

from __future__ import annotations

import re

from gpudesk import i18n
from gpudesk.i18n import _
from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.oom.signatures import CHECKS, check_command, check_line

CONFIDENCE = 0.9
# The C API's argument check, with the bytes the shape needs and the bytes of the caller's buffer.
_SHORT_BUFFER = re.compile(r"\bnot enough space: expected (\d{1,20}), got (\d{1,20})\b")


def check(f: Facts) -> Cause | None:
    found = _SHORT_BUFFER.search(f.report.text or "")
    if found is None:
        return None
    needed, given = int(found.group(1)), int(found.group(2))
    if given >= needed:
        return None
    key = "absurd_size"
    command = check_command(key, f.report.platform)
    return Cause(
        id="not_capacity",
        title=_("Not a memory problem: the buffer given for a tensor is shorter than its shape"),
        confidence=CONFIDENCE,
        evidence=evidence(not_capacity_kind="caller_buffer", deciding_check=key, check_command=command,
                          tensor_bytes=needed, buffer_bytes=given),
        explanation=_("ONNX Runtime was asked to wrap an existing buffer of {given} bytes as a tensor whose shape "
                      "needs {needed} bytes, and refused it as an invalid argument: nothing was allocated, so free "
                      "memory plays no part. The shape and the data disagree (an input whose length changed between "
                      "sizing the buffer and creating the tensor, for example from another thread, or a wrong element "
                      "type).").format(given=given, needed=needed),
        fix=_("Make the tensor's shape match its data: compute the shape from the buffer you pass (elements × element "
              "size), do not share one input buffer between threads, and check the element type of the array"),
        checks=[check_line(command=command, meaning=i18n._(CHECKS[key].meaning))],
    )
