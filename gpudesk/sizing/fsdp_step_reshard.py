"""What PyTorch FSDP (``FULL_SHARD``) holds unsharded once backward is over: the last unit, then nothing.

During forward and backward FSDP keeps a block or two gathered (:func:`gpudesk.sizing.memory_train.
fsdp_gathered_bytes`). Every unit is resharded in its post-backward hook, the root included, because
``FULL_SHARD`` frees the unsharded parameter after backward whatever it does after forward (FSDP1
``_runtime_utils.py`` ``_post_backward_reshard`` -> ``_should_free_in_backward``: a sharded strategy under
``_sync_gradients``; FSDP2 ``FSDPParamGroup.post_backward`` calls ``reshard()``; torch v2.4.0,
https://github.com/pytorch/pytorch/tree/v2.4.0/torch/distributed/fsdp). So:

- at the end of backward the unit whose backward runs last is still gathered with its unsharded gradient: the
  root unit of the embeddings (FSDP1's root ``FlatParameter``: what the auto-wrap policy leaves out; FSDP2 the
  embedding's unit), or the whole model when no auto-wrap policy split it (``root_only``);
- at ``optimizer.step()`` only the shards exist: the step's temporaries (foreach AdamW) sit beside the sharded
  states and gradients with no gathered parameter at all.

The reserved figure still holds the gathered units. PyTorch's caching allocator keeps a freed block in the pool
of the stream that allocated it and serves a request only from blocks of the request's own stream
(``c10/cuda/CUDACachingAllocator.cpp``: ``BlockPool`` ordered by ``(stream, size)``; ``get_free_block`` matches
``stream``), and FSDP allocates the unsharded parameters on its all-gather stream (FSDP1
``_runtime_utils._unshard``: ``handle.unshard()`` under ``state._unshard_stream``; FSDP2 ``foreach_all_gather``
under its all-gather stream), so the optimizer step, on the default stream, cannot reuse them. The units'
unsharded gradients are counted with them, as the estimate did before this module was written (whether the step
reuses those default-stream blocks is not established here). So the reserved figure is the resident states +
the gathered units + the larger of backward's working set and the step's, whichever moment holds the allocated
peak: ``fsdp_stream_cache`` is that less the allocated peak (zero when the peak is in backward).
"""

from __future__ import annotations

from gpudesk.sizing.shapes import ModelSpec


def fsdp_end_of_backward_gathered_bytes(spec: ModelSpec, per_param: tuple[float, float, float, float],
                                        tensor_parallel: int = 1, root_only: bool = False) -> float:
    """Bytes FSDP holds unsharded at the end of backward, per GPU: the last unit's gathered parameters at the
    compute dtype and its unsharded gradient (the embedding unit, or the whole model with ``root_only``).

    ``per_param`` is (weights, master, gradients, states) bytes a parameter, as
    :func:`gpudesk.sizing.optimizers.optimizer_bytes_per_param` gives them.
    """
    compute = min(per_param[0], 2.0) if per_param[1] else per_param[0]
    params = spec.params if root_only else spec.embedding_params
    return params * (compute + per_param[2]) / max(1, tensor_parallel)


def step_phase_bytes(step_temporaries: float, end_gathered: float) -> tuple[float, float]:
    """(step temporaries, gathered) alive at the later of the two moments after backward, whichever is larger:
    the end of backward (the last unit gathered, no step yet) or the optimizer step (its temporaries, nothing
    gathered)."""
    if end_gathered > step_temporaries:
        return 0.0, end_gathered
    return step_temporaries, 0.0



def fsdp_stream_cache_bytes(*, gathered_bytes: float, fwd_bwd_bytes: float, step_bytes: float,
                            after_backward_bytes: float) -> float:
    """Reserved-only bytes of an FSDP step beyond its allocated peak (module docstring), per GPU.

    Args:
        gathered_bytes: the units gathered at once during forward and backward (parameters and their unsharded
            gradients, :func:`gpudesk.sizing.memory_train.fsdp_gathered_bytes`).
        fwd_bwd_bytes: backward's working set beside them (activations, logits, the gradients then alive).
        step_bytes: the optimizer step's (every gradient shard and the step's temporaries).
        after_backward_bytes: what is alive at the later of the end of backward and the step
            (:func:`step_phase_bytes` added to the gradients).
    """
    pools = gathered_bytes + max(fwd_bwd_bytes, step_bytes)
    allocated = max(fwd_bwd_bytes + gathered_bytes, after_backward_bytes)
    return max(0.0, pools - allocated)
