"""The memory of a GPU a text names by its model ("on a H100 machine", "RTX4090", "A800"), from the bundled catalog.

A user who describes memory in use ("60GB is already taken up on a H100") gives the capacity only through the GPU's
name; the catalog's GPU names carry the model token ("NVIDIA H100 PCIe 80GB" → "H100"). Where one token names several
variants (H100 PCIe/SXM5 80 GB, NVL 94 GB) the smallest memory is taken, the reading that claims the least.
"""

from __future__ import annotations

import functools
import re

from gpudesk.catalog import CatalogError, open_catalog

# A model token in a catalog name: letters and digits with at least two digits ("H100", "4090", "A800", "L40S",
# "MI300X"), not a memory size ("80GB").
_TOKEN = re.compile(r"\b([A-Z]{0,3}\d{2,4}[A-Z]{0,2})\b")
_SIZE_TOKEN = re.compile(r"^\d{1,4}(?:GB|G)$")


@functools.lru_cache(maxsize=1)
def _catalog_tokens() -> tuple[tuple[str, re.Pattern[str], int], ...]:
    """(token, its pattern in free text, smallest memory in bytes) for every GPU of the bundled catalog."""
    try:
        catalog = open_catalog()
        try:
            gpus = list(catalog.gpus())
        finally:
            catalog.close()
    except CatalogError:
        return ()
    best: dict[str, int] = {}
    for gpu in gpus:
        if not gpu.memory_bytes:
            continue
        for token in _TOKEN.findall(gpu.name.replace("NVIDIA", " ")):
            if _SIZE_TOKEN.match(token):
                continue
            best[token] = min(best.get(token, gpu.memory_bytes), gpu.memory_bytes)
    out = []
    for token, memory in sorted(best.items()):
        # A token of digits only ("4090") is a GPU only after its brand's word ("RTX4090", "RTX 4090"; "step 5000" is
        # none); one with letters stands alone.
        before = r"(?:rtx|gtx|geforce|quadro|titan)[\s-]?" if token.isdigit() else r"(?<![A-Za-z0-9])"
        out.append((token, re.compile(before + re.escape(token) + r"(?![A-Za-z0-9])", re.IGNORECASE), memory))
    return tuple(out)


def named_gpu_bytes(text: str) -> int | None:
    """The memory of the one GPU model ``text`` names, or None when it names none or several of different memory."""
    found = {memory for _token, pattern, memory in _catalog_tokens() if pattern.search(text)}
    return found.pop() if len(found) == 1 else None


# A GPU's memory stated by the user next to a GPU word ("我只有6G显存", "my card has 6GB", "a 4GB GPU", "only 8 GB of
# VRAM"): a nominal size, which vendors state in binary gigabytes (a "6 GB" card holds 6 GiB less what the driver keeps).
_STATED = re.compile(
    r"(?<![\d.])(\d{1,3})\s?(?:gb|gib|g)\s{0,2}(?:of\s{1,2})?(?:vram|gpu|card|graphics card|video memory|显存|的显存|显卡)"
    r"|(?:vram|gpu|card|显存|显卡)\s{0,2}(?:is|has|only has|只有|是|为)?\s{0,2}(\d{1,3})\s?(?:gb|gib|g)\b",
    re.IGNORECASE)


# The largest memory a GPU is sold with, in the same binary gigabytes (B300 and MI355X: 288 GB, db/ GPU rows); a
# larger figure beside a GPU word is not a card's memory (a dataset size, a host's RAM).
_LARGEST_NOMINAL_GB = 288


def _nominal_sizes(gigabytes: set[int]) -> set[int]:
    """The figures of ``gigabytes`` a GPU can have as its nominal memory (1 to ``_LARGEST_NOMINAL_GB``)."""
    return {g for g in gigabytes if 1 <= g <= _LARGEST_NOMINAL_GB}


def stated_gpu_bytes(text: str) -> int | None:
    """The one GPU memory ``text`` states in words (``_STATED``), else that of the one GPU model it names; None when it
    states none or several."""
    stated = _nominal_sizes({int(m.group(1) or m.group(2)) for m in _STATED.finditer(text)})
    if len(stated) == 1:
        return stated.pop() * 1024**3
    if stated:
        return None
    return named_gpu_bytes(text)


# A device name that carries its memory, as a framework's device line prints it ("name: GeForce GTX 1060 6GB",
# "name: Tesla V100-SXM2-32GB", "name: A100-SXM4-40GB"): the vendor's nominal size in binary gigabytes, which the
# device's reported total sits just below (a "6GB" GTX 1060 reports 5.93 GiB).
_NAME_WITH_MEMORY = re.compile(r"\bname:\s{0,2}[^,\n]{0,60}?[\s-](\d{1,3})\s?GB\b")


def device_name_bytes(text: str) -> int | None:
    """The nominal memory of the one device whose printed name states it (``_NAME_WITH_MEMORY``), else None."""
    found = _nominal_sizes({int(m.group(1)) for m in _NAME_WITH_MEMORY.finditer(text)})
    return found.pop() * 1024**3 if len(found) == 1 else None
