"""The softmax exponentials of a fused attention kernel on Blackwell, and what Blackwell Ultra's doubled SFU rate saves.

A FlashAttention-class kernel computes, for every score, two matmuls on the tensor cores (S = QK^T, then PV) and one
exponential of the softmax on the special-function units (SFU, SASS ``MUFU.EX2``); the backward pass recomputes P
from the saved row statistics, one more exponential per score, beside its five matmuls (FlashAttention-2, Dao 2023,
arXiv 2307.08691 section 3.1.2; :data:`gpudesk.sizing.speed_train.FLASH_BACKWARD_SHARE`). On Blackwell (sm_100) the
tensor cores doubled their rate over Hopper but the SFU did not, so the exponentials hold the tensor cores idle between
the two matmuls for part of every tile. Blackwell Ultra (B300 / GB300, compute capability 10.3) doubles the SFU rate
of ``MUFU.EX2`` over Blackwell; NVIDIA measured the attention forward pass (FPROP) of DeepSeek-V3 in FP8 ~35 % faster
on a GB300 than on a GB200 (NVIDIA Technical Blog, "Making Softmax More Efficient with NVIDIA Blackwell Ultra",
developer.nvidia.com/blog/making-softmax-more-efficient-with-nvidia-blackwell-ultra/, 2026).

From that measurement, with the forward time of a score = tensor-core time + the exponential time the kernel does
not hide (halved on Blackwell Ultra): ``(T8 + E) / (T8 + E / 2) = 1.35`` gives ``E`` = 0.52 and ``T8`` = 0.48 of the
FP8 forward on Blackwell. A 16-bit kernel's matmuls take twice the FP8 tensor time (``2 T8``) for the same
exponentials, its backward 2.5 times that, and a recomputed forward (activation recompute of the attention core)
adds one more forward: the share of a training step's attention time the halved exponentials save follows
(:func:`blackwell_ultra_attention_speedup`: 1.13 for forward + backward at 16 bits).

Only the kernels built for Blackwell's tensor cores (cuDNN, FlashAttention-4 class: the ``cudnn`` family of
:mod:`gpudesk.sizing.speed_train`) are paced this way; FlashAttention-2's ``mma.sync`` kernels run the tensor cores
at a fraction of their rate (~345 of 2250 TFLOPS on a B200), so the exponentials are not what they wait on.
"""

from __future__ import annotations

from gpudesk.sizing.checks import positive_float

# NVIDIA's measured GB300 / GB200 attention forward (FP8, DeepSeek-V3) and the SFU rate ratio behind it.
BLACKWELL_ULTRA_FP8_FPROP_SPEEDUP = 1.35
BLACKWELL_ULTRA_SFU_RATIO = 2.0
# Compute capability of Blackwell Ultra (sm_103: B300, GB300); sm_100 is Blackwell (B200, GB200).
BLACKWELL_ULTRA_COMPUTE_CAPABILITY = "10.3"
# Attention kernels whose tensor-core rate on Blackwell makes the softmax exponentials a pacing term.
SFU_PACED_KERNELS = ("cudnn",)


def fp8_forward_exponential_share() -> float:
    """Share of the FP8 attention forward time on Blackwell spent on exponentials the kernel does not hide (``E``),
    from NVIDIA's GB300 / GB200 forward speedup with the SFU rate doubled: ``1 / (1 - E (1 - 1/r))`` = speedup."""
    saved = 1 - 1 / BLACKWELL_ULTRA_FP8_FPROP_SPEEDUP
    return saved / (1 - 1 / BLACKWELL_ULTRA_SFU_RATIO)


def blackwell_ultra_attention_speedup(compute_capability: str, kernel: str, backward_share: float,
                                      forward_passes: float = 1.0) -> float:
    """How much faster a 16-bit training step's attention runs on ``compute_capability`` than the Blackwell rate the
    kernel efficiency was measured at: 1 except for the SFU-paced kernels (:data:`SFU_PACED_KERNELS`) on Blackwell
    Ultra.

    ``backward_share``: the backward's matmul work relative to one forward (FlashAttention: 2.5); ``forward_passes``:
    forwards per step (2 when the attention core is recomputed). Each forward and the backward carry one exponential
    per score. 1.13 for one forward and a backward at 2.5.
    """
    if compute_capability.strip() != BLACKWELL_ULTRA_COMPUTE_CAPABILITY or kernel not in SFU_PACED_KERNELS:
        return 1.0
    bwd = positive_float("backward_share", backward_share)
    fwd = positive_float("forward_passes", forward_passes)
    exponential = fp8_forward_exponential_share()
    tensor_16bit = 2 * (1 - exponential)  # the 16-bit matmuls of one forward, in FP8-forward units
    exponentials = fwd + 1  # one per score in each forward and in the backward's recomputation of P
    blackwell = (fwd + bwd) * tensor_16bit + exponentials * exponential
    ultra = (fwd + bwd) * tensor_16bit + exponentials * exponential / BLACKWELL_ULTRA_SFU_RATIO
    return blackwell / ultra


__all__ = ["BLACKWELL_ULTRA_COMPUTE_CAPABILITY", "BLACKWELL_ULTRA_FP8_FPROP_SPEEDUP", "BLACKWELL_ULTRA_SFU_RATIO",
           "SFU_PACED_KERNELS", "blackwell_ultra_attention_speedup", "fp8_forward_exponential_share"]
