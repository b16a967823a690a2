"""DeepSpeed ZeRO-3 over a model built outside ``deepspeed.zero.Init``: autograd keeps every gathered Linear weight.

ZeRO-3 frees a module's gathered parameters after its forward by pointing ``param.data`` at an empty tensor
(``free_param``, ``deepspeed/runtime/zero/partition_parameters.py`` lines 279-289 at v0.14.2, 5f631abc). That
releases the gathered storage only if nothing else refers to it. PyTorch's ``F.linear`` does: its matmul saves the
transposed weight ``weight.t()`` for the input's gradient (``mm``: ``mat2`` saved when ``self`` requires grad,
``tools/autograd/derivatives.yaml``), a view that holds the gathered storage itself, so every Linear weight gathered
in a grad-enabled forward stays allocated until that Linear's backward. DeepSpeed avoids this by replacing
``torch.nn.functional.linear`` with ``zero3_linear_wrap`` (``LinearFunctionForZeroStage3``, ``deepspeed/runtime/zero/
linear.py``: "Instead of saving variables using save_for_backward, we save variable ids ... Which allows for
underlying tensor to be garbage collected"), and it does so only in ``zero.Init``'s ``patch_init_and_builtins``
(``partition_parameters.py`` lines 550-560 at v0.14.2; ``mem_efficient_linear`` defaults to True), run when the
context is entered. A model built outside the context is partitioned later by the stage-3 optimizer
(``parameter_offload.py`` ``_convert_to_zero_parameters`` -> ``Init(module=module)``, which converts the
parameters without entering the context, lines 186-204 at v0.14.2), so ``F.linear`` stays PyTorch's own.

DeepSpeed's maintainers describe the same retention and changed this path in v0.19.4 (PR #8189, commit 617061d6,
2026-07-31, "Enable ZeRO-3 linear wrapper for existing models": "Without the wrapper, the standard Linear
implementation can retain the gathered weight storage until backward completes, significantly increasing memory
usage"; ``Init(module=...)`` now calls ``_enable_mem_efficient_linear``). From v0.19.4 a model built outside keeps
only the engine's start below; the setting here models the releases before it (the gpjt rows ran v0.14.2). The same
retention happens inside ``zero.Init`` whenever the wrapper is off: ``zero_optimization.memory_efficient_linear:
false``, or DeepSpeed's own ``compile`` enabled (``partition_parameters.py`` lines 911-917 at v0.14.2); neither is a
setting here yet.

When the model is built outside: Hugging Face ``from_pretrained`` enters ``zero.Init`` only when
``is_deepspeed_zero3_enabled()`` is true, i.e. when an ``HfDeepSpeedConfig`` (created by ``TrainingArguments`` with
``deepspeed=``, or by hand) is alive (``transformers/integrations/deepspeed.py`` ``set_hf_deepspeed_config``: a
global weakref set in ``HfDeepSpeedConfig.__init__``; read at 02348331, the same logic since 4.30). A script that
calls ``from_pretrained`` before it creates ``TrainingArguments`` (gpjt/fine-tune-2024-04
``sequence-length-memory-modeling-8B/measure_memory_usage_for_sequence_length.py``), a model built by hand before
``deepspeed.initialize``, or Accelerate with ``zero3_init_flag`` off, trains this way.

What is counted: at the turn from forward to backward every non-persistent Linear weight that ran with grad enabled
is gathered at once at the compute dtype: every layer's and the LM head without activation checkpointing; with
full (reentrant) checkpointing the layers' forward runs under ``no_grad`` and only the LM head, outside the
checkpointed blocks, is kept (a recomputed layer's own weights are the coordinator's window). The embedding lookup
saves no weight. The coordinator's own window (:mod:`gpudesk.sizing.zero3_params`) is the same storage for the
modules it has not released, so only what exceeds it is added. On one GPU without parameter offload nothing is
gathered (``all_gather_coalesced`` points ``param.data`` at the partition, ``_no_gather_coalesced``): nothing to add.

The engine's start is a phase of its own. ``DeepSpeedEngine._configure_distributed_model`` casts a module that has
no ZeRO-3 parameters (``is_zero_init_model`` false) with ``self.module.half()`` / ``.bfloat16()`` and moves all of it
to the GPU (``self.module.to(self.device)``, ``deepspeed/runtime/engine.py`` lines 1094-1112 at v0.14.2) before the
stage-3 optimizer partitions it: every GPU holds the whole model at the compute dtype for a moment (a 70B model
needs 140 GB on each GPU). The allocated peak is the larger of that and training's (:func:`add_engine_start_model`);
the optimizer's states are created after the partitioning has freed the whole copy. Without parameter offload
``defragment`` then empties the cache (``stage3.py`` lines 526-551, 691-697 at v0.14.2); with it the cache keeps
the freed blocks, which training reuses, so the reserved peak is the same larger of the two.

Checked on PyTorch 2.13 (CPU): after ``w.data = torch.empty(0)`` on a weight that ``F.linear`` used,
``MmBackward0._saved_mat2`` still holds the weight's full storage; an ``autograd.Function`` that saves the
parameter itself (DeepSpeed's ``LinearFunctionForZeroStage3``) sees the empty tensor.
"""

