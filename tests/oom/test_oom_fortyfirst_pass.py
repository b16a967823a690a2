"""Forty-first pass (issue 28, fresh-41's texts the doctor did not find or read as a shortage).

Each reading is the runtime's own wording or figures, read from its source:

* CatBoost's GPU memory pool refuses with "Error: Out of memory. Requested R MB; Free F MB"
  (catboost/cuda/cuda_lib/memory_pool/stack_like_memory_pool.h); a user who quotes only the figure pair, in backticks,
  still states a request larger than what is free: an OOM with its figures, never "not found".
* The Vulkan validation layer's "attempting to allocate N bytes from heap H, but size of that heap is only M bytes"
  (VUID-vkAllocateMemory-pAllocateInfo-01713, Vulkan-ValidationLayers layers/core_checks/cc_device_memory.cpp): with a
  heap of 256 MiB or less it is the host-visible BAR heap, not the card's memory (``not_capacity``, the heaps and
  memory types as the deciding ``buffer_limit`` check).
* An out-of-memory raised while Torch7 loads its CUDA package (Lua's traceback frame "in function 'require'" of
  ``require 'cutorch'``, whose init runs THCudaInit over every visible device, lib/THC/THCGeneral.c): the script has
  allocated nothing yet, so the contexts' memory is held by another process (the runtime's start-up, as for the
  other initialisation sources).
* The shell's "Killed" with Docker Compose's log prefix ("lila-1  | Killed"): the OOM killer's usual mark, as without
  the prefix.

Every text is a real message quoted from the public thread named in its comment.
"""

from __future__ import annotations

from gpudesk.oom import diagnose_text

# https://github.com/catboost/catboost/issues/1081 (depth 16 on three 8 GB RTX 2070; the post quotes only the pair,
# with its stray backtick and quote, and the debug log's free memory per device)
CATBOOST_1081 = ("`Requested 5696 MB; Free 3958.169335 MB\"`\n\n```\nFree memory on device #0 7212.578125MB\n"
                 "Free memory on device #1 7458.865624MB\nFree memory on device #2 5944.803124MB\n```")

# https://github.com/iree-org/iree/issues/12876 (IREE's Vulkan HAL on an NVIDIA GPU, validation layers on)
IREE_12876 = (
    "[VULKAN] ! Validation Error: [ VUID-vkAllocateMemory-pAllocateInfo-01713 ] Object 0: handle = 0x55ba3e384b30, "
    "type = VK_OBJECT_TYPE_DEVICE; | MessageID = 0xe9a2b96f | vkAllocateMemory: attempting to allocate 1698693120 "
    "bytes from heap 2,but size of that heap is only 257949696 bytes. The Vulkan spec states: "
    "pAllocateInfo->allocationSize must be less than or equal to VkPhysicalDeviceMemoryProperties::memoryHeaps"
    "[memindex].size")

# https://github.com/zakarumych/gpu-alloc/issues/72 (a 609 MB device-only allocation placed in the 256 MiB heap 0)
GPU_ALLOC_72 = (
    "VUID-vkAllocateMemory-pAllocateInfo-01713(ERROR / SPEC): msgNum: -375211665 - Validation Error: "
    "[ VUID-vkAllocateMemory-pAllocateInfo-01713 ] Object 0: handle = 0x2214da35ba0, type = VK_OBJECT_TYPE_DEVICE; | "
    "MessageID = 0xe9a2b96f | vkAllocateMemory: attempting to allocate 609460056 bytes from heap 0,but size of that "
    "heap is only 268435456 bytes.")

