"""The memory of a GPU a text names by its model ("on a H100 machine", "RTX4090", "A800"), from the bundled catalog.

A user who describes memory in use ("60GB is already taken up on a H100") gives the capacity only through the GPU's
name; the catalog's GPU names carry the model token ("NVIDIA H100 PCIe 80GB" → "H100"). Where one token names several
variants (H100 PCIe/SXM5 80 GB, NVL 94 GB) the smallest memory is taken, the reading that claims the least.

A model word after the number is part of the model: "RTX 2080 Ti" (11 GB) is not "RTX 2080" (8 GB), "RX 7900 XTX"
(24 GB) not "RX 7900 XT" (20 GB), "RTX 4000 Ada" (20 GB) not the Quadro RTX 4000 (8 GB, not in the catalog), so a
number names a catalog GPU only with the words its catalog name has after it. The memory is one device's: a board
that holds several GPUs (K80: two of 12 GB; A16: four of 16 GB; MI250X: two of 64 GB, the catalog's ``gpu_packages``)
shows each as its own device, and an OOM message reports that device's capacity.
"""

from __future__ import annotations

import dataclasses
import functools
import re

from gpudesk.catalog import CatalogError, open_catalog

# A model token in a catalog name: letters and digits with at least two digits ("H100", "4090", "A800", "L40S",
# "MI300X"), not a memory size ("80GB").
_TOKEN = re.compile(r"\b([A-Z]{0,3}\d{2,4}[A-Z]{0,2})\b((?:[ -](?:Ti|SUPER|Super|XTX|XT|Ada|Blackwell)\b)*)")
_SIZE_TOKEN = re.compile(r"^\d{1,4}(?:GB|G)$")
# The words that may follow a model number in a GPU's name and make another model (NVIDIA: Ti, SUPER, Ada, Blackwell;
# AMD Radeon: XT, XTX; a laptop GPU, "RTX 3060 Laptop GPU" with 6 GB, is not the desktop card).
_SUFFIX_WORDS = r"(?:ti|super|xtx|xt|ada|blackwell|laptop|mobile|max-q)"
# NVIDIA TITAN cards are named by a word, not a number ("TITAN RTX", "TITAN V").
_TITAN = re.compile(r"\bTITAN ([A-Z][A-Za-z]{0,2})\b")


@dataclasses.dataclass(frozen=True)
class _Model:
    """A GPU model as free text names it: its pattern, the smallest device memory of its catalog variants, and each
    variant's device memory by its nominal size in GB ("RTX 3080" is 10 GB or 12 GB)."""

    label: str
    pattern: re.Pattern[str]
    smallest_bytes: int
    bytes_by_gb: dict[int, int]


# A memory size written next to the model, or after its form factor ("RTX 3060 12 GB", "Tesla P100-PCIE-16GB",
# "A100-SXM4-80GB", "a 12 GB RTX 3060"): which of the model's catalog variants the text means.
_SIZE_AFTER = re.compile(r"[\s(,-]{0,3}(?:(?:pcie|sxm\d?|nvl)[\s-]{1,2})?(\d{1,3})\s?(?:gb|gib|g)\b", re.IGNORECASE)
_SIZE_BEFORE = re.compile(r"(?<![\d.])(\d{1,3})\s?(?:gb|gib|g)\s{1,2}(?:(?:nvidia|geforce|tesla|quadro)\s{1,2})*$",
                          re.IGNORECASE)


@functools.lru_cache(maxsize=1)
def _catalog_models() -> tuple[_Model, ...]:
    """Every GPU model the bundled catalog's names carry."""
    try:
        catalog = open_catalog()
        try:
            gpus = list(catalog.gpus())
        finally:
            catalog.close()
    except CatalogError:
        return ()
    variants: dict[tuple[str, str], dict[int, int]] = {}
    for gpu in gpus:
        if not gpu.memory_bytes:
            continue
        devices = max(1, gpu.devices_per_package)
        device_bytes = gpu.memory_bytes // devices
        name = gpu.name.replace("NVIDIA", " ")
        tokens = [(model, suffix.split()) for model, suffix in _TOKEN.findall(name) if not _SIZE_TOKEN.match(model)]
        tokens += [("TITAN", [word]) for word in _TITAN.findall(name)]
        for model, words in tokens:
            sizes = variants.setdefault((model, " ".join(w.lower() for w in words)), {})
            gb = round(gpu.memory_gb / devices)
            sizes[gb] = min(sizes.get(gb, device_bytes), device_bytes)
    out = []
    for (model, suffix), sizes in sorted(variants.items()):
        # A token of digits only ("4090") is a GPU only after its brand's word ("RTX4090", "RTX 4090", "RX 7900 XTX";
        # "step 5000" is none); one with letters stands alone.
        before = r"(?:rtx|gtx|geforce|quadro|titan|rx|radeon)[\s-]?" if model.isdigit() else r"(?<![A-Za-z0-9])"
        after = "".join(r"[\s-]?" + re.escape(word) for word in suffix.split())
        # The text must not go on with a model word the catalog name lacks ("RTX 2080" is not "RTX 2080 Ti", "RTX 3080
        # Ti" not "RTX 3080 Ti Laptop").
        after += r"(?![A-Za-z0-9])(?![\s-]?" + _SUFFIX_WORDS + r"(?![A-Za-z0-9]))"
        out.append(_Model(label=f"{model} {suffix}".strip(),
                          pattern=re.compile(before + re.escape(model) + after, re.IGNORECASE),
                          smallest_bytes=min(sizes.values()), bytes_by_gb=sizes))
    return tuple(out)


def _model_bytes(model: _Model, text: str, match: re.Match[str]) -> int:
    """The device memory of the variant ``text`` names by a size next to the model, else the smallest variant's."""
    for size in (_SIZE_AFTER.match(text, match.end()), _SIZE_BEFORE.search(text, max(0, match.start() - 30),
                                                                            match.start())):
        if size is not None and int(size.group(1)) in model.bytes_by_gb:
            return model.bytes_by_gb[int(size.group(1))]
    return model.smallest_bytes


def named_gpu_bytes(text: str) -> int | None:
    """The memory of the one GPU model ``text`` names, or None when it names none or several of different memory."""
    found = set()
    for model in _catalog_models():
        for match in model.pattern.finditer(text):
            found.add(_model_bytes(model, text, match))
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