from __future__ import annotations

from gpudesk.i18n import _
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.estimate import add_phase_excess
from gpudesk.sizing.shapes import ModelSpec
from gpudesk.sizing.zero3_params import Zero3Settings, _layer_modules, _vocab_table, peak_gathered_params

SOURCE = ("deepspeed/runtime/zero/linear.py LinearFunctionForZeroStage3; partition_parameters.py "
          "patch_init_and_builtins (F.linear -> zero3_linear_wrap), free_param (v0.14.2, 5f631abc); "
          "tools/autograd/derivatives.yaml mm (mat2 saved); gpudesk.sizing.zero3_outside_init")


def check_zero3_outside_init(outside_init: bool, mode: str, sharding: str) -> None:
    """Refuse a model built outside ``zero.Init`` away from DeepSpeed ZeRO-3 training (full or LoRA).

    Raises:
        SizingError: (field ``zero3_outside_init``) set with another sharding or mode.
    """
    if outside_init and not (mode in ("train", "lora") and sharding == "zero3"):
        raise SizingError("zero3_outside_init", _(
            "a model built outside deepspeed.zero.Init applies to full training or LoRA with sharding zero3."))


def retained_linear_params(spec: ModelSpec, settings: Zero3Settings, recompute: str, tensor_parallel: int = 1) -> int:
    """Elements of the Linear weights autograd keeps gathered at the turn from forward to backward (module
    docstring): every layer's and the LM head's without full recompute, the LM head's alone with it. Modules below
    the persistence threshold are never partitioned and are left out (already resident)."""
    _reuse, _live, _prefetch, persist, _reduce = settings.resolved(spec.hidden_size or 0)
    head = _vocab_table(spec, tensor_parallel)
    kept = head if head >= persist else 0
    if recompute != "full":
        kept += sum(n for n in _layer_modules(spec, tensor_parallel) if n >= persist) * (spec.layers or 0)
    return kept


def retained_extra_bytes(spec: ModelSpec, settings: Zero3Settings, param_bytes: float, recompute: str,
                         tensor_parallel: int = 1) -> float:
    """Bytes the retained Linear weights add beyond the coordinator's gathered window (at ``param_bytes`` each);
    0 when the model was built inside ``zero.Init`` (``settings.outside_init`` False)."""
    if not settings.outside_init:
        return 0.0
    window = peak_gathered_params(spec, settings, recompute != "none", tensor_parallel)
    return max(0, retained_linear_params(spec, settings, recompute, tensor_parallel) - window) * param_bytes


def outside_init_assumption(extra_bytes: float) -> tuple[str, str]:
    """The assumption line (text, source) for :func:`retained_extra_bytes`."""
    return (_("model built outside deepspeed.zero.Init: F.linear is not replaced, so autograd keeps each gathered "
              "Linear weight until its backward ({gib:.2f} GiB more at the start of backward)").format(
                  gib=extra_bytes / 2**30), SOURCE)


def add_engine_start_model(parts: dict[str, float], whole_model_bytes: float) -> tuple[str, str] | None:
    """Add ``zero3_engine_start_model`` to ``parts`` in place: what the engine's start (the whole model at the
    compute dtype on every GPU, module docstring) holds beyond training's allocated peak. Returns the assumption to
    show, or None when training's peak is larger.

    Call it before :func:`gpudesk.sizing.overheads.add_overheads`.
    """
    if not add_phase_excess(parts, "zero3_engine_start_model", whole_model_bytes):
        return None
    return (_("the peak is the DeepSpeed engine's start: a model built outside deepspeed.zero.Init is moved whole to "
              "every GPU ({gib:.2f} GiB) before ZeRO-3 partitions it").format(gib=whole_model_bytes / 2**30),
            "deepspeed/runtime/engine.py _configure_distributed_model (module.half(), module.to(device)), "
            "v0.14.2; gpudesk.sizing.zero3_outside_init")
