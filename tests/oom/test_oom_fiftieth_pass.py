"""Fiftieth pass (issue 28): what says that a multi-GPU job's ranks landed on one GPU.

* PyTorch's process list (>= 2.1, NVML) on the failing GPU: a cluster of neighbouring PIDs (one launcher starts its
  ranks in a row) of which two or more hold a workload (>= 2 GiB, above a CUDA context) are the job's ranks working
  on this GPU (multi_gpu_imbalance), while context-sized neighbours stay other_process (the other ranks' stray
  contexts). In a container NVML reports 0 bytes per process: the memory left to the others, shared over the
  cluster, says it.
* Said in words: every rank putting its tensors on cuda:0 / GPU 0 (or "all" of them beside a launch of two or more
  processes), and a job's pipeline stages or nodes holding unequal memory.

Every text is a real message quoted from the public thread named in its comment. Negative cases check that each
reading needs its own evidence."""

from __future__ import annotations

from gpudesk.oom import diagnose_text

# qibin0506/llm_trainer#2 (a multi-GPU launch run without the distributed backend: three neighbouring PIDs on GPU 0).
LLM_TRAINER = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 30.00 MiB. GPU 0 has a total capacity of 79.32 GiB "
    "of which 6.88 MiB is free. Process 1563103 has 9.89 GiB memory in use. Process 1563102 has 35.03 GiB memory in "
    "use. Process 1563104 has 23.79 GiB memory in use. Including non-PyTorch memory, this process has 10.58 GiB memory "
    "in use. Of the allocated memory 9.56 GiB is allocated by PyTorch, and 534.22 MiB is reserved by PyTorch but "
    "unallocated.")
# huggingface/trl#3172 (GRPO on 8x H100 in a container: NVML reports 0 bytes for every process).
TRL_CONTAINER = (
    "torch.OutOfMemoryError:\nCUDA out of memory. Tried to allocate 130.00 MiB. GPU 0 has a total capacity of 79.10 GiB "
    "of which 12.81 MiB is free. Process 3427 has 0 bytes memory in use. Process 3423 has 0 bytes memory in use. "
    "Process 3429 has 0 bytes memory in use. Process 3426 has 0 bytes memory in use. Process 3428 has 0 bytes memory "
    "in use. Process 3424 has 0 bytes memory in use. Process 3425 has 0 bytes memory in use. Including non-PyTorch "
    "memory, this process has 0 bytes memory in use. Of the allocated memory 10.47 GiB is allocated by PyTorch, and "
    "93.52 MiB is reserved by PyTorch but unallocated.")
# rwth-i6/returnn#1466 (16 ranks: 15 neighbouring PIDs each holding a 1.19 GiB CUDA context on rank 0's GPU).
RETURNN_CONTEXTS = (
    "OutOfMemoryError: CUDA out of memory. Tried to allocate 52.00 MiB. GPU 0 has a total capacty of 31.74 GiB of "
    "which 39.62 MiB is free. Process 101553 has 1.19 GiB memory in use. Process 101552 has 1.19 GiB memory in use. "
    "Process 101563 has 1.19 GiB memory in use. Process 101549 has 1.19 GiB memory in use. Process 101555 has 1.19 GiB "
    "memory in use. Process 101558 has 1.19 GiB memory in use. Process 101557 has 1.19 GiB memory in use. Process "
    "101562 has 1.19 GiB memory in use. Process 101556 has 1.19 GiB memory in use. Process 101560 has 1.19 GiB memory "
    "in use. Process 101554 has 1.19 GiB memory in use. Process 101550 has 1.19 GiB memory in use. Process 101561 has "
    "1.19 GiB memory in use. Process 101559 has 1.19 GiB memory in use. Process 101551 has 1.19 GiB memory in use. "
    "Including non-PyTorch memory, this process has 13.82 GiB memory in use. Of the allocated memory 11.54 GiB is "
    "allocated by PyTorch, and 677.26 MiB is reserved by PyTorch but unallocated.")
# vllm-project/vllm#34643 (vLLM V1: the engine's worker with 20.28 GiB and one 248 MiB helper a few PIDs away).
VLLM_ONE_WORKER = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.71 GiB. GPU 0 has a total capacity of 22.30 GiB "
    "of which 1.52 GiB is free. Process 29153 has 248.00 MiB memory in use. Process 162529 has 248.00 MiB memory in "
    "use. Process 162519 has 20.28 GiB memory in use. Of the allocated memory 19.55 GiB is allocated by PyTorch, and "
    "244.94 MiB is reserved by PyTorch but unallocated.")


