"""Thirty-eighth pass (issue 28, fresh-39's texts that came back "not found", and engines' KV-budget wordings).

Each reading is the runtime's own wording, read from its source:

* PyTorch's DataLoader when its pin-memory thread died without an exception ("Pin memory thread exited
  unexpectedly", torch/utils/data/dataloader.py, _MultiProcessingDataLoaderIter._try_get_data): the thread that
  page-locks batches in host memory; pin_memory=False decides. A DataLoader *worker* that exited is not that.
* transformers' bitsandbytes quantizers refusing a device map with modules on the CPU or disk ("Some modules are
  dispatched on the CPU or the disk. Make sure you have enough GPU RAM to fit the quantized model.",
  transformers/quantizers/quantizer_bnb_4bit.py, validate_environment): device_map="auto" put off the GPU what its free
  memory could not hold, so the quantized model does not fit.

Every text is a real message quoted from the public thread named in its comment.
"""

from __future__ import annotations

from gpudesk.oom import diagnose_text

# https://github.com/milesial/Pytorch-UNet/issues/517 (the title; fixed by pin_memory=False)
UNET_517 = "RuntimeError: Pin memory thread exited unexpectedly"

# https://github.com/unslothai/unsloth/issues/1629 (models over 8B in 4-bit on a small GPU: "you most likely have too
# less VRAM")
UNSLOTH_1629 = (
    "ValueError: Some modules are dispatched on the CPU or the disk. Make sure you have enough GPU RAM to fit the "
    "quantized model. If you want to dispatch the model on the CPU or the disk while keeping these modules in 32-bit, "
    "you need to set `llm_int8_enable_fp32_cpu_offload=True` and pass a custom `device_map` to `from_pretrained`. "
    "Check https://huggingface.co/docs/transformers/main/en/main_classes/quantization#offload-between-cpu-and-gpu for "
    "more details. ")


def test_pin_memory_thread_that_exited_is_pinned_host_memory() -> None:
    d = diagnose_text(UNET_517)
    top = d.causes[0]
    assert d.found_oom and d.report.kind == "pin_memory_thread"
    assert top.id == "not_capacity" and d.report.signature == "pin_memory"
    assert "pin_memory=False" in top.fix


def test_a_dataloader_worker_that_exited_is_not_the_pin_memory_thread() -> None:
    d = diagnose_text("RuntimeError: DataLoader worker (pid 4242) exited unexpectedly")
    assert d.report.kind != "pin_memory_thread"
    assert d.report.signature != "pin_memory"


def test_bitsandbytes_refusing_modules_off_the_gpu_is_a_model_that_does_not_fit() -> None:
    d = diagnose_text(UNSLOTH_1629)
    assert d.found_oom
    assert d.causes[0].id == "genuine_shortage"


def test_enough_gpu_ram_alone_is_not_an_out_of_memory() -> None:
    # The advice sentence without the quantizer's refusal names no failure.
    d = diagnose_text("Make sure you have enough GPU RAM to fit the quantized model.")
    assert not d.found_oom
