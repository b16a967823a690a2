"""vLLM's routed experts on CDNA 4 with AITER on: the fused-MoE kernel's measured time per MoE layer.

With ``VLLM_ROCM_USE_AITER=1`` (and ``VLLM_ROCM_USE_AITER_MOE``, on by default) vLLM hands an FP8 MoE layer's routed
experts to AITER's ``fused_moe`` (ROCm/vllm at f8c9a3852, 2025-08-28:
vllm/model_executor/layers/fused_moe/rocm_aiter_fused_moe.py ``is_rocm_aiter_moe_enabled``,
``rocm_aiter_fused_experts``; quantization/fp8.py ``Fp8MoEMethod`` uses it when enabled; block-quantized w8a8 is
AITER's ``QuantType.per_1x128``). AITER's tuner measures that call (stage 1 + stage 2, or the one-stage assembly
kernel) for each expert shape, token count and compute-unit count and keeps the fastest kernel's time in column
``us`` of its tuned tables (ROCm/aiter ``csrc/ck_gemm_moe_2stages_codegen/gemm_moe_tune.py``; the tables in
``aiter/configs/model_configs/``, read at ROCm/aiter commit e4048607a5). The tuner routes every one of its
``token`` rows to ``topk`` of the table's ``expert`` experts (``fused_topk`` over random scores), so a table row
with T tokens is one call computing T x topk (token, expert) pairs on that GPU.

Measured shape used here: the Qwen3-235B-A22B expert-parallel slice, block FP8 (``a8w8_blockscale_tuned_fmoe_
qwen3_235b.csv``, cu_num 256 = MI350X / MI355X: model_dim 4096, inter_dim 1536, 16 experts on the GPU, top-8), i.e.
128 routed experts of 4096 x 1536 spread whole over 8 GPUs. At 1-8 tuner tokens (8-64 pairs) the call takes
44.5-65.7 us, about 20 us more than its experts' weights take to stream at the HBM rate (across the folder's FP8
and BF16 tables on gfx950 the call's time is the touched experts' bytes at ~6.2 TB/s plus 17-26 us); at 512-4096
tuner tokens it computes 0.8-0.85 PFLOPS, about a sixth of the FP8 dense peak, i.e. well under the dense GEMM rate.
The table was retuned after the rows' images were built (2025-11 and 2026 tuning PRs): an older AITER is at best
this fast. The measured call is the block-scaled one (``per_1x128``, the Qwen3-235B-A22B-FP8 checkpoint's 128 x 128
blocks); ``fp8`` experts are charged it whatever their scaling, as no per-tensor table of the shape was published.

The step's pairs on one GPU: ``tokens x top-k / expert-parallel size`` (the average rank: a GPU receives the pairs
routed to its experts). The measured time per MoE layer replaces the routed experts' modelled part where longer:
their weight stream, their matmul at the dense rate and the fused MoE's own kernels at the small-kernel floor
(GEMM 1, activation, GEMM 2, top-k sum: AITER fuses the activation into stage 1 and the weighted sum into stage 2).
Other shapes are not charged: the DeepSeek-V3 table's rows above 512 tokens repeat one time (359 us from 1024 to
32768 tokens, beyond the FP8 peak), and no BF16 table of the Llama 4 expert shapes was published.
"""

from __future__ import annotations

from gpudesk.catalog.records import GPU
from gpudesk.i18n import _
from gpudesk.sizing.speed_common import Assumption, raw
from gpudesk.units import format_duration

