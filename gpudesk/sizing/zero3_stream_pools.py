"""DeepSpeed ZeRO-3 gathers parameters and reduces gradients on side CUDA streams: what that does to the peaks.

With ``overlap_comm`` (on by default under ZeRO-3: ``DeepSpeedZeroConfig.overlap_comm_valid`` sets it to ``stage ==
3`` when the config leaves it out, deepspeed/runtime/zero/config.py at v0.13.1) DeepSpeed runs two streams beside
the default one:

- the all-gather stream (``DeepSpeedZeRoOffload.__allgather_stream``, parameter_offload.py at v0.13.1 lines
  257-258): ``PartitionedParameterCoordinator.__all_gather_params_`` issues ``all_gather_coalesced`` ``with
  get_accelerator().stream(self.__allgather_stream)`` (partitioned_param_coordinator.py at v0.13.1 lines 431-447),
  so every gathered (unpartitioned) parameter is allocated on that stream;
- the reduce stream (``DeepSpeedZeroOptimizer_Stage3.reduce_and_partition_stream``, stage3.py at v0.13.1 lines
  226-227): ``__reduce_and_partition_ipg_grads`` runs under it, and its ``__avg_scatter_grads`` ->
  ``reduce_scatter_coalesced`` concatenates the bucket's gradients into one flat buffer of the bucket's size before
  the reduce-scatter (``torch.cat(tensor_partitions_lst_with_padding)``, deepspeed/runtime/comm/
  coalesced_collectives.py at v0.13.1 lines 73-117).

PyTorch's caching allocator serves a request only from blocks of the requesting stream's pool and keeps freed
blocks cached in that pool (``c10/cuda/CUDACachingAllocator.cpp``: ``BlockPool`` ordered by ``(stream, size)``,
``get_free_block`` matches the stream). So:

- **allocated**: at the end of backward every gathered parameter has been released (``param.partition()`` in
  ``__release_param``; only the ``ds_persist`` ones stay), so the optimizer step runs beside the resident states,
  the persistent parameters and the ipg bucket (``__ipg_bucket_flat_buffer``, allocated once at init), but not
  beside the gathered window;
- **reserved**: the pools of the three streams each keep their own peak: the all-gather stream's (the gathered
  window), the reduce stream's (one flat bucket of gradients) and the default stream's (the larger of backward's
  working set and the optimizer step's). The reserved figure is their sum over the resident states, whichever of
  them holds the allocated peak.

PyTorch FSDP is modelled separately (gpudesk.sizing.fsdp_step_reshard).
"""

from __future__ import annotations


def zero3_stream_cache_bytes(*, window_bytes: float, reduce_pool_bytes: float, fwd_bwd_bytes: float,
                             step_bytes: float) -> float:
    """Bytes the caching allocator reserves beyond the allocated peak of a DeepSpeed ZeRO-3 step (module docstring).

    Args:
        window_bytes: the gathered parameters at their peak (the all-gather stream's pool).
        reduce_pool_bytes: one flat reduce bucket of gradients (the reduce stream's pool).
        fwd_bwd_bytes: the default stream's working set in forward/backward beside the gathered window
            (activations, logits, gradients alive).
        step_bytes: the default stream's working set at the optimizer step (gradients and the step's temporaries).

    The allocated peak is ``max(fwd_bwd + window, step)`` over the resident states; the reserved one is ``window +
    reduce pool + max(fwd_bwd, step)``.
    """
    allocated = max(fwd_bwd_bytes + window_bytes, step_bytes)
    reserved = window_bytes + reduce_pool_bytes + max(fwd_bwd_bytes, step_bytes)
    return max(0.0, reserved - allocated)
