"""GPU gradient buffers of DeepSpeed ZeRO-2: the reduce bucket, and what optimizer offload (ZeRO-Offload) keeps.

Every ZeRO-2 backward (``partition_gradients`` with ``contiguous_gradients``, on by default) copies each gradient
into the IPG bucket: ``DeepSpeedZeroOptimizer.backward()`` allocates ``ipg_buffer`` of ``reduce_bucket_size``
elements of the 16-bit dtype before ``loss.backward()`` and ``_release_ipg_buffers`` frees it once backward's
reductions are done, so it sits beside the activations at the start of backward and is gone by the optimizer step.
``reduce_bucket_size`` is DeepSpeed's 5e8 elements by default (about 0.93 GiB at fp16/bf16, whatever the model's
size); a second buffer comes only with ``overlap_comm``, off by default below ZeRO-3. Frameworks that fill the
config set other sizes (HF Trainer's ``"auto"``: hidden_size squared, transformers ``integrations/deepspeed.py``
``HfTrainerDeepSpeedConfig.trainer_config_finalize`` fills ``zero_optimization.reduce_bucket_size`` with
``hidden_size * hidden_size``, as accelerate does for a config file's ``"auto"``, v0.21.0 8514c351 ``accelerator.py``
lines 1479-1493; Lightning's ``deepspeed_stage_2``: ``DeepSpeedStrategy(reduce_bucket_size=2e8)`` with
``overlap_comm``, two buffers): DeepSpeed's own default is counted unless ``zero2_reduce_bucket``
(``--zero2-reduce-bucket``, full training under ``sharding="zero2"`` only) gives the size in elements. Unlike
ZeRO-3's sizes (``--zero3-defaults``, default ``hf-auto``), the unset ZeRO-2 bucket keeps DeepSpeed's 5e8: that is
what a config without the key gets, and filling hidden_size^2 for every row that leaves it out would drop the
measured Lightning and plain-DeepSpeed ZeRO-2 rows (memfix40 notes); a framework's fill is typed as the number it
writes.

With ``offload_optimizer: {device: cpu}`` the fp32 master partition, its gradient and the Adam moments live in
host memory, but DeepSpeed's ``DeepSpeedZeroOptimizer`` still holds, or briefly creates, these on the GPU
(``deepspeed/runtime/zero/stage_1_and_2.py`` at v0.14.2, commit 5f631abc2f930ecece38fae05dc9bd3923c555dd):

* ``temp_grad_buffer_for_gpu_offload``: ``torch.zeros(largest_param_numel, dtype=self.dtype)`` on the GPU,
  allocated in ``__init__`` when ``cpu_offload`` is set and never freed: the largest single parameter (the
  vocabulary table of a language model) at the 16-bit dtype, resident from the engine's start.
* the IPG bucket: ``backward()`` allocates ``ipg_buffer`` of ``reduce_bucket_size`` elements of ``self.dtype``
  (``contiguous_gradients`` is forced on with ``cpu_offload``; one buffer, a second only with ``overlap_comm``,
  which defaults to False below ZeRO-3, ``runtime/zero/config.py`` ``overlap_comm_valid``) and releases it after
  backward (``_release_ipg_buffers``). ``reduce_bucket_size`` defaults to 5e8 elements
  (``DeepSpeedZeroConfig.reduce_bucket_size``): about 0.93 GiB at fp16, whatever the model's size.
* the 16-bit gradient of a parameter exists on the GPU until its bucket is reduced and copied to the host
  (``async_inplace_copy_grad_to_fp32_buffer_from_gpu`` sets ``param.grad = None`` only then); a parameter larger
  than the bucket (``extra_large_param_to_reduce``: the vocabulary table) is reduced from its own gradient, so
  that gradient, the largest parameter's, is alive beside the bucket in backward.
* ``async_inplace_copy_grad_to_fp32_buffer_from_gpu`` casts this rank's slice of that gradient with
  ``src_tensor.float()`` on the GPU before the non-blocking copy to the pinned host buffer: an fp32 temporary of
  up to ``min(largest parameter, P / N)`` elements. An untied LM head's gradient is the first of backward, so this
  happens while the loss's gradients are still alive; a tied embedding's gradient is only complete at the end of
  backward (autograd sums both uses before ``AccumulateGrad``), when the activations are gone.
* ``step()``: ``bit16_partitions[partition_id].data.copy_(fp32_partition.to(current_device))``: the updated fp32
  master partition (``P / N`` x 4 bytes) is moved to the GPU as a whole before it is cast into the fp16 weights.

ZeRO-1 with offload goes through the same class but is not modelled here (no measured case); ZeRO-3 offload is
``stage3.py`` (:mod:`gpudesk.sizing.zero3_params`). PyTorch FSDP's CPU offload is a different mechanism.
"""
from __future__ import annotations

