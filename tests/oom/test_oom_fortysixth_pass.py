"""Forty-sixth pass (issue 28): causes the threads found outside a plain shortage, read from what the text shows.

* vLLM's V0 KV-cache allocation refused (the V0 cache engine's ``_allocate_kv_cache`` allocation, or its
  ``torch.empty(kv_cache_shape, ..., pin_memory=pin_memory, ...)`` line) with no device figures: the V0 budget is ``total ×
  gpu_memory_utilization − peak`` (vllm/worker/worker.py, determine_num_available_blocks), which does not subtract
  other processes' memory, so at a share of 0.9 or less the cache sized to fit it is refused only when another process
  holds more than a tenth of the GPU: other_process first, the budget second. A stated share above 0.9 keeps the
  budget first.
* An inference or evaluation loop that printed every item and failed after ten or more of them fitted, before its
  progress bar reached its total: memory kept from item to item (leak), with the per-item memory log as its check; a
  training loop, a finished bar or a counter with no word of inference is not read so.

Every text is a real message quoted from the public thread named in its comment. Negative cases check that each
reading needs its own evidence; the review's negative cases (at the end) edit such real messages or are built from the
engine's own source lines (vLLM's progress bar and frames), as each comment says."""

from __future__ import annotations

from gpudesk.oom import diagnose_text

# QwenLM/Qwen3#458 (IPython's view of vLLM's cache engine; the paste is cut after "GPU" as posted).
VLLM_KV_ALLOCATION = ("---> 64         torch.empty(kv_cache_shape,\n     65                     dtype=self.dtype,\n"
                      "     66                     pin_memory=pin_memory,\n     67                     device=device))\n"
                      "     68 return kv_cache\n\nOutOfMemoryError: CUDA out of memory. Tried to allocate 642.00 MiB. "
                      "GPU")
# chatdoc-com/OCRFlux#64 (vLLM's V0 cache engine, with PyTorch's per-process figures).
VLLM_KV_ALLOCATION_FIGURES = (
    'ERROR 07-30 18:15:55 engine.py:400]   File "/data/anaconda3/envs/ocrflux/lib/python3.11/site-packages/vllm/worker/'
    'cache_engine.py", line 103, in _allocate_kv_cache\n'
    "ERROR 07-30 18:15:55 engine.py:400]     layer_kv_cache = torch.zeros(alloc_shape,\n"
    "ERROR 07-30 18:15:55 engine.py:400] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 786.00 MiB. GPU 0 "
    "has a total capacity of 44.35 GiB of which 739.50 MiB is free. Process 7668 has 28.14 GiB memory in use. Process "
    "42562 has 536.00 MiB memory in use. Process 43388 has 1.94 GiB memory in use. Including non-PyTorch memory, this "
    "process has 12.99 GiB memory in use. Of the allocated memory 12.54 GiB is allocated by PyTorch, and 149.96 MiB is "
    "reserved by PyTorch but unallocated.")

# YBIGTA/pytorch-hair-segmentation#28 (evaluate.py over 210 images; the reporter found every image's outputs kept).
EVAL_LOOP = (
    "[ 29/210] processing image... \n[ 30/210] processing image... \nTraceback (most recent call last):\n"
    '  File "E:/2018/final/HairSegment/pytorch-hair-segmentation/evaluate.py", line 94, in <module>\n'
    "    logit = net(data)\n"
    '  File "E:\\2018\\final\\HairSegment\\pytorch-hair-segmentation\\networks\\pspnet.py", line 59, in forward\n'
    "    return torch.cat(features, dim=1)\n"
    "RuntimeError: CUDA out of memory. Tried to allocate 32.00 MiB (GPU 0; 8.00 GiB total capacity; 5.75 GiB already "
    "allocated; 17.18 MiB free; 351.95 MiB cached)")


def test_vllm_kv_allocation_without_figures_reads_another_holder_first() -> None:
    d = diagnose_text(VLLM_KV_ALLOCATION)
    top = d.causes[0]
    assert top.id == "other_process"
    assert top.evidence["deciding_check"] == "other_process"
    assert "gpu_memory_utilization (0.90)" in top.explanation and "10%" in top.explanation
    assert "stop the other processes" in top.fix and "lower gpu_memory_utilization" in top.fix
    # The budget stays named, second.
    assert [c.id for c in d.causes[:2]] == ["other_process", "kv_cache_budget"]


