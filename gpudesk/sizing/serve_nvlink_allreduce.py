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
