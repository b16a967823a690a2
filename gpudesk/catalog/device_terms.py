"""What an accelerator is called in prose: GPU, or its vendor's own word (NPU, HPU, MLU, TPU).

The one table behind every text that names the device (plan rationale, OOM causes and fixes). It is keyed on the
PyTorch device type each vendor's stack registers, which is also the OOM doctor's ``MemoryReport.platform``:

* Huawei Ascend: ``torch.npu`` (torch_npu, Ascend Extension for PyTorch); Huawei calls the parts NPUs (Neural
  Processing Units; Ascend docs, ``npu-smi``).
* Intel Gaudi: ``torch.hpu`` (habana_frameworks.torch); Intel Gaudi docs call the card an HPU (Habana Processing
  Unit). Intel's GPUs (Arc, Data Center GPU Max) are ``torch.xpu`` and stay GPUs.
* Cambricon: ``torch.mlu`` (torch_mlu); Cambricon calls its parts MLUs (Machine Learning Units).
* Google Cloud TPU: ``torch_xla`` / JAX; TPUs.

A catalog card maps to its device type by vendor (and, for Intel, its architecture: the catalog's Intel rows are
the Gaudi 2 and Gaudi 3, architecture "Gaudi 2" / "Gaudi 3"). Commands and identifiers (``nvidia-smi``,
``CUDA_VISIBLE_DEVICES``) are swapped elsewhere (:mod:`gpudesk.oom.stack_terms`); this module only names the device.
"""

from __future__ import annotations

import re

#: PyTorch device type -> the word for one device in prose; every other type (cuda, rocm, xpu, mps ...) is a GPU.
DEVICE_TERMS: dict[str, str] = {"npu": "NPU", "hpu": "HPU", "mlu": "MLU", "tpu": "TPU"}
GPU_TERM = "GPU"

#: "GPU" / "GPUs" as a word, not where the text names another vendor's GPUs or an integrated one ("NVIDIA GPU",
#: "integrated GPU"), which stay GPUs whatever device the text is about. Upper case only: ``--query-gpu`` and
#: ``num_gpu`` are identifiers.
_GPU_WORD = re.compile(r"(?<!NVIDIA )(?<!AMD )(?<!Intel )(?<!integrated )(?<!discrete )\b(?:([Aa]) )?GPU(s?)\b")
#: Letters whose English name starts with a vowel sound: "an HPU", "an NPU", "an MLU" (but "a TPU").
_AN_LETTERS = frozenset("AEFHILMNORSX")


def device_type(vendor: str, architecture: str = "") -> str:
    """The PyTorch device type of a catalog card from its ``vendor`` and ``architecture`` (``npu``, ``hpu``,
    ``mlu``, ``tpu``; ``cuda`` for NVIDIA and AMD's ROCm builds, ``xpu`` for Intel GPUs)."""
    v = vendor.strip().lower()
    if v == "huawei":
        return "npu"
    if v == "intel":
        return "hpu" if architecture.strip().lower().startswith("gaudi") else "xpu"
    if v == "cambricon":
        return "mlu"
    if v == "google":
        return "tpu"
    return "cuda"


def device_term(platform: str | None) -> str:
    """The word for one device of PyTorch device type / OOM platform ``platform`` ("GPU" for any other)."""
    return DEVICE_TERMS.get((platform or "").strip().lower(), GPU_TERM)


def vendor_device_term(vendor: str, architecture: str = "") -> str:
    """The word for one catalog card of ``vendor`` / ``architecture`` ("NPU" for Huawei Ascend, "HPU" for Gaudi)."""
    return device_term(device_type(vendor, architecture))


def in_device_terms(text: str, term: str) -> str:
    """``text`` (English or translated: the zh_CN catalog keeps "GPU" as a word) with the device called ``term``
    instead of "GPU"; unchanged for "GPU"."""
    if term == GPU_TERM or not text:
        return text
    article = "an" if term[:1] in _AN_LETTERS else "a"

    def word(m: re.Match[str]) -> str:
        lead = "" if m.group(1) is None else (article if m.group(1) == "a" else article.capitalize()) + " "
        return lead + term + m.group(2)

    return _GPU_WORD.sub(word, text)