def test_neighbouring_ranks_with_workloads_on_one_gpu() -> None:
    d = diagnose_text(LLM_TRAINER)
    top = d.causes[0]
    assert top.id == "multi_gpu_imbalance"
    assert top.evidence["working_ranks"] == 3
    assert sorted(top.evidence["neighbouring_pids"]) == [1563102, 1563103, 1563104]
    assert "set_device(local_rank)" in top.fix
    # The other processes are still named, second.
    assert d.causes[1].id == "other_process"


def test_container_zero_byte_entries_shared_over_the_cluster() -> None:
    top = diagnose_text(TRL_CONTAINER).causes[0]
    assert top.id == "multi_gpu_imbalance"
    assert top.evidence["working_ranks"] == 7
    assert top.evidence["ranks_held_bytes"] > 60 * 2**30


def test_context_sized_neighbours_stay_other_process() -> None:
    d = diagnose_text(RETURNN_CONTEXTS)
    assert d.causes[0].id == "other_process"
    assert all(c.title != "The job's ranks all run on one GPU" for c in d.causes)


def test_one_working_neighbour_is_not_a_rank_pile_up() -> None:
    d = diagnose_text(VLLM_ONE_WORKER)
    assert all(c.id != "multi_gpu_imbalance" for c in d.causes)


# huggingface/lerobot#4009 (FSDP resume: safetensors load_file(device="cuda") put every rank's checkpoint on cuda:0).
LEROBOT = (
    "[FSDP1] OOM caused by Large-policy loading every rank's checkpoint on `cuda:0` when resume training\nResume fails "
    "before `accelerator.prepare()`, sampler restoration, or optimizer resharding because every rank load checkpoint to "
    "`cuda:0` before sharding.\nWith safetensors 0.8.0, `load_file(..., device=\"cuda\")` materializes tensors on "
    "physical `cuda:0` on every rank, even though Accelerate and `torch.cuda.current_device()` are correctly "
    "rank-local. All eight ranks therefore load parts of the 24.08 GB fp32 full-state model on GPU 0 and exhaust a "
    "140 GiB H200.")
# huggingface/sentence-transformers#3245 (torchrun with two processes; the model placed on the default device first).
SENTENCE_TRANSFORMERS = (
    "torchrun --nproc_per_node=2 script.py without the \"device_map\": \"auto\" all tensor be sent to the cuda:0 first\n"
    "==========> cuda:0 OOM!")
# vllm-project/vllm#12895 (PP=3 x TP=8: the last pipeline stage runs out while the others have room).
VLLM_PIPELINE = (
    "I've observed a significant memory imbalance issue in the pipeline parallel deployment:\n\nThe last node in the "
    "Ray cluster consistently consumes more GPU memory for model preloading than other nodes. After the cluster serves "
    "requests for a period of time, the vLLM Ray worker terminates when the last node runs out of memory, while other "
    "nodes' GPU memory remains underutilized.\n- Model layer partitioning appears to be uneven across pipeline stages")


def test_every_rank_on_cuda0_said_in_words() -> None:
    top = diagnose_text(LEROBOT).causes[0]
    assert top.id == "multi_gpu_imbalance"
    assert "cuda:0" in top.evidence["described_as"]
    assert "local_rank" in top.fix


def test_all_tensors_on_cuda0_counts_beside_a_multi_process_launch_only() -> None:
    assert diagnose_text(SENTENCE_TRANSFORMERS).causes[0].id == "multi_gpu_imbalance"
    # Without the two-process launch, "all tensors to cuda:0" is a single-GPU user's placement.
    alone = SENTENCE_TRANSFORMERS.replace("torchrun --nproc_per_node=2 script.py ", "")
    assert all(c.id != "multi_gpu_imbalance" for c in diagnose_text(alone).causes)


def test_pipeline_stages_uneven_said_in_words() -> None:
    top = diagnose_text(VLLM_PIPELINE).causes[0]
    assert top.id == "multi_gpu_imbalance"
    assert "VLLM_PP_LAYER_PARTITION" in top.fix
    # A single-GPU shortage with no word of stages or ranks is not read so.
    plain = VLLM_PIPELINE.split("\n\n")[1].replace("than other nodes", "").replace(
        ", while other nodes' GPU memory remains underutilized", "").split("\n-")[0]
    assert all(c.id != "multi_gpu_imbalance" for c in diagnose_text(plain).causes)


