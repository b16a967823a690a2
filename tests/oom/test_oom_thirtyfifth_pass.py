"""Thirty-fifth pass (issue 28, the misses over every fresh batch): PyTorch's ``CUDNN_STATUS_NOT_INITIALIZED``.

cuDNN words the status as a library that could not start ("usually due to an error in the CUDA Runtime API called by
cudnnCreate() or by an error in the hardware setup"), and the threads that quote PyTorch's line alone were fixed by
another build (haotian-liu/LLaVA#458, werner-duvaud/muzero-general#139, chen-zhoujian/SegNet-pytorch#2,
NVIDIA/pix2pixHD#285). What the text decides is when it failed: PyTorch creates a cuDNN handle per device and thread,
and the backward pass runs on the autograd engine's own thread, so a failure in a traceback through ``backward`` comes
after the forward's handle worked: memory (seanie12/Info-HCVAE#7). Without such a frame the library comes first, memory
right behind it, both with the check that tells them apart.

Every text is a real message quoted from the public thread named in its comment; the negative cases check that each
reading needs its own frame or wording.
"""

from __future__ import annotations

from gpudesk.oom import diagnose_text
from gpudesk.oom.library_words import failed_in_backward

# werner-duvaud/muzero-general#139 (torch 1.8.0 built with CUDA 10.2 on Colab; the maintainer: the PyTorch release).
MUZERO_LINE = "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED"

# NVIDIA/pix2pixHD#285 (a PyTorch 1.7 conda build on an RTX 3090).
PIX2PIXHD = (
    "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED\n"
    "terminate called after throwing an instance of 'c10::Error'\n"
    "  what():  CUDA error: device-side assert triggered\n"
    "Exception raised from create_event_internal at /opt/conda/conda-bld/pytorch_1607370156314/work/c10/cuda/"
    "CUDACachingAllocator.cpp:687 (most recent call first):")

# seanie12/Info-HCVAE#7 (the maintainer: probably GPU memory; try a smaller batch size).
INFO_HCVAE_BACKWARD = (
    "Traceback (most recent call last):\n"
    '  File "main.py", line 116, in <module>\n'
    "    main(args)\n"
    '  File "main.py", line 38, in main\n'
    "    trainer.train(c_ids, q_ids, a_ids, start_positions, end_positions)\n"
    '  File "/home/2018/Info-HCVAE-master/vae/trainer.py", line 35, in train\n'
    "    loss.backward()\n"
    '  File "/home/2018/anaconda3/envs/transformers/lib/python3.6/site-packages/torch/tensor.py", line 150, in backward\n'
    "    torch.autograd.backward(self, gradient, retain_graph, create_graph)\n"
    '  File "/home/2018/anaconda3/envs/transformers/lib/python3.6/site-packages/torch/autograd/__init__.py", line 99, '
    "in backward\n"
    "    allow_unreachable=True)  # allow_unreachable flag\n"
    "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED")


def test_pytorch_line_alone_is_the_library_first_with_its_check_and_a_build_fix() -> None:
    d = diagnose_text(MUZERO_LINE)
    top = d.causes[0]
    assert d.found_oom and top.id == "not_capacity"
    assert top.evidence["not_capacity_kind"] == "library_mismatch"
    assert top.evidence["deciding_check"] == "driver_version"
    assert "torch.cuda.get_arch_list()" in top.fix
    # Memory stays named right behind it.
    assert [c.id for c in d.causes[1:3]] == ["genuine_shortage", "allocation_outside_allocator"]


def test_pytorch_line_with_the_allocator_teardown_is_the_library_first() -> None:
    top = diagnose_text(PIX2PIXHD).causes[0]
    assert (top.id, top.evidence["deciding_check"]) == ("not_capacity", "driver_version")


def test_failure_in_the_backward_pass_stays_memory_first() -> None:
    # Negative: the forward's cuDNN ops had run, so the library loads; the backward thread's handle found a full GPU.
    causes = diagnose_text(INFO_HCVAE_BACKWARD).causes
    assert causes[0].id == "genuine_shortage"
    assert "backward" in causes[0].explanation
    assert causes[0].evidence["deciding_check"] == "driver_version"
    assert "not_capacity" in [c.id for c in causes[1:]]


def test_tensorflow_handle_wording_is_not_read_as_pytorch() -> None:
    # Negative: DeepLabCut/DeepLabCut#1299 (TensorFlow had mapped the GPU up front; allow_growth fixed it).
    text = ("2021-06-02 E tensorflow/stream_executor/cuda/cuda_dnn.cc:328] Could not create cudnn handle: "
            "CUDNN_STATUS_NOT_INITIALIZED")
    assert diagnose_text(text).causes[0].id == "preallocation"


def test_backward_frame_is_read_from_the_traceback_only() -> None:
    assert failed_in_backward(INFO_HCVAE_BACKWARD)
    windows = ('  File "C:\\Python38\\lib\\site-packages\\torch\\autograd\\__init__.py", line 154, in backward\n'
               "    Variable._execution_engine.run_backward(")
    assert failed_in_backward(windows)
    # Negative: the word alone (a version note, a flag's name) is no frame.
    assert not failed_in_backward("kept for backward compatibility with cuDNN 7; backward_passes=1")
    assert not failed_in_backward(MUZERO_LINE)
