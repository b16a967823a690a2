"""Fifty-third pass (issue 28): TensorFlow's default memory pool beside PyTorch in one program.

TensorFlow maps nearly all of the memory of every visible GPU when it first touches one, unless memory growth or a
memory fraction is set (https://www.tensorflow.org/guide/gpu, "Limiting GPU memory growth"; GPUOptions.allow_growth
and per_process_gpu_memory_fraction in tensorflow/core/protobuf/config.proto). A report without figures that names
TensorFlow and PyTorch running together and PyTorch out of memory is that pool (``preallocation``), not the job's
size. Figures, a growth setting already on, or one framework alone keep their readings.

RMM's pool turned on in the text (``rmm.reinitialize(pool_allocator=True)``) with the refusal raised by its upstream
``cuda_memory_resource`` (cudaMalloc) is the pool's own reservation (initial pool of half the GPU by default, then
growth steps), ``preallocation``; the same refusal without a pool named keeps its reading.

Every positive text is a real message quoted from the public thread named in its comment."""

from __future__ import annotations

from gpudesk.oom import diagnose_text

# tensorflow/tensorflow#12480 (TF 0.12 and PyTorch in one program on a 1080 Ti; fixed with
# per_process_gpu_memory_fraction).
TF_FILLS_ALL = ("However, the problem is that PyTorch runs out of memory because TF will replicate the model in ALL "
                "available CUDA devices. In this case CUDA_VISIBLE_DEVICES is not helpful, and I tried GPU device "
                "tf.device(\"/gpu:0\") but Tensorflow still fills up all GPUs' memory.")
# jina-ai/finetuner#328 (a TensorFlow model with a torch-based miner; fixed with set_memory_growth).
TF_WITH_TORCH_MINER = ("When fine-tuning a TensorFlow model with a miner that uses the `TorchStrategicMiningHelper` "
                       "(which uses torch) we get a CUDA OOM error.")
# SeldonIO/alibi-detect#432 (the issue title: TensorFlow is not named, so the text alone does not show its pool).
TORCH_ONLY_TITLE = "Pytorch cuda out of memory error in cd_mmd_cifar10.ipynb"
# diegoantognini/pyGAT#50 (PyTorch's own figures).
TORCH_FIGURES = ("RuntimeError: CUDA out of memory. Tried to allocate 6.25 GiB (GPU 0; 31.75 GiB total capacity; "
                 "25.01 GiB already allocated; 4.51 GiB free; 1.18 GiB cached)")

# rapidsai/rmm#496 (two 8 GiB buffers on a 32 GB V100; the pool grew by more than the second buffer).
RMM_POOL = ("In [1]: import rmm\n\nIn [2]: rmm.reinitialize(pool_allocator=True)\n\n"
            "In [3]: db1 = rmm.DeviceBuffer(size=(8 * 2**30))\n\nIn [4]: db2 = rmm.DeviceBuffer(size=(8 * 2**30))\n"
            "---------------------------------------------------------------------------\n"
            "MemoryError                               Traceback (most recent call last)\n"
            "<ipython-input-4-25bed4057da3> in <module>\n----> 1 db2 = rmm.DeviceBuffer(size=(8 * 2**30))\n\n"
            "rmm/_lib/device_buffer.pyx in rmm._lib.device_buffer.DeviceBuffer.__cinit__()\n\n"
            "MemoryError: std::bad_alloc: CUDA error at: ../include/rmm/mr/device/cuda_memory_resource.hpp68: "
            "cudaErrorMemoryAllocation out of memory")
# NVIDIA/cudf#6126 (the same refusal, no pool named: a shortage).
RMM_NO_POOL = ("MemoryError: std::bad_alloc: CUDA error at: ../include/rmm/mr/device/cuda_memory_resource.hpp:68: "
               "cudaErrorMemoryAllocation out of memory")


def _top(text: str) -> str | None:
    top = diagnose_text(text).top
    return top.id if top is not None else None


def test_tensorflow_filling_every_gpu_beside_pytorch_is_preallocation() -> None:
    d = diagnose_text(TF_FILLS_ALL)
    assert d.top is not None and d.top.id == "preallocation"
    assert "memory growth" in d.top.fix


def test_tensorflow_model_with_torch_helper_is_preallocation() -> None:
    assert _top(TF_WITH_TORCH_MINER) == "preallocation"


def test_growth_already_on_is_not_the_default_pool() -> None:
    # The finetuner#328 text with the thread's own fix already applied (a negative built from the real message).
    text = TF_WITH_TORCH_MINER + " We already call tf.config.experimental.set_memory_growth(gpu, True)."
    assert _top(text) != "preallocation"


def test_one_framework_named_keeps_its_reading() -> None:
    assert _top(TORCH_ONLY_TITLE) != "preallocation"
    assert _top("When fine-tuning a TensorFlow model we get a CUDA OOM error.") != "preallocation"


def test_pytorch_figures_decide() -> None:
    assert _top(TORCH_FIGURES) == "genuine_shortage"
    # TensorFlow named beside PyTorch's own figures, which leave no large remainder outside PyTorch: the figures decide.
    assert _top(TORCH_FIGURES + "\n(the input pipeline is tensorflow_datasets)") == "genuine_shortage"


def test_rmm_pool_upstream_refusal_is_the_pool() -> None:
    d = diagnose_text(RMM_POOL)
    assert d.top is not None and d.top.id == "preallocation"
    assert "initial_pool_size" in d.top.fix


def test_rmm_refusal_without_a_pool_keeps_its_reading() -> None:
    assert _top(RMM_NO_POOL) == "genuine_shortage"
    # The pool named but turned off (the negative built from the rmm#496 text).
    assert _top(RMM_POOL.replace("pool_allocator=True", "pool_allocator=False")) != "preallocation"
