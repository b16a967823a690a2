"""DeepSpeed ZeRO-3 keeps the whole gradient partition of the rank on the GPU for the run.

``DeepSpeedZeroOptimizer_Stage3.__init__`` allocates ``grad_partitions_flat_buffer``, one flat tensor of
``sum(p.partition_numel())`` elements over every trainable parameter, and maps each parameter's gradient partition
onto a view of it (``__param_id_to_grad_partition``); ``partition_grads`` copies (first micro-step) or adds each
reduce-scattered gradient into that view. The buffer is created once and never freed, so the 16-bit gradient
partition occupies the GPU from the first step on, also without gradient accumulation and also at the start of
backward, when no gradient has been computed yet:
https://github.com/deepspeedai/DeepSpeed/blob/v0.11.1/deepspeed/runtime/zero/stage3.py (lines 467-482, and
``partition_grads``), the same at v0.6.5 (``grad_partitions_flat_buffer``, ``dtype=self.dtype``) and v0.14.2.
Its dtype is ``gradient_accumulation_dtype``, which ``DeepSpeedEngine.get_data_types`` sets to the model's 16-bit
dtype under ZeRO unless ``data_types.grad_accum_dtype`` says otherwise (v0.11.1 ``engine.py``): the per-parameter
gradient bytes of the precision. With ``offload_optimizer`` the stage's ``self.device`` is the CPU and the buffer
is pinned host memory (nothing on the GPU).

PyTorch FSDP has no such buffer: its sharded gradients appear as backward reduce-scatters them.
"""

from __future__ import annotations


def zero3_resident_grad_partition(sharding: str, fsdp: bool, offload: str) -> bool:
    """Whether the rank's whole gradient partition is resident on the GPU for the run (module docstring):
    DeepSpeed ZeRO-3 (not PyTorch FSDP) without optimizer offload."""
    return sharding == "zero3" and not fsdp and offload == "none"
