"""Usable memory of a card and the safe line.

- Reported total is below the physical/marketing size: the driver reserves memory (and ECC on GDDR6 takes
  1/16 on a T4). Public OOM messages show an 80 GB A100/H100 as 79.18-79.33 GiB, a 40 GB A100 as 39.43-39.50,
  a 24 GB RTX 4090 as 23.61-23.65 GiB on Linux, RTX 3090 / A10 as 23.69-23.70, a V100 32GB as 31.72-31.75,
  a 16 GB T4 as 14.56-14.76 GiB (oom.md 3.4). Without a fingerprint, gpudesk takes 98.6 % of the physical
  size (the smallest HBM ratio among those fingerprints, 39.43/40).
- The safe line: keep 15-20 % free for the CUDA context, temporaries and framework overhead; an 80 GB card is
  safe to about 64 GB (the source article, section 3.1; seed/DIGEST.md 3). Default 20 % of the usable size,
  configurable.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpudesk.sizing.checks import fraction, positive_int

from gpudesk.units import GIB
DEFAULT_SAFE_FREE_FRACTION = 0.20
UNKNOWN_REPORTED_FRACTION = 39.43 / 40

# (physical GiB, memory-type prefix) -> reported total GiB (lowest Linux figure seen in public OOM messages).
REPORTED_TOTAL_GIB: dict[tuple[int, str], float] = {
    (16, "GDDR6"): 14.56,
    (16, "HBM2"): 15.77,
    (24, "GDDR6X"): 23.61,
    (24, "GDDR6"): 23.69,
    (32, "GDDR7"): 31.51,
    (32, "HBM2"): 31.72,
    (40, "HBM2"): 39.43,
    (80, "HBM2E"): 79.18,
    (80, "HBM3"): 79.18,
}


def reported_total_bytes(memory_bytes: int, memory_type: str | None = None) -> int:
    """The total the driver reports for a card of ``memory_bytes`` physical memory (bytes).

    Uses the fingerprint table (oom.md 3.4) when the size and memory type match, else 98.6 % of physical.

    Raises:
        SizingError: memory_bytes not a positive whole number.
    """
    physical = positive_int("memory_bytes", memory_bytes)
    gib = round(physical / GIB)
    mtype = (memory_type or "").upper().replace(" ", "")
    for (size, prefix), reported in REPORTED_TOTAL_GIB.items():
        if size == gib and mtype == prefix:
            return int(reported * GIB)
    return int(physical * UNKNOWN_REPORTED_FRACTION)


@dataclass(frozen=True)
class Fit:
    """How a per-GPU memory need compares with a card.

    Attributes:
        need_bytes: per-GPU estimate.
        usable_bytes: reported total of the card.
        safe_line_bytes: usable x (1 - safe_free_fraction).
        headroom_bytes: safe_line - need (negative: over the safe line).
        fits: need <= usable (it runs, perhaps without margin).
        under_safe_line: need <= safe line (it runs with the recommended margin).
        utilisation: need / usable.
    """

    need_bytes: int
    usable_bytes: int
    safe_line_bytes: int
    headroom_bytes: int
    fits: bool
    under_safe_line: bool
    utilisation: float


def fit(need_bytes: int, memory_bytes: int, memory_type: str | None = None,
        safe_free_fraction: float = DEFAULT_SAFE_FREE_FRACTION) -> Fit:
    """Compare a per-GPU need with a card's usable memory and safe line.

    Raises:
        SizingError: bad sizes, or safe_free_fraction outside [0, 1).
    """
    need = int(need_bytes)
    free = fraction("safe_free_fraction", safe_free_fraction, allow_one=False)
    usable = reported_total_bytes(memory_bytes, memory_type)
    safe = int(usable * (1 - free))
    return Fit(need_bytes=need, usable_bytes=usable, safe_line_bytes=safe, headroom_bytes=safe - need,
               fits=need <= usable, under_safe_line=need <= safe, utilisation=need / usable)
