"""Causes of a refusal by a pool the runtime sized itself, for :mod:`gpudesk.oom.rules.signature` (signatures
``fixed_pool`` and ``vgpu_limit``; the mechanisms and sources are in :mod:`gpudesk.oom.pool_words` and
:mod:`gpudesk.oom.vgpu_words`).

* ``fixed_pool`` (MuJoCo's arena, PhysX's GPU dynamics buffers, Emscripten's heap) → ``not_capacity`` 0.96 with
  ``buffer_limit``'s kind of check: the runtime names its own pool and the size it would have needed, so no figure of
  the device can outweigh it; the fix is that runtime's own size setting.
* ``vgpu_limit`` (HAMi-core's "Device N OOM A / L" below a wrapped counter) → ``per_process_cap`` 0.85: the container's
  configured share refused the allocation; the card may have room.
* A card's own refusal under a GPU-sharing layer (:func:`gpudesk.oom.vgpu_words.names_sharing_layer`) →
  ``other_process`` worded for the pods placed beside this one (:func:`pods_beside`).
"""

from __future__ import annotations

from gpudesk import i18n
from gpudesk.i18n import _
from gpudesk.oom import pool_words, vgpu_words
from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.oom.signatures import FIXED_POOL_CHECK, check_command, check_line


def _fix(runtime: str | None) -> str:
    fixes = {
        "mujoco": _("Give the model a larger arena: <size memory=\"256M\"/> in the MJCF (or a smaller scene: fewer "
                    "bodies and contacts); MuJoCo's default arena is sized from the degrees of freedom, not from the "
                    "number of bodies that can collide"),
        "physx": _("Raise the buffer the message names in the scene's GPU dynamics settings to at least the size it "
                   "gives (PxGpuDynamicsMemoryConfig; Isaac Lab: PhysxCfg gpu_max_rigid_patch_count / "
                   "gpu_collision_stack_size / gpu_max_rigid_contact_count; SAPIEN: set_gpu_memory_config), or "
                   "simulate fewer environments"),
        "emscripten": _("Rebuild the WebAssembly module with a larger heap (-sINITIAL_MEMORY=X) or with "
                        "-sALLOW_MEMORY_GROWTH=1, or set the module's memory size option where the library offers one "
                        "(ammo.js: Module.TOTAL_MEMORY / INITIAL_MEMORY before it loads); or make the scene smaller"),
    }
    return fixes.get(runtime or "", _("Raise the size the runtime was configured with for this pool, or make the "
                                      "problem smaller"))


def fixed_pool(f: Facts) -> Cause:
    text = f.report.text or ""
    runtime = pool_words.fixed_pool_runtime(text)
    figures = pool_words.pool_figures(text)
    return Cause(
        id="not_capacity",
        title=_("Not a capacity problem: the runtime's own fixed-size pool is too small"),
        confidence=0.96,
        evidence=evidence(not_capacity_kind="fixed_pool", deciding_check="buffer_limit",
                          check_command=FIXED_POOL_CHECK.command, runtime=runtime, **figures),
        explanation=_("The runtime refused the request from a pool it set aside once at its own configured size (a "
                      "physics engine's arena or GPU buffers, a WebAssembly heap), which never grows. The GPU's and "
                      "the computer's free memory are not involved: the same request fails on any machine until that "
                      "size is raised."),
        fix=_fix(runtime),
        checks=[check_line(command=FIXED_POOL_CHECK.command,
                                                 meaning=i18n._(FIXED_POOL_CHECK.meaning))],
    )


def vgpu_limit(f: Facts) -> Cause:
    found = vgpu_words.hami_oom(f.report.text or "")
    accounted, limit = (found[1], found[2]) if found is not None else (None, None)
    return Cause(
        id="per_process_cap",
        title=_("The container's GPU memory share (vGPU limit) refused the allocation"),
        confidence=0.85,
        evidence=evidence(vgpu_accounted_bytes=accounted, vgpu_limit_bytes=limit, deciding_check="free_exceeds_request",
                          check_command=check_command("free_exceeds_request", f.report.platform)),
        explanation=_("A GPU-sharing layer in the container (HAMi-core) counts every allocation against the memory "
                      "share the pod was given and refuses one that would pass it, whatever the card has free."),
        fix=_("Give the pod a larger share (nvidia.com/gpumem or gpumem-percentage in its resources), or make the job "
              "fit the share (smaller batch or model)"),
    )


def wrapped_counter(cause: Cause) -> Cause:
    """``cause`` (the ``absurd_size`` not-capacity cause) worded for a vGPU layer whose usage counter wrapped below
    zero (:func:`gpudesk.oom.vgpu_words.counter_wrapped`): the garbage figure is the layer's count, not a request."""
    cause.title = _("Not a memory problem: the vGPU layer's usage count wrapped below zero")
    cause.explanation = _("The GPU-sharing layer in the container (HAMi-core) refused the allocation because the usage "
                          "it counted for the pod is close to 2^64 bytes, more than any GPU has: its counter went below "
                          "zero (a release subtracted more than was added) and wrapped. Every later allocation is "
                          "refused, however much the card has free.")
    cause.fix = _("Update HAMi and HAMi-core (v2.6.1 fixed this count) and restart the pod to reset its count; "
                  "nvidia-smi inside the pod shows the same impossible figure until then")
    return cause


def pods_beside(cause: Cause) -> Cause:
    """``cause`` (an ``other_process`` cause) worded for a card's own refusal under a GPU-sharing layer
    (:func:`gpudesk.oom.vgpu_words.names_sharing_layer`): the pods the layer placed on the same GPU hold its memory."""
    cause.title = _("Other pods on the same GPU hold its memory")
    cause.explanation = _("The job runs under a GPU-sharing layer (HAMi, gpushare) that places several pods on one "
                          "physical GPU, and the refusal came from the card itself, not from the layer's share: the "
                          "pods placed beside this one hold the memory.")
    cause.fix = _("List the pods on this GPU (the sharing layer's node view, or nvidia-smi on the host) and move this "
                  "pod to a free card; make the shares add up to no more than the card (nvidia.com/gpumem), and keep "
                  "the scheduler and Kubernetes at versions the layer supports")
    return cause
