"""vLLM's custom all-reduce on AMD Instinct meshes: the measured time per message size, by platform and group size.

The step model's alpha-beta all-reduce (one fixed latency plus the bytes at the link's rate) fits the one-stage
kernel at decode sizes but not vLLM's ROCm kernel above them. vLLM's ``custom_all_reduce.cuh`` runs the one-stage
algorithm (every rank reads every peer's whole buffer) at TP 2 always, at TP 4 below 512 KB and at TP 8 below
256 KB, else the two-stage one (reduce-scatter, then all-gather); on CDNA it runs that two-stage kernel on few blocks
(vllm-project/vllm PR 39080, April 2026, table "Changes", column "Before": ``effective_limit`` 16 for bytes <=
256 KB), so it stays far below the Infinity Fabric's peak at the sizes of a decode step of tens to hundreds of tokens.
Measured kernel times (microseconds; the time of a message is interpolated linearly between the points, above the
last one it grows at the last segment's rate up to the engine's 8 MiB limit, above which RCCL runs:
:data:`gpudesk.sizing.serve_rates.ENGINE_ALLREDUCE_MAX_BYTES`; below the first it is the first point):

- MI355X, TP 8 (PR 39080, column "vllm/us", BF16 messages of 4 to 256 tokens of hidden size 3072): 6.3 / 6.7 /
  7.6 / 10.0 / 13.1 / 16.0 / 24.2 us for 24 KiB / 48 KiB / 96 KiB / 192 KiB / 384 KiB / 768 KiB / 1.5 MiB, i.e.
  1-21 % of the link's 537.6 GB/s: the kernel, not the link, sets the time (the PR makes it up to 47 % faster on the
  same links by giving it more blocks).
- MI300-series (MI300X / MI325X UBB mesh), TP 2: ROCm/aiter PR 801 ("add quick allreduce", 2025), column
  "vllm cr" of its float16 table at tp2: 7.07 us at 4 KiB ... 49.67 us at 2 MiB, 181.43 us at 8 MiB.
- MI300-series, TP 4: vllm-project/vllm PR 19744 ("add quick all reduce for rocm", June 2025; the kernel is
  enabled "only on AMD, MI300"), column "baseline" (vLLM's custom all-reduce) of its TP=4 table: 7.18 us at 2 KB
  ... 36.64 us at 2 MB, 118.31 us at 8 MB.
- MI300-series, TP 8: no measurement was found. At TP 8 the two-stage kernel is kernel-bound (above), and the MI300X
  and MI355X run the same ``custom_all_reduce.cuh`` on CUs of similar count and clock (304 at 2.1 GHz, 256 at 2.4
  GHz), so the MI355X TP 8 curve is taken. Cross-check on the MI300X's own curves: at equal bytes per link (the
  two-stage kernel moves 2 x message / n over each of its n - 1 links, the one-stage one the whole message), TP 4
  takes 1.26-1.34 x the time TP 2 takes at half the message (1-8 MiB at TP 4); going from TP 4 to TP 8 as from TP 2 to TP 4 (the
  per-size fit ``a + b x bytes per link`` of the two curves) gives 20 us at 1 MiB and 30 us at 2 MiB, against 19 and
  30 us on the MI355X curve.

Other engines and links keep the alpha-beta model (no measurement of them was found).
"""

from __future__ import annotations

from gpudesk.catalog.records import Link

KIB = 1024
MIB = 1024 * KIB
# The MI355X TP 8 measurement (module docstring), also taken for the MI300-series mesh at TP 8.
_CDNA_TP8 = ((24 * KIB, 6.3e-6), (48 * KIB, 6.7e-6), (96 * KIB, 7.6e-6), (192 * KIB, 10.0e-6),
             (384 * KIB, 13.1e-6), (768 * KIB, 16.0e-6), (1536 * KIB, 24.2e-6))
# (link id, tensor-parallel size) -> (message bytes, seconds) of one all-reduce of vLLM's custom kernel.
VLLM_ROCM_ALLREDUCE_S: dict[tuple[str, int], tuple[tuple[float, float], ...]] = {
    ("amd-if-mi355x", 8): _CDNA_TP8,
    ("amd-if-mi300x", 8): _CDNA_TP8,
    ("amd-if-mi300x", 2): ((4 * KIB, 7.07e-6), (8 * KIB, 7.58e-6), (16 * KIB, 7.53e-6), (32 * KIB, 7.30e-6),
                           (64 * KIB, 7.66e-6), (128 * KIB, 8.70e-6), (256 * KIB, 11.45e-6), (512 * KIB, 17.13e-6),
                           (1 * MIB, 28.15e-6), (2 * MIB, 49.67e-6), (4 * MIB, 93.79e-6), (8 * MIB, 181.43e-6)),
    ("amd-if-mi300x", 4): ((2 * KIB, 7.18e-6), (16 * KIB, 7.26e-6), (32 * KIB, 7.58e-6), (256 * KIB, 14.39e-6),
                           (512 * KIB, 14.65e-6), (1 * MIB, 22.91e-6), (2 * MIB, 36.64e-6), (4 * MIB, 63.86e-6),
                           (8 * MIB, 118.31e-6)),
}
ROCM_ALLREDUCE_SOURCE = (
    "vLLM ROCm custom all-reduce measured per message size: 8 x MI355X, 24 KiB - 1.5 MiB: 6.3 - 24.2 us "
    "(https://github.com/vllm-project/vllm/pull/39080, columns 'Before' and 'vllm/us'; also taken for MI300X at TP 8); "
    "MI300 TP 2, 4 KiB - 8 MiB: 7.07 - 181.43 us (https://github.com/ROCm/aiter/pull/801, column 'vllm cr'); MI300 "
    "TP 4, 2 KB - 8 MB: 7.18 - 118.31 us (https://github.com/vllm-project/vllm/pull/19744, column 'baseline')")


def rocm_allreduce_curve(engine: str, link: Link | None, tp: int,
                         gpus_per_node: int | None = None) -> tuple[tuple[float, float], ...]:
    """The measured (message bytes, seconds) points of the engine's all-reduce over ``tp`` GPUs joined by ``link``
    (module constants), or () where none was measured (other engines, group sizes or links, several nodes)."""
    if engine.lower() != "vllm" or link is None:
        return ()
    if gpus_per_node and tp > gpus_per_node:
        return ()
    return VLLM_ROCM_ALLREDUCE_S.get((link.id, tp), ())


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