# tensorflow/tensorflow#1355 (Keras on TensorFlow: 127 models fitted one after the other in a for loop).
TF_GRAPH_GROWN = (
    "W tensorflow/core/common_runtime/executor.cc:1076] 0x18ef02bb0 Compute status: Resource exhausted: OOM when "
    "allocating tensor with shape\n\t [[Node: sub_2518 = Sub[T=DT_FLOAT, "
    "_device=\"/job:localhost/replica:0/task:0/gpu:0\"](sub_2518/x, Variable_1955/read)]]\nTraceback (most recent call "
    "last):\n  File \"dnn_127_models_binary.py\", line 398, in <module>\n    fited = model.fit(Xtrain, ytrain, "
    "nb_epoch=n_epochs, batch_size=batch_size, show_accuracy=True, shuffle=True, validation_split=0.35)")


def test_tensorflow_op_created_thousands_of_times_is_graph_growth() -> None:
    d = diagnose_text(TF_GRAPH_GROWN)
    top = d.causes[0]
    assert top.id == "leak"
    assert top.evidence["op_copies"] == 2519
    assert "clear_session" in top.fix
    assert any(c.id == "genuine_shortage" for c in d.causes[1:])


def test_small_or_scoped_suffixes_are_one_models_ops() -> None:
    for node in ("sub_25 = Sub[T=DT_FLOAT](sub_25/x, Variable_19/read)",
                 "rnn/basic_lstm_cell/MatMul_1999 = MatMul[T=DT_FLOAT](rnn/concat_1999, Variable/read)"):
        text = TF_GRAPH_GROWN.replace("sub_2518 = Sub[T=DT_FLOAT, ", "X").replace(
            "X_device=\"/job:localhost/replica:0/task:0/gpu:0\"](sub_2518/x, Variable_1955/read)", node)
        assert node in text
        assert all(c.title != "The TensorFlow graph grows with every model or iteration"
                   for c in diagnose_text(text).causes)


# lllyasviel/stable-diffusion-webui-forge#1984 (the reporter's words above the paste: Forge itself holds the card).
FORGE_AFTER_GENERATIONS = (
    "After 1 or 2 generations i always get this error\nOutOfMemoryError: CUDA out of memory. Tried to allocate 268.00 "
    "MiB. GPU 0 has a total capacity of 23.64 GiB of which 34.81 MiB is free. Process 1193254 has 23.60 GiB memory in "
    "use. Of the allocated memory 22.60 GiB is allocated by PyTorch, and 528.55 MiB is reserved by PyTorch but "
    "unallocated.")


def test_failure_after_a_few_generations_names_memory_kept_between_them() -> None:
    # Timing words alone stay below a figure-backed shortage (leak._from_words: 0.55), but the leak is named.
    leak = next(c for c in diagnose_text(FORGE_AFTER_GENERATIONS).causes if c.id == "leak")
    assert leak.confidence == 0.55
    assert leak.evidence["described_as"] == "After 1 or 2 generations"
    # The same paste without the words: no leak reading from the figures alone.
    bare = FORGE_AFTER_GENERATIONS.split("\n", 1)[1]
    assert all(c.title != "Memory grows over the run (a leak)" for c in diagnose_text(bare).causes)


# unslothai/unsloth#3542 (vLLM V1 under Unsloth: capture finished, then the sampler's warm-up ran out of memory).
VLLM_AFTER_CAPTURE = (
    "> Capturing CUDA graphs (decode, FULL): 100%|██████████| 39/39 [00:08<00:00,  4.56it/s]\n"
    "> INFO 11-01 23:47:29 [gpu_model_runner.py:3118] Graph capturing finished in 23 secs, took 2.28 GiB\n"
    "> INFO 11-01 23:47:30 [gpu_worker.py:391] Free memory on device (22.52/23.51 GiB) on startup. Desired GPU memory "
    "utilization is (0.8641841836125489, 20.32 GiB). Actual usage is 3.61 GiB for weight, 0.59 GiB for peak "
    "activation, 0.02 GiB for non-torch memory, and 2.28 GiB for CUDAGraph memory. Replace gpu_memory_utilization "
    "config with `--kv-cache-memory=14689787392` to fit into requested memory, or `--kv-cache-memory=17049050624` to "
    "fully utilize gpu memory. Current kv cache memory in use is 17292353024 bytes.\n"
    "> OutOfMemoryError                          Traceback (most recent call last)\n"
    "> File ~/miniconda3/envs/rlhf-unsloth/lib/python3.10/site-packages/vllm/v1/worker/gpu_model_runner.py:2874, in "
    "GPUModelRunner._dummy_sampler_run(self, hidden_states)")