def test_vllm_kv_allocation_at_a_share_above_the_default_keeps_the_budget_first() -> None:
    text = "LLM(model, gpu_memory_utilization=0.98)\n" + VLLM_KV_ALLOCATION
    assert diagnose_text(text).causes[0].id == "kv_cache_budget"


def test_vllm_kv_allocation_at_a_stated_share_of_the_default_reads_another_holder() -> None:
    text = "vllm serve Qwen/Qwen1.5-32B-Chat-GPTQ-Int4 --gpu-memory-utilization 0.8\n" + VLLM_KV_ALLOCATION
    top = diagnose_text(text).causes[0]
    assert top.id == "other_process" and "(0.80)" in top.explanation and "20%" in top.explanation


def test_vllm_kv_allocation_with_figures_is_read_from_the_figures() -> None:
    d = diagnose_text(VLLM_KV_ALLOCATION_FIGURES)
    assert d.causes[0].id == "other_process"
    assert "vLLM's KV cache was refused" not in d.causes[0].title  # the figures' reading, not the figureless one


def test_another_engines_kv_buffer_is_not_read_as_vllms_budget() -> None:
    text = VLLM_KV_ALLOCATION.replace("torch.empty(kv_cache_shape,", "self.key_buffer = [torch.empty((size,")
    top = diagnose_text(text).causes[0]
    assert top.id == "kv_cache_budget"


def test_an_evaluation_loop_failing_after_many_images_reads_memory_kept_per_item() -> None:
    d = diagnose_text(EVAL_LOOP)
    top = d.causes[0]
    assert top.id == "leak"
    assert "up to 30" in top.explanation
    assert "torch.no_grad()" in top.fix and ".cpu()" in top.fix
    assert any("memory_allocated() (or nvidia-smi's used memory) after every item" in c for c in top.checks)
    assert d.causes[1].id == "genuine_shortage"


def test_the_same_loop_failing_at_its_first_items_is_not_read_as_growth() -> None:
    text = EVAL_LOOP.replace("[ 29/210]", "[  2/210]").replace("[ 30/210]", "[  3/210]")
    assert diagnose_text(text).causes[0].id == "genuine_shortage"


def test_a_training_loop_with_the_same_counter_is_not_the_inference_reading() -> None:
    text = EVAL_LOOP.replace("processing image...", "loss: 0.412").replace("logit = net(data)", "loss.backward()")
    assert all(c.title != "Memory kept from item to item in an inference loop" for c in diagnose_text(text).causes)


def test_a_counter_without_words_of_inference_is_not_the_inference_reading() -> None:
    # The same counted loop with nothing that says what it counts: a traceback's "File" lines and PyTorch's
    # "Process N has" clause are not words of an inference loop.
    text = (EVAL_LOOP.replace(" processing image...", "").replace("evaluate.py", "run.py")
            + "\nProcess 4242 has 7.50 GiB memory in use.")
    assert all(c.title != "Memory kept from item to item in an inference loop" for c in diagnose_text(text).causes)


def test_a_models_own_kv_cache_line_is_not_vllms_cache_engine() -> None:
    # A model's own KV cache sized for max_batch_size x max_seq_len (a gpt-fast style "self.k_cache =
    # torch.empty(kv_cache_shape)", no pinned CPU twin): the budget reading, not vLLM V0's other-holder one.
    text = ("    self.k_cache = torch.empty(kv_cache_shape)\n\n"
            "OutOfMemoryError: CUDA out of memory. Tried to allocate 642.00 MiB. GPU")
    causes = diagnose_text(text).causes
    assert causes[0].id == "kv_cache_budget"
    assert all("vLLM's KV cache was refused" not in c.title for c in causes)