from dataclasses import dataclass

from gpudesk.sizing.shapes import ModelSpec

# DeepSpeedZeroConfig.reduce_bucket_size default (runtime/zero/config.py, v0.14.2): 5e8 elements.
DEFAULT_REDUCE_BUCKET_ELEMENTS = 500_000_000
_FP32 = 4.0


@dataclass(frozen=True)
class Zero2OffloadBuffers:
    """Bytes on one GPU: ``resident`` from the engine's start; ``bucket``, ``head_grad`` and ``head_fp32`` beside
    the activations in backward (``head_fp32`` zero when the copy happens at the end of backward instead);
    ``end_of_backward`` the same moment's extra when it falls after the activations are freed; ``step`` the fp32
    master partition moved to the GPU at the optimizer step."""

    resident: float
    bucket: float
    head_grad: float
    head_fp32: float
    end_of_backward: float
    step: float


def applies(stage: str, offload: str, fsdp: bool, pipeline_parallel: int) -> bool:
    """DeepSpeed ZeRO-2 with only the optimizer offloaded (not FSDP, not under a pipeline engine)."""
    return stage == "zero2" and offload == "optimizer" and not fsdp and pipeline_parallel == 1


def bucket_applies(stage: str, offload: str, fsdp: bool, sharding_name: str, pipeline_parallel: int) -> bool:
    """DeepSpeed ZeRO-2 without offload (the offload path counts the bucket in :func:`zero2_offload_buffers`); not
    PyTorch FSDP SHARD_GRAD_OP (also counted as ZeRO-2), not under a pipeline engine (its own buffers)."""
    return (stage == "zero2" and offload == "none" and not fsdp and sharding_name != "fsdp-grad-op"
            and pipeline_parallel == 1)


def zero2_reduce_bucket_bytes(bit16_bytes: float,
                              reduce_bucket_elements: int = DEFAULT_REDUCE_BUCKET_ELEMENTS) -> float:
    """The IPG bucket's bytes during backward: one ``reduce_bucket_size`` buffer at the 16-bit dtype (fp32 runs
    keep their gradients in fp32)."""
    return reduce_bucket_elements * bit16_bytes


def zero2_offload_buffers(spec: ModelSpec, rank_params: float, data_parallel: int, bit16_bytes: float,
                          tensor_parallel: int = 1,
                          reduce_bucket_elements: int = DEFAULT_REDUCE_BUCKET_ELEMENTS) -> Zero2OffloadBuffers:
    """The GPU buffers of ZeRO-2 optimizer offload (module docstring) for one rank holding ``rank_params``."""
    largest = spec.largest_layer_params / max(1, tensor_parallel)
    partition = rank_params / max(1, data_parallel)
    head_grad = largest * bit16_bytes
    fp32_slice = min(largest, partition) * _FP32
    bucket = zero2_reduce_bucket_bytes(bit16_bytes, reduce_bucket_elements)
    untied_head = bool(spec.vocab_size) and not spec.tied_embeddings and spec.kind != "encoder"
    return Zero2OffloadBuffers(
        resident=largest * bit16_bytes,
        bucket=bucket,
        head_grad=head_grad,
        head_fp32=fp32_slice if untied_head else 0.0,
        end_of_backward=bucket + head_grad + fp32_slice,
        step=partition * _FP32,
    )