# vllm-project/vllm-ascend#5137 (the title and the serving command; a compilation config naming the graph mode).
VLLM_GRAPH_SETTING = (
    "[Bug]: 910B4部署Qwen3 Next出现NPU OOM问题\n\nvllm serve /data/models/Qwen3-Next-80B-A3B-Instruct "
    "--tensor-parallel-size 4 --max-model-len 4096 --gpu-memory-utilization 0.85 --host=0.0.0.0 --port=30601 "
    "--compilation-config '{\"cudagraph_mode\":\"FULL_DECODE_ONLY\"}'")


def test_failure_after_graph_capture_finished_is_not_read_as_capture() -> None:
    d = diagnose_text(VLLM_AFTER_CAPTURE)
    assert d.causes[0].id == "kv_cache_budget"
    assert all(c.id != "cuda_graph_pools" for c in d.causes)
    # Cut before the "finished" line, the same log is a failure during capture.
    during = VLLM_AFTER_CAPTURE.split("> INFO 11-01 23:47:29")[0] + VLLM_AFTER_CAPTURE.split("bytes.\n")[1]
    assert diagnose_text(during).causes[0].id == "cuda_graph_pools"


def test_graph_setting_in_a_command_is_not_a_capture() -> None:
    assert all(c.id != "cuda_graph_pools" for c in diagnose_text(VLLM_GRAPH_SETTING).causes)


# ltdrdata/ComfyUI-Impact-Pack#364 (the cudaMallocAsync table, cut above its head line: 4.82 GiB free, 7.03 MiB asked).
ASYNC_TABLE_CUT = (
    "Requested               : 7.03 MiB\nDevice limit            : 11.99 GiB\nFree (according to CUDA): 4.82 GiB\n"
    "PyTorch limit (set by user-supplied memory fraction)\n                        : 17179869184.00 GiB\n\n"
    "Prompt executed in 39.23 seconds\n\nStopped server")
# Acly/krita-ai-diffusion#517 (the app's dialog re-flows the table without the colons of some rows).
ASYNC_TABLE_REFLOWED = (
    "Server execution error: Allocation on device 0\nwould exceed allowed memory. (out of memory)\nCurrently allocated: "
    "2.65 GiB\nRequested 666.02 MiB\nDevice limit 13.81 GiB\nFree (according to CUDA): 73.94 MiB\nPyTorch limit (set by "
    "user-supplied memory.")


def test_async_table_without_its_head_is_read() -> None:
    d = diagnose_text(ASYNC_TABLE_CUT)
    assert d.report.kind == "pytorch_allowed_memory"
    assert d.report.requested_bytes == round(7.03 * 2**20)
    top = d.causes[0]
    assert top.id == "not_capacity"
    assert top.evidence["deciding_check"] == "free_exceeds_request"


def test_async_rows_without_colons_are_read() -> None:
    d = diagnose_text(ASYNC_TABLE_REFLOWED)
    assert d.report.requested_bytes == round(666.02 * 2**20)
    assert d.report.device is not None and d.report.device.total_bytes == round(13.81 * 2**30)
    assert d.causes[0].id != "unparseable"


def test_one_row_alone_is_not_the_table() -> None:
    d = diagnose_text("Device limit            : 11.99 GiB\nPrompt executed in 39.23 seconds")
    assert d.report.kind != "pytorch_allowed_memory"


# Vegetebird/MHFormer#27 (a 2 GB GPU; the paste wrapped inside "free" as posted).
WRAPPED_IN_A_WORD = (
    "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 2.00 GiB total capacity; 748.12 MiB already "
    "allocated; 0 bytes fre\ne; 796.00 MiB reserved in total by PyTorch)")


def test_a_hard_wrap_inside_a_clause_word_is_joined() -> None:
    d = diagnose_text(WRAPPED_IN_A_WORD)
    assert d.report.device is not None and d.report.device.free_bytes == 0
    assert d.causes[0].id == "genuine_shortage"


def test_short_lines_are_not_joined() -> None:
    # A short line ending in a letter above a lower-case one is two lines, not a wrap: the free figure stays unread.
    d = diagnose_text("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB\n(GPU 0; 0 bytes fre\ne; 1.00 GiB "
                      "total capacity)")
    assert d.report.device is not None and d.report.device.free_bytes is None


