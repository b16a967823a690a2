"""Numbers in finding sentences: durations, rates and offsets into the run, decimal GB/s as datasheets."""

from __future__ import annotations

from collections.abc import Sequence

from gpudesk.i18n import _
from gpudesk.units import format_duration


def offset(t: float, start: float) -> str:
    """Where a span starting at ``t`` lies in a run that began at ``start``: "from t+5 min", "from t+0 s"."""
    return _("from t+{offset}").format(offset=format_duration(max(0.0, t - start)))


def sentences(texts: Sequence[str]) -> str:
    """Whole sentences one after the other, as the language writes them (a space in English, none in Chinese)."""
    out = ""
    for text in texts:
        # Translators: two sentences in a row; Chinese writes them without a space between.
        out = _("{first} {second}").format(first=out, second=text) if out else text
    return out


def clauses(texts: Sequence[str]) -> str:
    """Clauses of one list joined as the language joins them ("a; b; c")."""
    out = ""
    for text in texts:
        # Translators: two items of a list of clauses, e.g. "no power or thermal throttling; median utilization 94 %"
        out = _("{first}; {second}").format(first=out, second=text) if out else text
    return out


def gpu_list(gpus: list[int]) -> str:
    """"GPUs 0-3", "GPUs 0, 2", "GPU 1"."""
    if len(gpus) == 1:
        return _("GPU {gpu}").format(gpu=gpus[0])
    s = sorted(gpus)
    if s == list(range(s[0], s[-1] + 1)):
        return _("GPUs {first}-{last}").format(first=s[0], last=s[-1])
    return _("GPUs {gpus}").format(gpus=", ".join(str(g) for g in s))
