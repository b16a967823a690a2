"""Usable memory of a card and the safe line.

- Reported total is below the physical/marketing size: the driver reserves memory (and ECC on GDDR6 takes
  1/16 on a T4). Public OOM messages show an 80 GB A100/H100 as 79.18-79.33 GiB, a 40 GB A100 as 39.43-39.50,
  a 24 GB RTX 4090 as 23.61-23.65 GiB on Linux, RTX 3090 / A10 as 23.69-23.70, a V100 32GB as 31.72-31.75,
  a 16 GB T4 as 14.56-14.76 GiB (oom.md 3.4). Without a fingerprint, gpudesk takes 98.6 % of the physical
  size (the smallest HBM ratio among those fingerprints, 39.43/40).
- ECC on GDDR memory: a GDDR card keeps its ECC check bits in the same DRAM, so with ECC on the driver reports
  1/16 less ("On GPUs with GDDR memory with ECC enabled the available DRAM is reduced by 6.25%", NVIDIA CUDA C++
  Best Practices Guide, https://docs.nvidia.com/cuda/cuda-c-best-practices-guide/ ; a T4's nvidia-smi shows
  15079MiB of 16 GiB, an L40S's 46068MiB of 48 GiB, sgl-project/sglang PR 13023). HBM carries ECC beside the data
  and loses nothing. Whether ECC is on is an input (``ecc_enabled``); by default the state the card ships in
  (catalog ``gpu_memory_ecc``: on for data-center cards such as T4, A10, L4, L40S; off for GeForce and RTX
  workstation cards), :func:`gpu_reported_total_bytes`.
- The safe line: keep 15-20 % free for the CUDA context, temporaries and framework overhead; an 80 GB card is
  safe to about 64 GB (the source article, section 3.1; seed/DIGEST.md 3). Default 20 % of the usable size,
  configurable.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpudesk.catalog.records import GPU
from gpudesk.sizing.checks import fraction, positive_int

from gpudesk.units import GIB
DEFAULT_SAFE_FREE_FRACTION = 0.20
UNKNOWN_REPORTED_FRACTION = 39.43 / 40

# (physical GiB, memory-type prefix) -> reported total GiB (lowest Linux figure seen in public OOM messages), with
# ECC off; the T4's figure was seen with ECC on and is kept as seen (ECC_ON_FINGERPRINTS).
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


#: fingerprints measured on cards running with ECC on (16 GB GDDR6: the T4, a data-center card).
ECC_ON_FINGERPRINTS = {(16, "GDDR6")}
#: Share of GDDR memory ECC check bits take when ECC is on (CUDA C++ Best Practices Guide: 6.25 %).
GDDR_ECC_FRACTION = 1 / 16


def ecc_costs_memory(memory_type: str | None) -> bool:
    """True for GDDR memory, whose ECC check bits live in the same DRAM (module docstring)."""
    return (memory_type or "").upper().replace(" ", "").startswith("GDDR")


def reported_total_bytes(memory_bytes: int, memory_type: str | None = None, ecc_enabled: bool = False) -> int:
    """The total the driver reports for a card of ``memory_bytes`` physical memory (bytes), with ECC on or off.

    Uses the fingerprint table (oom.md 3.4) when the size and memory type match, else 98.6 % of physical; on GDDR
    memory with ``ecc_enabled`` 1/16 of it goes to ECC check bits (module docstring).

    Raises:
        SizingError: memory_bytes not a positive whole number.
    """
    physical = positive_int("memory_bytes", memory_bytes)
    gib = round(physical / GIB)
    mtype = (memory_type or "").upper().replace(" ", "")
    in_band = ecc_costs_memory(mtype)
    total = physical * UNKNOWN_REPORTED_FRACTION
    for (size, prefix), reported in REPORTED_TOTAL_GIB.items():
        if size == gib and mtype == prefix:
            total = reported * GIB
            if in_band and (size, prefix) in ECC_ON_FINGERPRINTS:
                total /= 1 - GDDR_ECC_FRACTION  # the same card with ECC off
            break
    if in_band and ecc_enabled:
        total *= 1 - GDDR_ECC_FRACTION
    return int(total)


def gpu_reported_total_bytes(gpu: GPU, ecc_enabled: bool | None = None) -> int:
    """:func:`reported_total_bytes` of a catalog GPU (its ``memory_bytes`` and ``memory_type``); ``ecc_enabled``
    None: the state the card ships in (its ``ecc_default_on``)."""
    ecc = gpu.ecc_default_on if ecc_enabled is None else bool(ecc_enabled)
    return reported_total_bytes(gpu.memory_bytes, gpu.memory_type, ecc)


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
        safe_free_fraction: float = DEFAULT_SAFE_FREE_FRACTION, ecc_enabled: bool = False) -> Fit:
    """Compare a per-GPU need with a card's usable memory (ECC on or off, :func:`reported_total_bytes`) and safe
    line.

    Raises:
        SizingError: bad sizes, or safe_free_fraction outside [0, 1).
    """
    need = int(need_bytes)
    free = fraction("safe_free_fraction", safe_free_fraction, allow_one=False)
    usable = reported_total_bytes(memory_bytes, memory_type, ecc_enabled)
    safe = int(usable * (1 - free))
    return Fit(need_bytes=need, usable_bytes=usable, safe_line_bytes=safe, headroom_bytes=safe - need,
               fits=need <= usable, under_safe_line=need <= safe, utilisation=need / usable)


def gpu_fit(need_bytes: int, gpu: GPU, safe_free_fraction: float = DEFAULT_SAFE_FREE_FRACTION,
            ecc_enabled: bool | None = None) -> Fit:
    """:func:`fit` against a catalog GPU; ``ecc_enabled`` None: the ECC state the card ships in
    (:func:`gpu_reported_total_bytes`)."""
    ecc = gpu.ecc_default_on if ecc_enabled is None else bool(ecc_enabled)
    return fit(need_bytes, gpu.memory_bytes, gpu.memory_type, safe_free_fraction, ecc)
