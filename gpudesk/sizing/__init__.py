"""Pure sizing formulas (no Qt, no I/O except reading a local config.json): bytes and seconds.

Public API::

    from gpudesk.sizing import (
        ModelSpec, spec_from_catalog, spec_from_params, spec_from_hf_config, parse_param_count,
        MemoryWorkload, estimate_memory, MemoryEstimate,           # one call for any mode
        train_memory, lora_memory, inference_memory,                # the per-mode formulas
        kv_bytes_per_token, kv_cache_blocks, lora_trainable_params, weight_bytes,
        fit, Fit, reported_total_bytes, Overheads,
        SizingError, ShapeError, ConfigFileError,
    )

Modules: shapes (model shapes), memory_train / memory_lora / memory_inference / activations (memory), optimizers
(optimizer names and bytes per parameter), validation (the estimator against published measured peaks),
peer_formulas (accelerate and DeepSpeed formulas on the same rows),
capacity (usable memory and the safe line), time (FLOPs, collectives, throughput), dtypes, overheads.
Training speed: speed_train (``TrainSetup``, ``TrainSpeed``, ``train_speed``), speed_parallel (bubble, collective
volumes, links), speed_train_cases (published runs), speed_validation (the harness), speed_bands (expected error
band by class).
Serving speed: speed_serve (``ServeLoad``, ``ServeSpeed``, ``serve_speed``), serve_load, serve_engine (the engine's
memory budget and scheduler settings), serve_step (time of one engine step), serve_rates (measured rates per
GPU, vendor and link), serve_host (the engine's CPU time per step and its overlap with the GPU), serve_sched
(continuous-batching scheduler simulation), speed_serve_cases (published runs).
Every formula's docstring cites its paper or datasheet.
"""

from gpudesk.sizing.capacity import Fit, fit, reported_total_bytes
from gpudesk.sizing.errors import ConfigFileError, ShapeError, SizingError
from gpudesk.sizing.estimate import COMPONENT_ORDER, MemoryEstimate
from gpudesk.sizing.memory import MODES, MemoryWorkload, estimate_memory
from gpudesk.sizing.memory_inference import inference_memory, kv_bytes_per_token, kv_cache_blocks, weight_bytes
from gpudesk.sizing.memory_lora import lora_memory, lora_trainable_params
from gpudesk.sizing.memory_train import OPTIMIZER_ACCOUNTING, SHARDING_MODES, train_memory
from gpudesk.sizing.overheads import Overheads
from gpudesk.sizing.shapes import ModelSpec, parse_param_count, spec_from_catalog, spec_from_hf_config, spec_from_params

__all__ = [
    "COMPONENT_ORDER", "ConfigFileError", "Fit", "MODES", "MemoryEstimate", "MemoryWorkload", "ModelSpec",
    "OPTIMIZER_ACCOUNTING", "Overheads", "SHARDING_MODES", "ShapeError", "SizingError", "estimate_memory", "fit",
    "inference_memory", "kv_bytes_per_token", "kv_cache_blocks", "lora_memory", "lora_trainable_params",
    "parse_param_count", "reported_total_bytes", "spec_from_catalog", "spec_from_hf_config", "spec_from_params",
    "train_memory", "weight_bytes",
]
