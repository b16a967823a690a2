"""Other estimators' formulas, evaluated on the same validation rows so the user can compare (model states only;
neither counts activations).

- Hugging Face accelerate ``accelerate estimate-memory``: "Training using Adam" is four times the model size in
  the chosen dtype (weights, gradients and two Adam states), for one GPU
  (https://github.com/huggingface/accelerate/blob/main/src/accelerate/commands/estimate.py).
- DeepSpeed ``estimate_zero2_model_states_mem_needs``: ``4P + 16P/N`` per GPU (``4P`` with CPU offload), and
  ``estimate_zero3_model_states_mem_needs``: ``4*largest_layer + 18P/N`` (``4*largest_layer`` with parameter and
  optimizer offload) (https://github.com/deepspeedai/DeepSpeed/blob/master/deepspeed/runtime/zero/stage_1_and_2.py,
  .../zero/stage3.py).
"""

from __future__ import annotations

from gpudesk.sizing.shapes import ModelSpec


def accelerate_training_bytes(spec: ModelSpec, precision: str) -> float:
    """accelerate's "Training using Adam": 4 x the model size in the training dtype (fp32: 16 B/param, 16-bit: 8)."""
    bytes_per_param = 4.0 if precision in ("fp32", "fp16-amp", "bf16-amp") else 2.0
    return 4.0 * bytes_per_param * spec.params


def deepspeed_model_states_bytes(spec: ModelSpec, gpus: int, sharding: str, offload: str = "none") -> float:
    """DeepSpeed's per-GPU model-state estimate for ZeRO-2 (also used for DDP / one GPU) or ZeRO-3 / FSDP."""
    n = max(1, gpus)
    p = float(spec.params)
    if sharding in ("zero3", "fsdp"):
        largest = 4.0 * spec.largest_layer_params
        if offload == "all":
            return largest
        if offload == "optimizer":
            return largest + 2.0 * p / n
        return largest + 18.0 * p / n
    if offload != "none":
        return 4.0 * p
    return 4.0 * p + 16.0 * p / n