def test_a_finished_progress_bar_is_not_a_failure_inside_the_loop() -> None:
    # The same loop drawn as a tqdm bar that reached its total: the failure came after the last item (a decode or a
    # save step), not from memory kept across the items.
    text = ("Processing images:  95%|#########5| 19/20 [00:05<00:00,  3.91it/s]\n"
            "Processing images: 100%|##########| 20/20 [00:05<00:00,  3.90it/s]\n" + EVAL_LOOP.split("\n", 2)[2])
    assert all(c.title != "Memory kept from item to item in an inference loop" for c in diagnose_text(text).causes)
    unfinished = text.replace("19/20 [", "11/20 [").replace("20/20 [", "12/20 [")
    assert diagnose_text(unfinished).causes[0].title == "Memory kept from item to item in an inference loop"


# Review of the forty-sixth pass: the two readings on real messages they were not written for.

# NVIDIA/TensorRT-LLM#6281 (tests/fixtures/oom/fresh_cases_37.jsonl): a weight-loading bar cut by the failure.
TRTLLM_LOADING = (
    "Loading weights concurrently:  47%|████▋     | 667/1417 [00:03<00:05, 139.82it/s][07/23/2025-06:37:06] [TRT-LLM] "
    "[RANK 1] [E] Error executing load_single_module with args ('model.layers.29.mlp.gate_up_proj', Linear()): CUDA out "
    "of memory. Tried to allocate 126.00 MiB. GPU 0 has a total capacity of 23.53 GiB of which 43.00 MiB is free. "
    "Process 32689 has 404.00 MiB memory in use. Process 33095 has 19.44 GiB memory in use. Process 33096 has 3.63 GiB "
    "memory in use.")
ITEM_LOOP_TITLE = "Memory kept from item to item in an inference loop"


def test_a_weight_loading_bar_is_not_an_item_loop() -> None:
    # The same bar as tqdm writes it to a log file (every redraw on its own line) from a script named infer.py, the
    # engine's tag left out (an engine named is not read as an item loop either): the items counted are weights that
    # stay on the device by design, so their count says nothing of memory kept per item.
    redrawn = TRTLLM_LOADING.replace("[TRT-LLM] ", "").replace(
        "Loading weights concurrently:  47%",
        "Loading weights concurrently:  47%|████▋     | 666/1417 [00:03<00:05, 139.80it/s]\n"
        "Loading weights concurrently:  47%", 1)
    causes = diagnose_text("python infer.py\n" + redrawn).causes
    # Rank 0's 19.44 GiB and 3.63 GiB of a neighbouring PID on rank 1's message's GPU 0: the job's ranks on one GPU
    # (fiftieth pass, gpudesk.oom.rules.ranks_on_one_gpu; the case's label in fresh_cases_37), another process second.
    assert causes[0].id == "multi_gpu_imbalance"
    assert causes[1].id == "other_process"
    assert all(c.title != ITEM_LOOP_TITLE for c in causes)
    # The same counters labelled as frames processed stay the item-loop reading.
    frames = redrawn.replace("Loading weights concurrently", "Processing frames")
    assert any(c.title == ITEM_LOOP_TITLE for c in diagnose_text("python infer.py\n" + frames).causes)


def test_vllm_kv_allocation_reads_the_share_in_every_form_a_config_states_it() -> None:
    # A JSON or dict config ('"gpu_memory_utilization": 0.95') and words ("set ... to 0.95") state a share above the
    # default as surely as "--gpu-memory-utilization 0.95": the budget reading stays first.
    for stated in ('{"model": "Qwen/Qwen1.5-32B-Chat-GPTQ-Int4", "gpu_memory_utilization": 0.95}',
                   "engine_args = {'gpu_memory_utilization': 0.95, 'max_model_len': 8192}",
                   "I set gpu_memory_utilization to 0.95"):
        assert diagnose_text(stated + "\n" + VLLM_KV_ALLOCATION).causes[0].id == "kv_cache_budget", stated
    top = diagnose_text('{"gpu_memory_utilization": 0.8}\n' + VLLM_KV_ALLOCATION).causes[0]
    assert top.id == "other_process" and "(0.80)" in top.explanation


