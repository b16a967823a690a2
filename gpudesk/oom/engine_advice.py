"""Fixes in the terms of the engine or platform that printed the message.

The rules reason from the memory account and name a cause; when the OOM happened inside a serving engine or
on a non-CUDA platform, the first fix is that engine's or platform's knob (TGI's token budgets, vLLM's
utilization, SGLang's static fraction, ROCm's allocator variable) rather than the training advice.
"""

from __future__ import annotations

from gpudesk import i18n
from gpudesk.i18n import N_
from gpudesk.oom.cause import Cause
from gpudesk.oom.report import MemoryReport
from gpudesk.oom.rules.fragmentation import CUDA_ALLOC_CONF, HIP_ALLOC_CONF

_SHORTAGE_FIX = {
    "tgi": N_("Lower TGI's token budgets: --max-batch-total-tokens and --max-batch-prefill-tokens (or "
              "--max-total-tokens per request); TGI sizes them at warm-up from the memory left after the weights"),
    "vllm": N_("Lower vLLM's peak: --max-num-seqs and --max-num-batched-tokens, or --gpu-memory-utilization if "
               "another process shares the GPU"),
    "sglang": N_("Lower --mem-fraction-static by 0.05 (it leaves total × (1 − fraction) for activations and CUDA "
                 "graphs), or --chunked-prefill-size / --cuda-graph-max-bs"),
    "trtllm": N_("Lower kv_cache_free_gpu_mem_fraction or rebuild with a smaller max_batch_size / max_num_tokens"),
}


def apply(report: MemoryReport, causes: list[Cause]) -> None:
    """Rewrite the fixes of ``causes`` in place for ``report.engine`` / ``report.platform``."""
    cuda_conf, hip_conf = i18n._(CUDA_ALLOC_CONF), i18n._(HIP_ALLOC_CONF)  # as the rules wrote them
    for cause in causes:
        if report.platform == "rocm":
            cause.fix = cause.fix.replace(cuda_conf, hip_conf)
            cause.more_fixes = [m.replace(cuda_conf, hip_conf) for m in cause.more_fixes]
        if cause.id == "genuine_shortage" and report.engine in _SHORTAGE_FIX and report.kind.startswith(
                ("pytorch_", "cuda_")):
            cause.more_fixes = [cause.fix] + [m for m in cause.more_fixes if m != cause.fix]
            cause.fix = i18n._(_SHORTAGE_FIX[report.engine])
