"""The memory of a GPU a text names by its model (gpudesk/oom/named_gpu.py), read from the bundled catalog: the cards
users name in OOM threads (issues 24, 27, 28), their Ti/SUPER/XT/XTX and laptop variants, and boards of several GPUs."""

from __future__ import annotations

import pytest

from gpudesk.oom import diagnose_text
from gpudesk.oom.named_gpu import named_gpu_bytes

GiB = 1024**3


@pytest.mark.parametrize(("text", "gib"), [
    ("CUDA out of memory on my NVIDIA GeForce RTX 2080 Ti", 11),
    ("training on a Tesla P40 with llama.cpp", 24),
    ("g5.xlarge (A10G)", 24),
    ("ROCm on a Radeon RX 7900 XTX", 24),
    ("ROCm on a Radeon RX 7900 XT", 20),
    ("4x MI50 in a 4U box", 16),
    ("MI50 32GB", 32),
    ("RTX 2080Ti", 11),
    ("RTX 2080", 8),
    ("RTX 3060 Ti", 8),
    ("RTX 3060 12 GB", 12),
    ("a 12 GB RTX 3060", 12),
    ("RTX 3060", 8),  # 8 GB and 12 GB cards exist: the reading that claims the least
    ("RTX 3080 12GB", 12),
    ("RTX 4070 Ti SUPER", 16),
    ("RTX 4060 Ti 16 GB", 16),
    ("RTX 4060 with 8 GB", 8),
    ("NVIDIA TITAN RTX", 24),
    ("a 12 GB Titan V", 12),
    ("Tesla K80", 12),  # two 12 GB GPUs on the board: the OOM message is one device's
    ("NVIDIA A16", 16),
    ("RTX 4000 Ada", 20),
    ("4 Tesla P100-PCIE-16GB", 16),
    ("A100-SXM4-80GB", 80),
])
def test_a_named_card_gives_its_device_memory(text, gib):
    assert named_gpu_bytes(text) == gib * GiB


@pytest.mark.parametrize("text", [
    "RTX 4090 Laptop GPU",  # 16 GB, not the 24 GB desktop card
    "RTX 3080 Ti laptop",
    "Quadro RTX 4000",  # 8 GB Turing card, not the RTX 4000 Ada
    "RTX 4070 Ti",  # not in the catalog; the 4070 Ti SUPER is another card
    "RX 7900",  # XT or XTX
    "step 5000 of 10000",
    "an RTX 4080 and a GTX 1080 Ti",  # two cards of different memory
])
def test_no_memory_when_the_text_names_no_catalog_card_or_several(text):
    assert named_gpu_bytes(text) is None


def test_a_request_above_the_named_card_is_one_that_never_fits():
    # The PyTorch message without its capacity part; the card is named in the user's words.
    text = ("RuntimeError: CUDA out of memory. Tried to allocate 12.00 GiB\n"
            "Training on an NVIDIA GeForce RTX 2080 Ti.")
    d = diagnose_text(text)
    assert d.top.id == "single_allocation_exceeds_capacity"
    assert "11" in d.top.explanation
    # The same request on a 24 GB card is not larger than the card.
    bigger = diagnose_text(text.replace("NVIDIA GeForce RTX 2080 Ti", "Tesla P40"))
    assert bigger.top.id != "single_allocation_exceeds_capacity"
