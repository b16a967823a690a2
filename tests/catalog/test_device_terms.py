"""The one word for a device in prose: GPU, NPU (Ascend), HPU (Gaudi), MLU (Cambricon), TPU (qafix4 item 2)."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.catalog.device_terms import device_term, in_device_terms, vendor_device_term


def test_every_catalog_card_gets_its_vendors_word() -> None:
    terms = {g.id: vendor_device_term(g.vendor, g.architecture) for g in open_catalog().gpus()}
    assert terms["gaudi2"] == terms["gaudi3"] == "HPU"
    assert terms["ascend-910b"] == terms["ascend-910c"] == "NPU"
    assert terms["mlu370-x8"] == "MLU"
    assert terms["h100-sxm5"] == terms["mi300x"] == terms["rtx4090"] == "GPU"
    assert {t for g, t in terms.items() if not g.startswith(("gaudi", "ascend", "mlu"))} == {"GPU"}


def test_oom_platforms_map_through_the_same_table() -> None:
    assert [device_term(p) for p in ("hpu", "npu", "tpu", "cuda", "rocm", "xpu", "mps", None)] == [
        "HPU", "NPU", "TPU", "GPU", "GPU", "GPU", "GPU", "GPU"]


@pytest.mark.parametrize(("term", "text", "expected"), [
    ("HPU", "Use a GPU with more memory.", "Use an HPU with more memory."),
    ("NPU", "A GPU holds it; 8 GPUs; multi-GPU", "An NPU holds it; 8 NPUs; multi-NPU"),
    ("TPU", "a GPU", "a TPU"),
    # other vendors' GPUs, integrated GPUs and identifiers stay as written
    ("HPU", "below every NVIDIA GPU measured; an integrated GPU; --query-gpu; iGPU",
     "below every NVIDIA GPU measured; an integrated GPU; --query-gpu; iGPU"),
    ("HPU", "使用显存更大的 GPU。", "使用显存更大的 HPU。"),
    ("GPU", "Use a GPU", "Use a GPU"),
])
def test_in_device_terms(term: str, text: str, expected: str) -> None:
    assert in_device_terms(text, term) == expected
