"""vLLM's custom all-reduce on CDNA 4 (MI355X) at tensor-parallel 8: the measured time per message size.

The step model's alpha-beta all-reduce (one fixed latency plus the bytes at the link's rate) fits the one-stage
kernel at decode sizes but not vLLM's ROCm kernel above them: at TP 8 it switches to its two-stage algorithm above
64 KB and runs messages up to 256 KB on 16 blocks only (vllm-project/vllm PR 39080, April 2026, table "Changes",
column "Before": ``effective_limit`` 16 for bytes <= 256 KB, "1stage if bytes<=64KB" at TP <= 8), so it stays far
below the Infinity Fabric's 537.6 GB/s (7 x 76.8 GB/s) at the sizes of a decode step of tens to hundreds of tokens.
The same PR measures the kernel vLLM ships (column "vllm/us") on 8 x MI355X, BF16 messages of 4 to 256 tokens of
hidden size 3072: 6.3 / 6.7 / 7.6 / 10.0 / 13.1 / 16.0 / 24.2 us for 24 KiB / 48 KiB / 96 KiB / 192 KiB / 384 KiB /
768 KiB / 1.5 MiB, i.e. 1-21 % of the link's peak. The time of a message is interpolated linearly between these
points; above the last one it grows at the last segment's rate up to the engine's 8 MiB limit (larger messages go to
RCCL, :data:`gpudesk.sizing.serve_rates.ENGINE_ALLREDUCE_MAX_BYTES`); below the first it is the first point.

Only vLLM at TP 8 on the MI355X platform's Infinity Fabric is measured; other group sizes, MI300X and other
engines keep the alpha-beta model (no measurement of them was found).
"""

from __future__ import annotations

from gpudesk.catalog.records import Link

KIB = 1024
# (message bytes, seconds) of one all-reduce, vLLM custom all-reduce at TP 8 on MI355X (module docstring).
VLLM_ROCM_TP8_ALLREDUCE_S: dict[str, tuple[tuple[float, float], ...]] = {
    "amd-if-mi355x": ((24 * KIB, 6.3e-6), (48 * KIB, 6.7e-6), (96 * KIB, 7.6e-6), (192 * KIB, 10.0e-6),
                      (384 * KIB, 13.1e-6), (768 * KIB, 16.0e-6), (1536 * KIB, 24.2e-6)),
}
MEASURED_TP = 8
ROCM_ALLREDUCE_SOURCE = (
    "vLLM ROCm custom all-reduce measured on 8 x MI355X, 24 KiB - 1.5 MiB: 6.3 - 24.2 us; two-stage above 64 KB "
    "at TP 8, 16 blocks up to 256 KB (https://github.com/vllm-project/vllm/pull/39080, columns 'Before' and "
    "'vllm/us')")


def rocm_allreduce_curve(engine: str, link: Link | None, tp: int,
                         gpus_per_node: int | None = None) -> tuple[tuple[float, float], ...]:
    """The measured (message bytes, seconds) points of the engine's all-reduce over ``tp`` GPUs joined by ``link``
    (module constants), or () where none was measured (other engines, group sizes or links, several nodes)."""
    if engine.lower() != "vllm" or link is None or tp != MEASURED_TP:
        return ()
    if gpus_per_node and tp > gpus_per_node:
        return ()
    return VLLM_ROCM_TP8_ALLREDUCE_S.get(link.id, ())


def curve_allreduce_s(curve: tuple[tuple[float, float], ...], message_bytes: float) -> float:
    """Seconds of one all-reduce of ``message_bytes`` on a measured ``curve`` (linear between its points, the first
    point below them, the last segment's rate above them)."""
    if message_bytes <= curve[0][0]:
        return curve[0][1]
    for (low_bytes, low_s), (high_bytes, high_s) in zip(curve, curve[1:]):
        if message_bytes <= high_bytes:
            return low_s + (high_s - low_s) * (message_bytes - low_bytes) / (high_bytes - low_bytes)
    (low_bytes, low_s), (high_bytes, high_s) = curve[-2], curve[-1]
    return high_s + (high_s - low_s) * (message_bytes - high_bytes) / (high_bytes - low_bytes)