def test_a_serving_engines_request_bar_is_not_an_item_loop() -> None:
    # Built from vLLM's own lines (not a thread's paste): its offline bar ("Processed prompts", vllm/entrypoints/llm.py
    # _run_engine) and its sampler's frame. The bar counts requests served from the KV
    # pool the engine sized at start-up, under inference mode: no autograd graph or per-item result to keep. Its
    # sampler's logprobs allocation refused at request 12 is the step's own need beside the pool.
    text = ("Processed prompts:  11%|█         | 11/100 [00:21<02:50,  1.92s/it, est. speed input: 910.21 toks/s]\n"
            "Processed prompts:  12%|█▏        | 12/100 [00:23<02:48,  1.92s/it, est. speed input: 905.33 toks/s]\n"
            'Traceback (most recent call last):\n  File "/usr/local/lib/python3.10/dist-packages/vllm/model_executor/'
            'layers/sampler.py", line 305, in _get_logprobs\n'
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.64 GiB. GPU 0 has a total capacity of "
            "79.15 GiB of which 3.02 GiB is free. Including non-PyTorch memory, this process has 76.12 GiB memory in "
            "use. Of the allocated memory 74.50 GiB is allocated by PyTorch, and 1.02 GiB is reserved by PyTorch but "
            "unallocated.")
    assert all(c.title != ITEM_LOOP_TITLE for c in diagnose_text(text).causes)
    # The same bar from a script of one's own (no engine named) is the item-loop reading.
    own = text.replace("/vllm/model_executor/layers/sampler.py", "/mytool/generate.py")
    assert any(c.title == ITEM_LOOP_TITLE for c in diagnose_text(own).causes)


def test_vllm_v1s_kv_cache_allocation_is_not_v0s_cache_engine() -> None:
    # Built from vLLM V1's own source (vllm/v1/worker/gpu_model_runner.py, initialize_kv_cache, 0.7-0.8: "kv_caches[
    # layer_name] = torch.zeros(kv_cache_shape, ..."), which shares V0's variable name but not its cache engine: the
    # KV-pool budget reading, not V0's other-holder one.
    text = ('  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 1459, in '
            "initialize_kv_cache\n    kv_caches[layer_name] = torch.zeros(kv_cache_shape,\n"
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 642.00 MiB. GPU")
    causes = diagnose_text(text).causes
    assert causes[0].id == "kv_cache_budget"
    assert all("vLLM's KV cache was refused" not in c.title for c in causes)


def test_a_whole_tqdm_log_with_its_first_redraw_is_still_the_item_loop() -> None:
    # hacksider/Deep-Live-Cam#584 (tests/fixtures/oom/fresh_cases_44.jsonl) as the whole log shows it: tqdm's first
    # redraw at 0 of 1744 frames, then the frames that failed (their ONNX Runtime line abridged). The 0 at the top is
    # where the loop began, not where it failed: 1731 frames fitted before.
    failure = ("[ONNXRuntimeError] : 1 : FAIL : onnxruntime::CudaCall CUDA failure 2: out of memory ; GPU=0 ; "
               "hostname=DESKTOP-QUBEI ; expr=cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);\n")
    excerpt = ("Processing:  99%|▉| 1732/1744 [08:43<00:03,  3.79frame/s, execution_providers=['CUDAExecutionProvider'], "
               "execution_thre" + failure + "\nProcessing:  99%|▉| 1733/1744 [08:44<00:03,  3.27frame/s, "
               "execution_providers=['CUDAExecutionProvider'], execution_thre" + failure)
    whole = "Processing:   0%|          | 0/1744 [00:00<?, ?frame/s]\n" + excerpt
    for text in (excerpt, whole):
        top = diagnose_text(text).causes[0]
        assert top.title == ITEM_LOOP_TITLE and "up to 1733" in top.explanation


def test_a_samplers_step_bar_after_its_first_redraw_is_not_an_item_loop() -> None:
    # A diffusion sampler's unlabelled step bar in a whole log (first redraw at 0, then steps 10 and 11 of 20) with
    # ComfyUI's "Exception during processing" line: the counter counts denoising steps of one image, not items, and
    # its own line names nothing; the failure stays a shortage.
    text = ("got prompt\n  0%|          | 0/20 [00:00<?, ?it/s]\n 50%|#####     | 10/20 [00:04<00:04,  2.31it/s]\n"
            " 55%|#####5    | 11/20 [00:04<00:03,  2.30it/s]\n!!! Exception during processing !!! CUDA out of memory. "
            "Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 11.99 GiB of which 0 bytes is free.")
    assert all(c.title != ITEM_LOOP_TITLE for c in diagnose_text(text).causes)
