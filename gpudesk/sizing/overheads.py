"""Fixed and proportional overheads on top of the tensors a job allocates, with their sources.

- CUDA context: 300-400 MB (pytorch#20532), ~300 MB with CUDA >= 11.7 lazy loading (pytorch#107667),
  ~534 MiB per primary context on H100 (torchcomms#777); gpu_poor assumes 650 MB, vram-calculator 1000 MiB.
  Default 0.5 GiB (oom.md 1.2 recommendation).
- NCCL communicator buffers: hundreds of MB to > 1 GiB per communicator (oom.md 1.2); default 0.5 GiB per GPU,
  counted only when the job spans more than one GPU.
- Inference runtime non-PyTorch memory and CUDA-graph pools: vLLM PR 21489 reports 0.07 GiB non-torch and
  0.65 GiB CUDA-graph memory for an 8B model; default 0.75 GiB, counted for serving engines (paged KV cache)
  only: a plain PyTorch ``generate`` keeps nothing but the CUDA context outside the allocator.
- Fragmentation: 5 % of the working set (vllm-project/compressed-tensors PR 587 replaced a flat 1 GB with 5 %
  of model memory after the OOM in oom-cases.jsonl line 11).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gpudesk.i18n import _
from gpudesk.sizing.checks import fraction, positive_float

from gpudesk.units import GIB, MIB
# CUDA context when every kernel module is loaded at start-up (CUDA < 11.7, or CUDA_MODULE_LOADING=EAGER):
# transformers' memory-anatomy guide measured 1343 MB for ``torch.ones((1, 1)).to("cuda")`` alone
# (https://huggingface.co/docs/transformers/model_memory_anatomy). Lazy loading (CUDA >= 11.7, PyTorch >= 2.0
# default) keeps it near the 0.5 GiB default.
EAGER_MODULE_LOADING_CONTEXT_BYTES = 1343 * MIB
# The same eager context of a CUDA 10.x build (PyTorch <= 1.8 "+cu10x" wheels, cuDNN 7, cuBLAS 10): its libraries
# hold far fewer kernel images than CUDA 11's (cuDNN 8, cuBLAS/cuBLASLt 11), and eager loading puts all of those
# for the card's architecture in the context. pytorch/pytorch#49877: a 156.25 MiB tensor (a 158 MiB caching-allocator
# block) showed 1035 MiB in nvidia-smi on a GTX 2080 Ti with PyTorch 1.6.0+cu101 (877 MiB beyond it) and 1644 MiB on
# an RTX 3090 with 1.7.1+cu110; pytorch/pytorch#55277: ``torch.Tensor(1).cuda()`` 721 MB on a GTX 1080 with
# 1.8.2+cu101, 1687 MB on an RTX 3090 with 1.8.2+cu111. The Turing figure is taken (the Pascal one is 156 MiB lower:
# the context also holds only the card's own architecture's images).
EAGER_CUDA10_CONTEXT_BYTES = 877 * MIB
# CUDA major versions a PyTorch build can name; lazy loading needs 11.7 or later.
CUDA_MAJOR_VERSIONS = (10, 11, 12, 13)


def eager_context_bytes(cuda_major_version: int) -> int:
    """The CUDA context with every kernel module loaded at start-up, for a build on that CUDA major version
    (10 or earlier: :data:`EAGER_CUDA10_CONTEXT_BYTES`; 11 and later: :data:`EAGER_MODULE_LOADING_CONTEXT_BYTES`)."""
    return EAGER_CUDA10_CONTEXT_BYTES if cuda_major_version <= 10 else EAGER_MODULE_LOADING_CONTEXT_BYTES


@dataclass(frozen=True)
class Overheads:
    """Editable overhead assumptions (bytes and fractions)."""

    cuda_context_bytes: int = GIB // 2
    nccl_bytes_per_gpu: int = GIB // 2
    inference_runtime_bytes: int = 3 * GIB // 4
    fragmentation_fraction: float = 0.05

    def validated(self) -> Overheads:
        """Return self after checking every field.

        Raises:
            SizingError: a negative size, or a fragmentation fraction outside [0, 1].
        """
        positive_float("cuda_context_bytes", self.cuda_context_bytes, allow_zero=True)
        positive_float("nccl_bytes_per_gpu", self.nccl_bytes_per_gpu, allow_zero=True)
        positive_float("inference_runtime_bytes", self.inference_runtime_bytes, allow_zero=True)
        fraction("fragmentation_fraction", self.fragmentation_fraction)
        return self


OVERHEAD_SOURCES: tuple[tuple[str, str], ...] = (
    ("CUDA context 0.5 GiB per GPU", "pytorch/pytorch#20532, #107667; meta-pytorch/torchcomms#777"),
    ("NCCL buffers 0.5 GiB per GPU when the job spans GPUs", "oom.md 1.2 (NCCL: hundreds of MB to >1 GiB per communicator)"),
    ("fragmentation headroom 5 % of the working set", "vllm-project/compressed-tensors PR 587"),
)


def add_overheads(parts: dict[str, float], overheads: Overheads, gpus: int, inference: bool = False,
                  extra_nccl_bytes: float = 0.0,
                  extra_nccl_notes: Sequence[tuple[str, str]] = ()) -> list[tuple[str, str]]:
    """Add ``cuda_context``, ``framework_overhead`` and ``fragmentation`` to ``parts`` in place.

    Fragmentation is taken on the tensors already in ``parts`` that the caching allocator holds (paged optimizer
    states are CUDA unified memory, outside it). ``extra_nccl_bytes``: NCCL buffers the parallel layout holds beyond
    the job's own communicator (expert parallelism's all-to-all and groups,
    :func:`gpudesk.sizing.train_expert_parallel.expert_nccl_bytes`), with their ``extra_nccl_notes``; counted when
    the job spans GPUs. Returns the (assumption, source) pairs used.
    """
    working = sum(v for k, v in parts.items() if k != "paged_optimizer_states")
    parts["cuda_context"] = overheads.cuda_context_bytes
    framework: float = 0
    # OVERHEAD_SOURCES in the current language.
    notes = (_("CUDA context 0.5 GiB per GPU"), _("NCCL buffers 0.5 GiB per GPU when the job spans GPUs"),
             _("fragmentation headroom 5 % of the working set"))
    used = [(notes[0], OVERHEAD_SOURCES[0][1])]
    if inference:
        framework += overheads.inference_runtime_bytes
        used.append((_("inference runtime: non-PyTorch memory + CUDA graphs 0.75 GiB"), "vllm-project/vllm PR 21489"))
    if gpus > 1:
        framework += overheads.nccl_bytes_per_gpu
        used.append((notes[1], OVERHEAD_SOURCES[1][1]))
        if extra_nccl_bytes > 0:
            framework += extra_nccl_bytes
            used.extend(extra_nccl_notes)
    parts["framework_overhead"] = framework
    parts["fragmentation"] = working * overheads.fragmentation_fraction
    used.append((notes[2], OVERHEAD_SOURCES[2][1]))
    return used
