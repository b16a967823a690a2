"""Gradients accumulated and reduced in fp32 beside 16-bit parameters (``--fp32-grad-buffer``).

Megatron-LM with ``--bf16`` forces ``accumulate_allreduce_grads_in_fp32`` ("bfloat16 requires gradient accumulation
and all-reduce to be done in fp32", https://github.com/NVIDIA/Megatron-LM/blob/core_v0.6.0/megatron/training/arguments.py
lines 281-285), and Megatron-Core's ``DistributedDataParallel`` then gives every parameter an fp32 ``main_grad`` in
its contiguous gradient buffer (``grad_dtype = torch.float if accumulate_allreduce_grads_in_fp32 else param.dtype``,
megatron/core/distributed/distributed_data_parallel.py line 105 at core_v0.6.0); the distributed optimizer shards
the fp32 master weights and the Adam states, not that buffer. The gradients are then 4 bytes a parameter where a
16-bit accounting counts 2; the optimizer step needs no fp32 copy of them (the main-gradient shard is already fp32).
"""

from __future__ import annotations

FP32_GRAD_BYTES = 4.0


def with_fp32_grads(per_param: tuple[float, float, float, float], fp32_grad_buffer: bool
                    ) -> tuple[float, float, float, float]:
    """``(weights, master, gradients, states)`` bytes a parameter, the gradients at 4 bytes when they live in an
    fp32 buffer (module docstring); unchanged otherwise or when they are already 4 bytes or more."""
    if not fp32_grad_buffer or per_param[2] >= FP32_GRAD_BYTES:
        return per_param
    return per_param[0], per_param[1], FP32_GRAD_BYTES, per_param[3]
