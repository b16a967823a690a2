"""PyTorch FSDP ``SHARD_GRAD_OP`` (``--sharding fsdp-grad-op``): the sharded parameters beside the unsharded ones.

``ShardingStrategy.SHARD_GRAD_OP`` "unshards before the forward, does not reshard them after the forward, and only
reshards them after the backward computation"
(https://github.com/pytorch/pytorch/blob/v2.2.0/torch/distributed/fsdp/api.py ``ShardingStrategy``). The sharded
storage is never freed: FSDP1's ``FlatParameter`` keeps its ``_local_shard`` for the whole run and all-gathers into
a separate ``_full_param_padded`` (``torch/distributed/fsdp/_flat_param.py`` ``FlatParamHandle._alloc_padded_unsharded_flat_param``,
``_use_unsharded_flat_param``); FSDP2 with ``reshard_after_forward=False`` keeps ``_sharded_param_data`` beside
``_unsharded_param`` (``torch/distributed/_composable/fsdp/_fsdp_param.py``). So from the forward to the end of
backward a rank holds every parameter unsharded (the compute copy, counted as the ZeRO-2 ``weights``) plus its
``1/N`` shard at the parameter dtype.

With a separate fp32 master (``MixedPrecision(param_dtype=bf16)`` over fp32 parameters) that shard is the fp32
parameter itself, which the ZeRO-2 accounting already counts as the sharded ``master_weights``. Without one (the
parameters already in the compute dtype: Lightning ``bf16-true``, ``bf16-pure``, or plain fp32) the shard is an
extra ``P x bytes / N`` on top of the unsharded parameters: Lightning-AI/lightning-thunder ``examples/lit-gpt``
(open_llama_3b, bf16-true, 2 GPUs, 07da9a31b) measures SHARD_GRAD_OP 3.1 GB above the single-GPU run, half the
model's 6.9 GB.

After backward the unsharded parameters are freed: each unit's post-backward hook reshards with
``free_unsharded_flat_param = _should_free_in_backward(state, handle)``, which is true for every sharded strategy
while gradients are synchronised (``state._sync_gradients or handle._sharding_strategy in
RESHARD_AFTER_FORWARD_HANDLE_STRATEGIES``; only under ``no_sync`` does SHARD_GRAD_OP keep them,
https://github.com/pytorch/pytorch/blob/v2.1.0/torch/distributed/fsdp/_runtime_utils.py ``_post_backward_reshard``,
``_should_free_in_backward``). So the optimizer step runs over the shards alone: the peak after the activations
is the later of the end of backward (unsharded parameters and every gradient shard) and the step (gradient
shards and the optimizer's temporaries, without the unsharded parameters). Lightning's FSDP guide (demo
Transformer, 1.01 B parameters, fp32, Adam, 2 x A100; docs/source-fabric/advanced/model_parallel/fsdp.rst at
6ab6ab81) measures SHARD_GRAD_OP 11.5 GiB: unsharded 3.8 + shard 1.9 + gradient shard 1.9 + Adam 3.8, not the
step's temporaries on top of the unsharded parameters.
"""

from __future__ import annotations


def grad_op_shard_bytes(rank_params: float, per_param: tuple[float, float, float, float], data_parallel: int) -> float:
    """Bytes of the sharded parameters FSDP ``SHARD_GRAD_OP`` keeps beside the unsharded ones when there is no
    separate master copy (``per_param[1] == 0``); 0 with a master (it is that shard) or on one GPU."""
    if data_parallel <= 1 or per_param[1]:
        return 0.0
    return rank_params * per_param[0] / data_parallel


def grad_op_unsharded_bytes(rank_params: float, per_param: tuple[float, float, float, float],
                            data_parallel: int) -> float:
    """Bytes of the unsharded compute-dtype parameters SHARD_GRAD_OP frees after backward (before the optimizer
    step); 0 on one GPU, where FSDP does not shard (``uses_sharded_strategy`` false)."""
    if data_parallel <= 1:
        return 0.0
    return rank_params * per_param[0]
