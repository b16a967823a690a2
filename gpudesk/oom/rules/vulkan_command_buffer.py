"""A Vulkan command-buffer call refused with an out-of-memory result: the driver's own objects, not the data's memory.

Command buffers hold recorded commands, not the program's buffers: ``vkAllocateCommandBuffers`` and
``vkBeginCommandBuffer`` may return ``VK_ERROR_OUT_OF_HOST_MEMORY`` (-1) or ``VK_ERROR_OUT_OF_DEVICE_MEMORY`` (-2)
(Vulkan specification, the "Return Codes" of both commands; vulkan.hpp raises them as "vk::CommandBuffer::begin:
ErrorOutOfHostMemory", "vk::Device::allocateCommandBuffers: ErrorOutOfDeviceMemory"), and what runs out there is the
driver's memory for command buffers and pools, which a program that records one command buffer per transfer and never
reuses them exhausts with the GPU and host memory free. llama.cpp's Vulkan backend did so while loading weights: one
command buffer per 1 MB transfer reached the 16383 command buffers of Intel's Windows driver on 16 GB of weights
(ggml-org/llama.cpp#19420, fixed by llama.cpp PR 20059, which reuses finished command buffers). A data allocation
that fails (``vkAllocateMemory``, a buffer's memory) is read elsewhere (:mod:`gpudesk.oom.signatures`, the Vulkan
limits); this rule needs the command-buffer call named and no data allocation refused beside it. 0.7: an object limit
of the driver first, with a host that is truly out of memory (``host_ram``) the reading the same call also allows.
"""

from __future__ import annotations

import re

from gpudesk import i18n
from gpudesk.i18n import N_, _
from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.oom.signatures import Check, check_line

CONFIDENCE = 0.7
# The deciding check: the driver and its version (a driver object limit is fixed by the driver or the program, and
# the summary's device and driver lines say which one ran), with the limit's kind, buffer_limit.
COMMAND_BUFFER_CHECK = Check("buffer_limit", "vulkaninfo --summary",
                             N_("Note the driver and its version: if the host's RAM stays free while the program "
                                "loads, the driver's limit on command buffers refused it, and a newer driver or a "
                                "build of the program that reuses command buffers is the fix, not more memory."))
# The command-buffer call, in the C API's and vulkan.hpp's names, with an out-of-memory result on the same line.
_COMMAND_BUFFER_OOM = re.compile(
    r"(?:vk(?:Begin|Allocate)CommandBuffers?|vk::CommandBuffer::begin|vk::Device::allocateCommandBuffers\w{0,8}|"
    r"vkCreateCommandPool|vk::Device::createCommandPool\w{0,8})[^\n]{0,80}?"
    r"(?:ErrorOutOf(?:Host|Device)Memory|VK_ERROR_OUT_OF_(?:HOST|DEVICE)_MEMORY|(?<![\w-])-[12]\b)")
# A data allocation refused in the same text (then the data's memory is the question, not the command buffers).
_DATA_ALLOCATION_REFUSED = re.compile(r"\bvkAllocateMemory\b|allocateMemory|vmaCreateBuffer|vmaAllocateMemory|"
                                      r"alloc_buffer:\s{0,3}(?:failed|allocating)|\bcudaMalloc\b|"
                                      r"device memory allocation", re.IGNORECASE)


def check(f: Facts) -> Cause | None:
    text = f.report.text or ""
    if not _COMMAND_BUFFER_OOM.search(text) or _DATA_ALLOCATION_REFUSED.search(text):
        return None
    check_used = COMMAND_BUFFER_CHECK
    return Cause(
        id="not_capacity",
        title=_("Likely not capacity: the Vulkan driver refused a command buffer, not memory for data"),
        confidence=CONFIDENCE,
        evidence=evidence(not_capacity_kind="vulkan_command_buffer", deciding_check=check_used.key,
                          check_command=check_used.command),
        explanation=_("The call that failed creates or begins a command buffer, which holds recorded commands, not "
                      "the model's data. Its out-of-memory result means the driver's own memory for command buffers "
                      "ran out: a program that records a new command buffer for every transfer and never reuses them "
                      "reaches the driver's limit on their number (16383 on Intel's Windows driver) with the GPU and "
                      "the host memory free."),
        fix=_("Update the program (llama.cpp's Vulkan backend reuses command buffers since PR 20059) and the GPU "
              "driver; until then load with fewer, larger transfers (for llama.cpp, mmap on rather than --no-mmap) "
              "or use another backend"),
        checks=[check_line(command=check_used.command, meaning=i18n._(check_used.meaning))],
    )
