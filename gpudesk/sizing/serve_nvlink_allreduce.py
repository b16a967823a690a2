"""vLLM's custom all-reduce on NVLink: the measured time per message size at decode sizes, by group size.

The step model's alpha-beta all-reduce (:mod:`gpudesk.sizing.serve_step`: the 512-byte latency plus the one-shot
bytes at the link's rate) takes the 512-byte point of a measured table and the link's datasheet rate for the rest.
The same table measures the kernel at larger messages, where it is slower than the link's rate would make it: the
one-shot kernel (every rank reads every peer's whole buffer, vLLM ``csrc/custom_all_reduce.cuh``
``cross_device_reduce_1stage``) runs on a few dozen blocks whose loads, not the NVLink, set the time, and the
two-shot one above 256 KiB at TP 8 / 512 KiB at TP 4 adds a second barrier.

vLLM custom all-reduce on 8 x H100 SXM (NVLink 4), latency of one call, BF16, sgl-project/sglang PR 2904
(https://github.com/sgl-project/sglang/pull/2904, table "vllm", measured with ``tests/test_trt_reduce.py``):

| bytes     | TP 2    | TP 4    | TP 8    |
| ---       | ---     | ---     | ---     |
| 512       | 9.5 us  | 9.1 us  | 10.1 us |
| 4096      | 8.8 us  | 8.5 us  | 9.3 us  |
| 32768     | 8.7 us  | 9.2 us  | 11.8 us |
| 262144    | 12.9 us | 20.6 us | 24.1 us |
| 524288    | 17.7 us | 26.9 us | 30.4 us |
| 1048576   | 26.6 us | 40.2 us | 45.0 us |

A decode step of 1 to 16 tokens of a 8192-wide model all-reduces 16 KiB to 256 KiB: 10-24 us at TP 8 against
10.4-15 us from the alpha-beta form. Between the points the time is interpolated linearly; above the last point it
grows as the alpha-beta form does (the link's rate, then the collective library's measured curve above 8 MiB), so
the prompt-sized all-reduces keep the bandwidth the model had. No other NVIDIA GPU was measured at these sizes; the
H100 table applies to every NVLink group of up to 8 GPUs in one node, as its 512-byte point already did.

Only vLLM runs this kernel (``vllm/distributed/device_communicators/custom_all_reduce.py``); the same PR measures
SGLang's own kernel of that time faster (5.9 us at 512 B, 16.7 us at 256 KiB at TP 8) and TensorRT-LLM runs its own
all-reduce kernels, so other engines keep the alpha-beta form (no measurement per engine version in hand).
"""

from __future__ import annotations

import math

#: (message bytes, seconds) of one all-reduce of vLLM's custom kernel on H100 NVLink by group size (module table).
VLLM_NVLINK_ALLREDUCE_S: dict[int, tuple[tuple[float, float], ...]] = {
    2: ((512, 9.5e-6), (4096, 8.8e-6), (32768, 8.7e-6), (262144, 12.9e-6), (524288, 17.7e-6), (1048576, 26.6e-6)),
    4: ((512, 9.1e-6), (4096, 8.5e-6), (32768, 9.2e-6), (262144, 20.6e-6), (524288, 26.9e-6), (1048576, 40.2e-6)),
    8: ((512, 10.1e-6), (4096, 9.3e-6), (32768, 11.8e-6), (262144, 24.1e-6), (524288, 30.4e-6),
        (1048576, 45.0e-6)),
}
NVLINK_ALLREDUCE_SOURCE = ("vLLM custom all-reduce on 8 x H100 NVLink, 512 B - 1 MiB at TP 2 / 4 / 8: 9.5 - 26.6 / "
                           "9.1 - 40.2 / 10.1 - 45.0 us (https://github.com/sgl-project/sglang/pull/2904, table "
                           "'vllm')")


def nvlink_allreduce_curve(tp: int) -> tuple[tuple[float, float], ...]:
    """The measured (message bytes, seconds) points of the custom all-reduce over ``tp`` NVLink GPUs of one node
    (module table; the next measured group size above ``tp``), or () above 8 GPUs."""
    for size in sorted(VLLM_NVLINK_ALLREDUCE_S):
        if tp <= size:
            return VLLM_NVLINK_ALLREDUCE_S[size]
    return ()


# The rank skew a real step adds to every all-reduce. The tables above time the kernel in a loop on idle GPUs, where
# every rank enters each call together; in a model step each rank enters when its own GEMMs of the layer are done, and
# the one-shot kernel's start barrier holds every rank until the slowest arrives, so the kernel a trace shows on one
# rank lasts the copy plus that rank's wait for the last one. With the ranks' arrival times spread like independent
# draws of one spread, the wait is that of the latest of n draws less the rank's own: the expected maximum of n
# standard normal draws (0.564 at 2, 1.029 at 4, 1.424 at 8; Bose & Gupta, Biometrika 46 (1959), table of the moments
# of order statistics) times the spread.
#
# The spread at 8 GPUs: SGLang serving Devstral-2-123B (88 layers, hidden 12288) at TP 8 on 8 x B200, a torch-profiler
# kernel table over five forwards (BBuf/AI-Infra-Auto-Driven-SKILLS issue 1,
# https://github.com/BBuf/AI-Infra-Auto-Driven-SKILLS/issues/1): ``cross_device_reduce_1stage<bf16, 8>`` 19.73 ms in 885
# launches (5 x (2 x 88 + 1)), 22.3 us each, all one-shot (< 256 KiB, so decode-sized); the same one-shot kernel
# (SGLang's is vLLM's copy) takes 11.8 us at 32 KiB over 8 x H100 in PR 2904's loop. The 10.5 us more in the model is
# the wait: a spread of 10.5 / 1.424 = 7.4 us.
IN_MODEL_ALLREDUCE_S = 19.73e-3 / 885
LOOP_ALLREDUCE_S = 11.8e-6
RANK_SKEW_GPUS = 8
#: Expected maximum of n independent standard normal draws (Bose & Gupta 1959).
NORMAL_MAX = {2: 0.5642, 3: 0.8463, 4: 1.0294, 5: 1.1630, 6: 1.2672, 7: 1.3522, 8: 1.4236}
RANK_SPREAD_S = (IN_MODEL_ALLREDUCE_S - LOOP_ALLREDUCE_S) / NORMAL_MAX[RANK_SKEW_GPUS]
RANK_SKEW_SOURCE = ("rank skew: one-shot all-reduce 22.3 us per call inside SGLang's Devstral-2-123B TP 8 step on "
                    "8 x B200 (https://github.com/BBuf/AI-Infra-Auto-Driven-SKILLS/issues/1: 19.73 ms / 885 "
                    "launches) against 11.8 us in PR 2904's loop; expected maximum of n normal arrivals (Bose & Gupta, "
                    "Biometrika 1959)")


def rank_skew_s(tp: int) -> float:
    """Seconds one rank waits at an all-reduce of a model step for the slowest of ``tp`` ranks (module note); above
    the tabulated sizes the expected maximum grows as sqrt(2 ln n)."""
    if tp <= 1:
        return 0.0
    spread = NORMAL_MAX.get(tp, math.sqrt(2 * math.log(tp)) - (math.log(math.log(tp)) + math.log(4 * math.pi))
                            / (2 * math.sqrt(2 * math.log(tp))))
    return RANK_SPREAD_S * spread
