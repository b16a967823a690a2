"""Gradients accumulated and reduced in fp32 beside 16-bit parameters (``--fp32-grad-buffer``).

Megatron-LM with ``--bf16`` forces ``accumulate_allreduce_grads_in_fp32`` ("bfloat16 requires gradient accumulation
and all-reduce to be done in fp32", https://github.com/NVIDIA/Megatron-LM/blob/core_v0.6.0/megatron/training/arguments.py
lines 281-285), and Megatron-Core's ``DistributedDataParallel`` then gives every parameter an fp32 ``main_grad`` in
its contiguous gradient buffer (``grad_dtype = torch.float if accumulate_allreduce_grads_in_fp32 else param.dtype``,
megatron/core/distributed/distributed_data_parallel.py line 105 at core_v0.6.0); the distributed optimizer shards
the fp32 master weights and the Adam states, not that buffer. The gradients are then 4 bytes a parameter where a
16-bit accounting counts 2; the optimizer step needs no fp32 copy of them (the main-gradient shard is already fp32).

The buffer is allocated once, with the model, and never freed: ``_ParamAndGradBuffer.__init__`` makes
``self.grad_data = torch.zeros(self.numel, dtype=self.grad_dtype, ...)`` and points every ``param.main_grad`` at a
view of it, and ``zero_grad_buffer`` only zeroes it (``reset``: ``self.grad_data.zero_()``) --
https://github.com/NVIDIA/Megatron-LM/blob/001199898c4badd01eaf0785c212d8ed7ce83042/megatron/core/distributed/param_and_grad_buffer.py
(the same allocation at core_v0.6.0, ``megatron/core/distributed/param_and_grad_buffer.py`` ``ParamAndGradBuffer``).
So the whole buffer is alive through every forward and backward, not only from the backward that fills it as
PyTorch's ``param.grad`` is (:func:`resident_grad_buffer`). The buffer is also the all-reduce / reduce-scatter
storage: ``_new_bucket`` hands each bucket ``grad_data`` as a view into it (``self._get(..., BufferType.GRAD)``, same
file), so plain data parallelism keeps no second, PyTorch-DDP-style bucket copy of the gradients
(:func:`gpudesk.sizing.memory_train.ddp_bucket_bytes` with ``bucket_view``). Data: open-sci-ref's Megatron-LM 1.7B log prints
``allocated: 9909.08`` MiB between iterations on 252 data-parallel ranks: 2 bytes a parameter of bf16 weights + 4 of
this buffer + the 12/252 sharded fp32 states (1,713,735,680 parameters: 9,884 MiB).
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


def resident_grad_buffer(fp32_grad_buffer: bool, stage: str, fsdp: bool, offload: str) -> bool:
    """Whether the fp32 gradient buffer holds every gradient for the whole run (module docstring): with plain data
    parallelism (``stage`` ``ddp``) or the distributed optimizer (``zero1``: it shards the master weights and the
    Adam states, the buffer stays whole on every rank), not under FSDP or an offloaded optimizer, whose gradients
    are shards that the framework makes and frees itself."""
    return fp32_grad_buffer and stage in ("ddp", "zero1") and not fsdp and offload == "none"
