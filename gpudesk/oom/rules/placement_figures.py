"""``multi_gpu_imbalance`` read from per-GPU figures the user lists ("GPU 7: 19.78GB used", "GPUs 5-6: ~0.3GB each",
"19.78GB on one GPU, 0.3GB on others"; issue 28, twenty-second pass).

An automatic device map places whole layers on the GPUs in order (accelerate's ``infer_auto_device_map``,
``device_map="auto"/"balanced"``, https://github.com/huggingface/accelerate): layers it cannot split, such as a large
embedding and LM head left unquantized beside 4-bit weights, pile onto the first and last GPUs while the middle ones
hold little (huggingface/accelerate#2586: Gemma-3-27B in 4 bits, 19.78 GB on GPU 7 and 0.3 GB on GPUs 5-6 of eight
24 GB A10Gs; the first step's 2.63 GB request failed on GPU 7). Figures of two or more GPUs whose busiest holds
at least 1.3 × and 1 GiB more than the least (the probe's test, :func:`gpudesk.oom.rules.multi_gpu_imbalance.uneven`) say
the job's total fits the GPUs together. When the gap between them is at least the failed request, moving that much
off the busiest GPU makes the request fit: 0.88, above a shortage read from the failing GPU's figures alone (0.85);
a smaller gap 0.6.
"""

from __future__ import annotations

import re

from gpudesk.oom.cause import Cause
from gpudesk.oom.parsers.units import to_bytes
from gpudesk.oom.rules import multi_gpu_imbalance
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.units import format_bytes
from gpudesk.i18n import _

_SIZE = r"(\d{1,4}(?:\.\d{1,3})?)\s{0,2}(GiB|GB|G|MiB|MB)\b"
# "GPU 7: 19.78GB used", "GPUs 5-6: ~0.3GB each" (markdown emphasis and "~" allowed); not a figure said to be free.
_GPU_FIGURE = re.compile(r"\bGPUs?\s{0,2}(\d{1,2})(?:\s{0,2}[-–]\s{0,2}(\d{1,2}))?\s{0,2}:\s{0,3}[*~_\s]{0,6}" + _SIZE
                         + r"(?![^\n]{0,4}\b(?:free|available|left|total)\b)", re.IGNORECASE)
# "19.78GB on one GPU, 0.3GB on others".
_ONE_VS_OTHERS = re.compile(_SIZE + r"\s{1,3}on\s{1,3}one\s{1,3}(?:gpu|card|device)\b[^\n]{0,20}?" + _SIZE
                            + r"\s{1,3}on\s{1,3}(?:the\s{1,3})?(?:others?|rest)\b", re.IGNORECASE)
HIGH_CONFIDENCE = 0.88


def _figures(text: str) -> list[int]:
    """The per-GPU figures of ``text`` in bytes (GB and G read as GiB, MB as MiB: :func:`to_bytes`, as the doctor's
    parsers read them)."""
    loads = [to_bytes(m.group(3), m.group(4)) for m in _GPU_FIGURE.finditer(text)]
    m = _ONE_VS_OTHERS.search(text)
    if m is not None:
        loads += [to_bytes(m.group(1), m.group(2)), to_bytes(m.group(3), m.group(4))]
    return loads


def check(f: Facts) -> Cause | None:
    text = f.report.text or ""
    if "gpu" not in text.lower():
        return None
    loads = _figures(text)
    if len(loads) < 2:
        return None
    hi, lo = max(loads), min(loads)
    if not multi_gpu_imbalance.uneven(hi, lo):
        return None
    covers = f.requested is not None and hi - lo >= f.requested
    return Cause(
        id="multi_gpu_imbalance",
        title=_("Uneven memory across GPUs"),
        confidence=HIGH_CONFIDENCE if covers else 0.6,
        evidence=evidence(busiest_gpu_bytes=hi, least_gpu_bytes=lo, imbalance_ratio=round(hi / lo, 2),
                          requested_bytes=f.requested),
        explanation=_("The text lists the GPUs' memory: the fullest holds {hi}, the emptiest {lo}. The job's total fits "
                      "the GPUs together; the placement puts too much on one of them.").format(
                          hi=format_bytes(hi), lo=format_bytes(lo)),
        fix=_("Spread the layers: give every GPU a max_memory in the device map that leaves room for activations on "
              "the fullest one (device_map=\"auto\" with a max_memory entry per GPU, or \"balanced_low_0\"), or "
              "place the largest unsplittable layers (embedding, LM head) yourself"),
        more_fixes=[_("Print model.hf_device_map to see which layers landed on the fullest GPU.")],
    )
