"""Fixed pools that a runtime sizes from its own configuration, read from the runtime's own words (issue 28,
twenty-fifth pass), by :func:`gpudesk.oom.signatures.classify` as ``fixed_pool``.

A pool like this is set aside once (at start, at scene creation, at compile time) and never grows, so a request beyond
it fails whatever the GPU or the host has free; only a larger configured size (or a smaller problem) helps:

* MuJoCo's arena (``mjData`` stack and constraint arena, sized by ``<size memory="..."/>`` in the model, or by a
  heuristic from the degrees of freedom): ``mj_stackAlloc`` refuses a request above what is left of it with "mj_stackAlloc:
  out of memory, stack overflow at CALLER, line N\\n  max = M, available = A, requested = R\\n nefc = .., ncon = .."
  (``src/engine/engine_memory.c``, https://github.com/google-deepmind/mujoco); the figures are the arena's, not the
  machine's (gazebosim/gz-physics#1097: 18 MB asked of a 15 MB arena on a host with plenty of RAM).
* PhysX's GPU dynamics buffers (``PxGpuDynamicsMemoryConfig`` in the scene descriptor: collisionStackSize,
  maxRigidPatchCount, maxRigidContactCount, foundLostPairsCapacity, ...), allocated at scene creation: an overflow is
  reported as "PxGpuDynamicsMemoryConfig::collisionStackSize buffer overflow detected, please increase its size to at
  least N in the scene desc! Contacts have been dropped." or "Patch buffer overflow detected, please increase its size
  to at least N in the scene desc!" (``PxgNarrowphaseCore.cpp`` / ``PxgSimulationCore.cpp`` of PhysX 5,
  https://github.com/NVIDIA-Omniverse/PhysX); Isaac Lab exposes them as ``PhysxCfg.gpu_collision_stack_size`` /
  ``gpu_max_rigid_patch_count`` (isaac-sim/IsaacLab#1389), SAPIEN as ``PhysxDefault.set_gpu_memory_config``
  (mani-skill/ManiSkill#1209).
* Emscripten's WebAssembly heap: without ``-sALLOW_MEMORY_GROWTH`` the heap is ``INITIAL_MEMORY`` for the module's
  life, and a ``malloc`` beyond it calls ``abortOnCannotGrowMemory`` ("Cannot enlarge memory arrays to size N bytes
  (OOM). Either (1) compile with -sINITIAL_MEMORY=X ..." with ASSERTIONS; "abort(OOM)" / "Aborted(OOM)" without,
  reached through ``emscripten_resize_heap``; ``src/library.js``, https://github.com/emscripten-core/emscripten).
  ammo.js (Bullet compiled with Emscripten) ships a 64 MB heap (kripken/ammo.js#296). The browser's RAM is not the
  limit.
"""

from __future__ import annotations

import re

# (runtime, pattern of its own refusal) in the order they are tried.
_MUJOCO = re.compile(r"\bmj_stackAlloc:\s{0,3}out of memory\b|\bmj_arenaAlloc\b[^\n]{0,40}?out of memory", re.IGNORECASE)
_PHYSX = re.compile(r"\bbuffer overflow detected,?\s{0,3}please increase its size\b[^\n]{0,60}?\bscene desc",
                    re.IGNORECASE)
_EMSCRIPTEN = re.compile(r"\babort(?:ed)?\(\s{0,2}OOM\s{0,2}\)|\bcannot enlarge memory arrays\b|"
                         r"\bemscripten_resize_heap\b[\s\S]{0,400}?\bOOM\b|\bOOM\b[\s\S]{0,400}?\bemscripten_resize_heap\b",
                         re.IGNORECASE)
_POOLS = (("mujoco", _MUJOCO), ("physx", _PHYSX), ("emscripten", _EMSCRIPTEN))

# MuJoCo's figures (engine_memory.c's format): the arena's stack size, what was left and what was asked.
_MUJOCO_FIGURES = re.compile(r"\bmax\s{0,2}=\s{0,2}(\d{1,20}),\s{0,3}available\s{0,2}=\s{0,2}(\d{1,20}),\s{0,3}"
                             r"requested\s{0,2}=\s{0,2}(\d{1,20})")
# PhysX's "at least N" and Emscripten's "to size N bytes": the size the pool would have needed.
_NEEDED = re.compile(r"\bincrease its size to at least\s{1,3}(-?\d{1,20})|\benlarge memory arrays to size\s{1,3}(\d{1,20})",
                     re.IGNORECASE)


def fixed_pool_runtime(text: str) -> str | None:
    """The runtime whose fixed pool refused the request in ``text`` (module docstring), or None."""
    for runtime, pattern in _POOLS:
        if pattern.search(text):
            return runtime
    return None


def pool_figures(text: str) -> dict[str, int]:
    """What the runtime's words say of its pool: ``pool_bytes`` (MuJoCo's max), ``pool_available_bytes``,
    ``requested_bytes``, ``pool_needed_bytes`` (the heap size Emscripten says it needed, in bytes) and ``pool_needed``
    (the size PhysX says its buffer needs, in the buffer's own unit: bytes for the collision stack, a count for the
    patch and contact buffers). A negative PhysX figure is a 32-bit count that wrapped and is left out."""
    out: dict[str, int] = {}
    m = _MUJOCO_FIGURES.search(text)
    if m is not None:
        out["pool_bytes"], out["pool_available_bytes"], out["requested_bytes"] = (int(g) for g in m.groups())
    n = _NEEDED.search(text)
    if n is not None and n.group(2) is not None:
        out["pool_needed_bytes"] = int(n.group(2))
    elif n is not None and int(n.group(1)) > 0:
        out["pool_needed"] = int(n.group(1))
    return out