# https://github.com/torch/cutorch/issues/441 (neural-style on one GPU while three trainings ran on the others)
CUTORCH_441 = (
    "THCudaCheck FAIL file=/tmp/luarocks_cutorch-scm-1-3218/cutorch/lib/THC/THCGeneral.c line=176 error=2 : out of "
    "memory\n/home/user/torch/install/bin/luajit: /home/user/torch/install/share/lua/5.1/trepl/init.lua:384: cuda "
    "runtime error (2) : out of memory at /tmp/luarocks_cutorch-scm-1-3218/cutorch/lib/THC/THCGeneral.c:176\n"
    "stack traceback:\n        [C]: in function 'error'\n        /home/user/torch/install/share/lua/5.1/trepl/"
    "init.lua:384: in function 'require'\n        neural_style.lua:2: in main chunk")

# https://github.com/lichess-org/lila-docker/issues/84 (the Scala build in the lila container under Docker Desktop)
LILA_DOCKER_84 = ("lila-1  | [info] done compiling\nlila-1  | [info] compiling 6 Scala sources to "
                  "/lila/modules/playban/target/scala-3.4.1/classes ...\nlila-1  | Killed\nlila-1 exited with code 0")


def test_request_free_pair_alone_is_an_oom_with_its_figures() -> None:
    d = diagnose_text(CATBOOST_1081)
    assert d.found_oom
    assert d.report.requested_bytes == 5696 * 1024**2
    assert d.causes[0].id == "genuine_shortage"
    assert d.causes[0].fix


def test_request_below_free_is_not_read_as_a_refusal() -> None:
    # The same pair with the request the smaller: nothing was refused, so no OOM is claimed.
    d = diagnose_text("`Requested 512 MB; Free 3958.169335 MB`")
    assert not d.found_oom


def test_vulkan_allocation_above_the_bar_heap_is_not_capacity() -> None:
    for text, heap in ((IREE_12876, "246"), (GPU_ALLOC_72, "256")):
        d = diagnose_text(text)
        top = d.causes[0]
        assert top.id == "not_capacity", text[:60]
        assert top.evidence["not_capacity_kind"] == "vulkan_heap"
        assert top.evidence["deciding_check"] == "buffer_limit"
        assert "vulkaninfo" in top.checks[0] and "memoryHeaps" in top.checks[0]
        assert heap in top.explanation and "Resizable BAR" in top.explanation
        assert "HOST_VISIBLE" in top.fix


def test_vulkan_allocation_above_a_large_heap_is_not_the_bar_heap() -> None:
    # The same validation words against a 8 GiB heap: the request exceeds the device-local memory itself.
    text = GPU_ALLOC_72.replace("609460056", "12884901888").replace("268435456", "8589934592")
    d = diagnose_text(text)
    assert d.causes[0].evidence.get("not_capacity_kind") != "vulkan_heap"


def test_killed_under_a_compose_log_prefix_is_the_oom_killer() -> None:
    d = diagnose_text(LILA_DOCKER_84)
    top = d.causes[0]
    assert d.found_oom and top.id == "not_capacity"
    assert top.evidence["deciding_check"] == "host_ram"


def test_compose_log_without_a_kill_is_not_an_oom() -> None:
    d = diagnose_text("lila-1  | [info] done compiling\nlila-1 exited with code 0")
    assert not d.found_oom


def test_oom_while_lua_loads_cutorch_is_another_holder() -> None:
    d = diagnose_text(CUTORCH_441)
    assert d.causes[0].id == "other_process"
    assert "nvidia-smi" in " ".join(d.causes[0].checks) or "nvidia-smi" in d.causes[0].fix


def test_oom_in_a_lua_script_after_loading_is_not_start_up() -> None:
    # The same runtime error raised by the script's own work (no loader frame): not read as the start-up.
    text = CUTORCH_441.replace("in function 'require'", "in function 'forward'")
    assert diagnose_text(text).causes[0].id != "other_process"


def test_oom_in_a_storage_file_under_require_is_not_start_up() -> None:
    # A module that allocates while it loads fails in THC's storage code, not in THCudaInit's file: not the start-up.
    text = CUTORCH_441.replace("THCGeneral.c", "THCStorage.cu")
    assert diagnose_text(text).causes[0].id != "other_process"
