"""A genuine shortage's training fixes in the terms of the report's framework when it is not PyTorch.

:mod:`gpudesk.oom.rules.genuine_shortage` words its further fixes for PyTorch (``torch.utils.checkpoint``,
``torch.autocast``, FSDP / DeepSpeed ZeRO) and :func:`gpudesk.oom.diagnose.sizing_effects` names ZeRO-3 / FSDP. A
TensorFlow, JAX or PaddlePaddle program (:func:`gpudesk.oom.framework_checks.framework_of`) has none of these: each
fix is rewritten with the framework's own call for the same mechanism, and dropped where the framework has none;
any other further fix that still names PyTorch is dropped too.
Which cause ranks first is not touched: only the wording of fixes the causes already carry.

The framework's own calls, from each one's documentation:
  TensorFlow: activation recomputation ``tf.recompute_grad`` (https://www.tensorflow.org/api_docs/python/tf/recompute_grad);
    mixed precision ``tf.keras.mixed_precision.set_global_policy`` ('mixed_bfloat16', 'mixed_float16'; variables stay
    float32: https://www.tensorflow.org/guide/mixed_precision). Its distribution strategies (MirroredStrategy,
    MultiWorkerMirroredStrategy) keep a full copy of the variables on every GPU
    (https://www.tensorflow.org/guide/distributed_training): no ZeRO-3 / FSDP equivalent, so sharding is dropped.
  JAX: ``jax.checkpoint`` (alias ``jax.remat``, https://docs.jax.dev/en/latest/_autosummary/jax.checkpoint.html);
    bfloat16 arrays (``jnp.bfloat16``, https://docs.jax.dev/en/latest/jax.numpy.html; Flax modules' ``dtype`` /
    ``param_dtype``); parameters and optimizer state sharded over a device mesh with ``jax.sharding.NamedSharding``
    (https://docs.jax.dev/en/latest/notebooks/Distributed_arrays_and_automatic_parallelization.html).
  PaddlePaddle: ``paddle.distributed.fleet.utils.recompute``
    (https://www.paddlepaddle.org.cn/documentation/docs/en/api/paddle/distributed/fleet/utils/recompute_en.html);
    ``paddle.amp.auto_cast`` / ``paddle.amp.decorate`` (https://www.paddlepaddle.org.cn/documentation/docs/en/api/paddle/amp/auto_cast_en.html);
    ``paddle.distributed.sharding.group_sharded_parallel`` level 'p_g_os' shards parameters, gradients and optimizer
    state, ZeRO-3's split (https://www.paddlepaddle.org.cn/documentation/docs/en/api/paddle/distributed/sharding/group_sharded_parallel_en.html).
Any other framework that is not PyTorch (MXNet, CuPy ...) has no entry: the PyTorch-named fixes are dropped.
"""

from __future__ import annotations

from gpudesk import i18n
from gpudesk.i18n import N_
from gpudesk.oom.cause import Cause
from gpudesk.oom.framework_checks import framework_of, needs_pytorch
from gpudesk.oom.report import MemoryReport
from gpudesk.oom.rules import genuine_shortage

# genuine_shortage's PyTorch-named fixes, by mechanism (named there, not by their place in its MORE list).
_TORCH_FIXES = {"recompute": genuine_shortage.RECOMPUTE_FIX, "precision": genuine_shortage.PRECISION_FIX,
                "sharding": genuine_shortage.SHARDING_FIX}

# framework -> mechanism -> the same fix in its terms (a mechanism left out has no equivalent there).
_FIXES: dict[str, dict[str, str]] = {
    "tensorflow": {
        "recompute": N_("Enable activation checkpointing (wrap the largest layers' call with tf.recompute_grad)."),
        "precision": N_("Train in mixed precision (tf.keras.mixed_precision.set_global_policy('mixed_bfloat16'), "
                        "'mixed_float16' before Ampere): activations are 16-bit, variables stay float32."),
    },
    "jax": {
        "recompute": N_("Enable activation checkpointing (jax.checkpoint / jax.remat on each layer's function)."),
        "precision": N_("Compute in bf16 (jnp.bfloat16 activations, dtype=jnp.bfloat16 in Flax modules) and keep "
                        "float32 master weights only in the optimizer."),
        "sharding": N_("Shard parameters and optimizer state across GPUs (jax.sharding.NamedSharding over a Mesh, "
                       "given to jax.jit)."),
    },
    "paddle": {
        "recompute": N_("Enable activation checkpointing (paddle.distributed.fleet.utils.recompute on the largest "
                        "layers)."),
        "precision": N_("Train in bf16 mixed precision (paddle.amp.auto_cast(dtype='bfloat16') with "
                        "paddle.amp.decorate) and keep float32 master weights only in the optimizer."),
        "sharding": N_("Shard optimizer state, gradients and parameters across GPUs "
                       "(paddle.distributed.sharding.group_sharded_parallel, level 'p_g_os')."),
    },
}
_FIXES["xla"] = _FIXES["jax"]  # XLA outside PyTorch/XLA (framework_of) is JAX's

# The sizing effect of sharding (gpudesk.oom.diagnose._FIXES) in the framework's terms.
_SHARDING_EFFECT = {
    "jax": N_("Shard weights, gradients and optimizer state (jax.sharding)"),
    "paddle": N_("Shard weights, gradients and optimizer state (group_sharded_parallel p_g_os)"),
}
_SHARDING_EFFECT["xla"] = _SHARDING_EFFECT["jax"]


def _replacements(framework: str) -> dict[str, str | None]:
    """Shown (translated) PyTorch fix -> the framework's (translated), None where it has no equivalent."""
    theirs = _FIXES.get(framework, {})
    return {i18n._(msgid): (i18n._(theirs[kind]) if kind in theirs else None) for kind, msgid in _TORCH_FIXES.items()}


def apply(report: MemoryReport, causes: list[Cause]) -> None:
    """Rewrite the PyTorch-named training fixes of ``causes`` in place for a non-PyTorch report (module docstring)."""
    framework = framework_of(report)
    if framework is None:
        return
    replacements = _replacements(framework)
    for cause in causes:
        kept = [replacements.get(m, m) for m in cause.more_fixes]
        # A further fix still naming PyTorch (a leak's "torch.no_grad() ... .cpu(), .item()") has no one equivalent:
        # dropped, as framework_checks drops such a check. A rule's own first fix stays (it read it from the text).
        cause.more_fixes = [m for m in kept if m is not None and not needs_pytorch(m)]
        if cause.fix in replacements:
            own = replacements[cause.fix]
            if own is not None:
                cause.fix = own
            elif cause.more_fixes:
                cause.fix = cause.more_fixes.pop(0)


def sizing_fixes(report: MemoryReport, fixes: tuple[tuple[str, str], ...]) -> list[tuple[str, str]]:
    """``fixes`` ((msgid, kind), gpudesk.oom.diagnose) with sharding in the report's framework's terms, or without it
    where the framework does not shard a data-parallel job's weights, gradients and optimizer state."""
    framework = framework_of(report)
    if framework is None:
        return list(fixes)
    out = []
    for msgid, kind in fixes:
        if kind == "sharding":
            if framework not in _SHARDING_EFFECT:
                continue
            msgid = _SHARDING_EFFECT[framework]
        out.append((msgid, kind))
    return out