AITER_MOE_ARCHITECTURES = ("CDNA 4",)
AITER_MOE_COMPUTE_UNITS = 256  # the table's cu_num: MI350X / MI355X
AITER_MOE_WEIGHT_FORMATS = ("fp8",)
# the fused-MoE call's kernels the measured time includes, of the routed-MoE block's kernels (serve_rates.MOE_KERNELS)
AITER_MOE_FLOOR_KERNELS = 4
# (hidden, expert width, experts per GPU, top-k) -> ((pairs on the GPU, seconds per MoE layer), ...): the table's
# ``us`` at tuner tokens 1, 8, 64, 512, 4096, 32768, times top-k 8 pairs per token.
QWEN3_235B_EP_SHAPE = (4096, 1536, 16, 8)
AITER_FUSED_MOE_S_BY_PAIRS: dict[tuple[int, int, int, int], tuple[tuple[float, float], ...]] = {
    QWEN3_235B_EP_SHAPE: ((8, 44.4733e-6), (64, 65.7221e-6), (512, 90.7483e-6), (4096, 249.0736e-6),
                          (32768, 1471.2664e-6), (262144, 10403.6177e-6)),
}
AITER_MOE_SOURCE = ("vLLM with VLLM_ROCM_USE_AITER=1 runs FP8 routed experts through AITER fused_moe (ROCm/vllm "
                    "rocm_aiter_fused_moe.py, fp8.py Fp8MoEMethod); AITER's tuned time per call, "
                    "aiter/configs/model_configs/a8w8_blockscale_tuned_fmoe_qwen3_235b.csv, cu_num 256 "
                    "(https://github.com/ROCm/aiter)")


def aiter_moe_points(engine: str, rocm_aiter: bool | None, gpu: GPU, compute_units: int, weight_format: str,
                     hidden: int, expert_width: int, experts: int, active_experts: int, tp: int,
                     expert_parallel: int) -> tuple[tuple[float, float], ...]:
    """The measured (pairs on a GPU, seconds per MoE layer) points of the AITER fused-MoE call this layout runs, or
    () where none was measured (module docstring): vLLM with AITER switched on, a CDNA 4 GPU with the table's compute
    units, FP8 experts, and the expert shape each GPU holds (the whole expert under expert parallelism, a
    ``1 / tp`` slice of its width otherwise) equal to a measured one."""
    if (engine.lower() != "vllm" or rocm_aiter is not True or gpu.vendor.upper() != "AMD"
            or gpu.architecture not in AITER_MOE_ARCHITECTURES or compute_units != AITER_MOE_COMPUTE_UNITS
            or weight_format.lower() not in AITER_MOE_WEIGHT_FORMATS or not experts or not active_experts):
        return ()
    if expert_parallel > 1:
        if experts % expert_parallel:
            return ()
        shape = (hidden, expert_width, experts // expert_parallel, active_experts)
    else:
        if expert_width % tp:
            return ()
        shape = (hidden, expert_width // tp, experts, active_experts)
    return AITER_FUSED_MOE_S_BY_PAIRS.get(shape, ())


def aiter_moe_layer_s(points: tuple[tuple[float, float], ...], pairs: float) -> float:
    """Seconds of one MoE layer's fused-MoE call computing ``pairs`` (token, expert) pairs on the GPU: linear
    between the measured points, the first point's time below it, in proportion to the pairs above the last."""
    if pairs <= 0 or not points:
        return 0.0
    if pairs <= points[0][0]:
        return points[0][1]
    for (low_pairs, low_s), (high_pairs, high_s) in zip(points, points[1:]):
        if pairs <= high_pairs:
            return low_s + (high_s - low_s) * (pairs - low_pairs) / (high_pairs - low_pairs)
    return points[-1][1] * pairs / points[-1][0]


def aiter_moe_assumption(points: tuple[tuple[float, float], ...]) -> Assumption:
    """The assumption a step model shows for the measured ``points``: the first (a decode step) and the fourth (512
    tuner tokens, a prefill), or the last of a shorter table."""
    few_pairs, few_s = points[0]
    many_pairs, many_s = points[min(3, len(points) - 1)]
    return Assumption("rocm_aiter_moe_layer_s", _(
        "routed experts through AITER's fused MoE at its measured time: {decode} per MoE layer at {few} "
        "(token, expert) pairs per GPU, {prefill} at {many}").format(
        decode=format_duration(few_s), few=int(few_pairs), prefill=format_duration(many_s), many=int(many_pairs)),
        AITER_MOE_SOURCE, raw(layer_s_at_first_pairs=few_s, first_pairs=few_pairs,
                              layer_s_at_fourth_pairs=many_s, fourth_pairs=many_pairs))