# ultralytics/ultralytics#4679 (the issue's error line, then AutoBatch's start-up report of the T4's memory).
REQUEST_THEN_AUTOBATCH = (
    "After the (around) first epoch YOLOv8 runs out of memory (CUDA out of memory. Tried to allocate 3.22 GiB)\n\n"
    "!yolo train model=yolov8s.pt batch=-1 data=VisDrone.yaml epochs=30 imgsz=640\n...\n\n"
    "AutoBatch: Computing optimal batch size for imgsz=640\n"
    "AutoBatch: CUDA:0 (Tesla T4) 14.75G total, 0.25G reserved, 0.12G allocated, 14.38G free")


def test_start_up_memory_report_is_not_the_messages_clauses() -> None:
    d = diagnose_text(REQUEST_THEN_AUTOBATCH)
    top = d.causes[0]
    assert top.id == "genuine_shortage"
    assert top.evidence["requested_bytes"] == round(3.22 * 2**30)
    # With PyTorch's own clauses on the request's line but unreadable, "not enough of the message" stays.
    garbled = "RuntimeError: CUDA out of memory. Tried to allocate 3.22 GiB (GPU 0; ?? total capacity; ?? free)"
    assert diagnose_text(garbled).causes[0].id == "unparseable"


# Theano/Theano#6692 (lib.cnmem=1 in .theanorc; 0.8 ran).
THEANO_CNMEM = (
    "~/activitynet-2016-cvprw$ python scripts/run_all_pipeline.py -i data/vid2.mp4\nUsing Theano backend.\n"
    "ERROR (theano.sandbox.cuda): ERROR: Not using GPU. Initialisation of device gpu failed:\n"
    "initCnmem: cnmemInit call failed! Reason=CNMEM_STATUS_OUT_OF_MEMORY. numdev=1")


def test_theano_cnmem_pool_refused_at_start_is_preallocation() -> None:
    top = diagnose_text(THEANO_CNMEM).causes[0]
    assert top.id == "preallocation"
    assert "lib.cnmem" in top.fix


def test_device_init_failure_without_the_pool_is_not_read_so() -> None:
    text = THEANO_CNMEM.split("\ninitCnmem")[0] + "\nRuntimeError: CUDA error: out of memory"
    assert all(c.title != "Theano's memory pool (lib.cnmem) does not fit the free memory at start"
               for c in diagnose_text(text).causes)


# vllm-project/vllm-ascend#6611 (vLLM V1 on Ascend: the KV cache tensors themselves refused at start-up).
V1_KV_TENSORS = (
    "(Worker_TP0 pid=911501) ERROR 02-07 18:18:59 [v1/executor/multiproc_executor.py:824]   File \"/home/ma-user/"
    "anaconda3/envs/py311/lib/python3.11/site-packages/vllm_ascend/worker/model_runner_v1.py\", line 2499, in "
    "_allocate_kv_cache_tensors\n(Worker_TP0 pid=911501) ERROR 02-07 18:18:59 [v1/executor/multiproc_executor.py:824]"
    "     tensor = torch.zeros(kv_cache_tensor.size,\n(Worker_TP0 pid=911501) ERROR 02-07 18:18:59 "
    "[v1/executor/multiproc_executor.py:824] RuntimeError: NPU out of memory. Tried to allocate 2.57 GiB (NPU 0; 60.96 "
    "GiB total capacity; 57.49 GiB already allocated; 57.49 GiB current active; 1.96 GiB free; 57.62 GiB reserved in "
    "total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.")


def test_v1_kv_cache_tensors_frame_is_the_engines_pool() -> None:
    top = diagnose_text(V1_KV_TENSORS).causes[0]
    assert top.id == "kv_cache_budget"
    assert "gpu-memory-utilization" in top.fix


def test_other_tensors_frame_is_not_the_pool() -> None:
    text = V1_KV_TENSORS.replace("_allocate_kv_cache_tensors", "_allocate_draft_tensors")
    assert diagnose_text(text).causes[0].id != "kv_cache_budget"


def test_a_wrap_between_words_is_read_as_a_space() -> None:
    # A text box that wrapped a long line between two words: joining would glue "capacity" to "of".
    text = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 268.00 MiB. GPU 0 has a total capacity\n"
            "of 23.64 GiB of which 34.81 MiB is free. Including non-PyTorch memory, this process has 23.60 GiB memory in "
            "use.")
    d = diagnose_text(text)
    assert d.report.device is not None and d.report.device.total_bytes == round(23.64 * 2**30)
