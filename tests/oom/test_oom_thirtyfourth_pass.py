"""Thirty-fourth pass (issue 28, the misses of fresh batch 36): what the text carries that the doctor ignored.

* The shell's "Killed" glued to a tqdm bar whose unit is not tqdm's default "it" ("20891.13 examples/s]Killed", HF
  datasets' ``map``): tqdm's rate is "<unit>/s" or "s/<unit>" for any unit (tqdm/std.py, ``format_meter``), so the
  mark is the same SIGKILL of the OOM killer (``host_ram``).
* PyTorch's message whose figures stop after the capacity ("(GPU 1; 14.76 GiB total capacity;)"): the capacity alone
  weighs nothing, so it reads as the bare "CUDA out of memory." does, not as clauses that failed to parse.
* PyTorch's cudaMallocAsync backend ("Allocation on device N would exceed allowed memory"): device limit − free −
  currently allocated is memory the stream-ordered pool retains (or another process holds); a quarter of the device
  beyond a context, many times the request, is the pool's fragmentation, not the job's size.
* Several PyTorch OOMs for one GPU in one log: the program caught the earlier ones (an uncaught exception ends the
  process), so the last one's figures are what the fatal refusal met.

Every text is a real message quoted from the public thread named in its comment. Negative cases check that each
reading needs its own words or figures."""

from __future__ import annotations

from helpers.oom_top import top_cause as _top

from gpudesk.oom import diagnose_text
from gpudesk.units import GIB


# Shark-NLP/DiffuSeq#64 (tokenising 3.38M pairs in memory; the process is killed two thirds through padding).
DATASETS_MAP_KILLED = (
    "> RAM used: 4182.97 MB\n"
    "> merge and mask: 100% 3382137/3382137 [02:41<00:00, 20891.13 examples/s]\n"
    "> RAM used: 6818.71 MB\n"
    "> padding:  65% 2207000/3382137 [03:08<01:16, 15381.54 examples/s]Killed")


def test_killed_after_a_bar_counting_examples_is_host_ram() -> None:
    d = diagnose_text(DATASETS_MAP_KILLED)
    top = d.causes[0]
    assert d.found_oom and top.id == "not_capacity"
    assert top.evidence["deciding_check"] == "host_ram"
    assert "dmesg" in top.evidence["check_command"]


def test_seconds_per_unit_bar_is_read_too() -> None:
    # tqdm prints "s/<unit>" when one unit takes more than a second.
    slow = "padding:  3%| | 2/64 [00:09<04:39, 4.51s/batch]Killed"
    assert _top(slow)[0::2] == ("not_capacity", "host_ram")


def test_a_bar_that_finished_without_killed_is_not_a_kill() -> None:
    done = DATASETS_MAP_KILLED.replace("examples/s]Killed", "examples/s]")
    assert not diagnose_text(done).found_oom


def test_killed_inside_a_line_of_prose_is_not_the_shell_mark() -> None:
    prose = "padding 65% [03:08<01:16, 15381.54 examples/s]Killed the job myself to change the config"
    assert _top(prose)[2] != "host_ram"


# pyg-team/pytorch_geometric#2730 (the issue title: a full-graph GCN on a 15 GB card; the fix was mini-batches).
CAPACITY_ONLY = "RuntimeError: CUDA out of memory.(GPU 1; 14.76 GiB total capacity;)"


def test_figures_cut_after_the_capacity_read_as_the_bare_message() -> None:
    d = diagnose_text(CAPACITY_ONLY)
    top = d.causes[0]
    assert d.found_oom and top.id == "genuine_shortage"
    assert top.confidence == diagnose_text("RuntimeError: CUDA out of memory.").causes[0].confidence
    assert "batch" in top.fix.lower() or "batch" in " ".join(top.more_fixes).lower()


def test_capacity_with_a_live_figure_is_not_the_bare_reading() -> None:
    # A figure beside the capacity (what PyTorch already holds) is weighed by the rules that read it; with the free
    # memory cut, that stays "not enough of the message", not the figure-less 0.45 reading.
    cut = "RuntimeError: CUDA out of memory. (GPU 0; 10.76 GiB total capacity; 9.10 GiB already allocated;)"
    top = diagnose_text(cut).causes[0]
    assert (top.id, top.confidence) != ("genuine_shortage", 0.45)


# pytorch/pytorch#110194 (training with backend:cudaMallocAsync on an 80 GB card; the native allocator runs the job).
ASYNC_POOL_TRAINING = (
    "torch.cuda.OutOfMemoryError: Allocation on device 5 would exceed allowed memory. (out of memory)\n"
    "Currently allocated     : 54.14 GiB\n"
    "Requested               : 686.41 MiB\n"
    "Device limit            : 79.35 GiB\n"
    "Free (according to CUDA): 27.19 MiB\n"
    "PyTorch limit (set by user-supplied memory fraction)\n"
    "                        : 17179869184.00 GiB")

# huggingface/text-generation-inference#655 (BLOOM shards; fixed by leaving the cudaMallocAsync allocator).
ASYNC_POOL_SERVING = (
    '  File "/opt/conda/lib/python3.9/site-packages/text_generation_server/models/custom_modeling/bloom_modeling.py", '
    "line 306, in compute_attention\n"
    "    value_layer = torch.cat((past_value, value_layer), dim=1)\n"
    "torch.cuda.OutOfMemoryError: Allocation on device 0 would exceed allowed memory. (out of memory)\n"
    "Currently allocated     : 9.64 GiB\n"
    "Requested               : 1.49 MiB\n"
    "Device limit            : 39.39 GiB\n"
    "Free (according to CUDA): 3.06 MiB\n"
    "PyTorch limit (set by user-supplied memory fraction)\n"
    "                        : 39.39 GiB")


def test_async_pool_holding_a_third_of_the_card_is_fragmentation() -> None:
    d = diagnose_text(ASYNC_POOL_TRAINING)
    top = d.causes[0]
    assert top.id == "fragmentation"
    # 79.35 − 54.14 GiB − 27 MiB: about 25.2 GiB in neither figure.
    assert 25.1 * GIB < top.evidence["unaccounted_bytes"] < 25.3 * GIB
    assert "backend:cudaMallocAsync" in top.fix
    assert top.evidence["deciding_check"] == "other_process"
    assert "genuine_shortage" in [c.id for c in d.causes[1:]]


def test_async_pool_with_a_fraction_limit_equal_to_the_device_is_read_too() -> None:
    top = diagnose_text(ASYNC_POOL_SERVING).causes[0]
    assert top.id == "fragmentation" and top.evidence["unaccounted_bytes"] > 29 * GIB


# huggingface/text-generation-inference#563 (flan-t5-xl warm-up with a large token budget on a 24 GB card).
ASYNC_WARMUP_REQUEST = (
    "Allocation on device 0 would exceed allowed memory. (out of memory)\nCurrently allocated     : 16.08 GiB\n"
    "Requested               : 4.83 GiB\nDevice limit            : 22.20 GiB\nFree (according to CUDA): 11.12 MiB\n"
    "PyTorch limit (set by user-supplied memory fraction)\n                        : 22.20 GiB")

# Comfy-Org/ComfyUI#1781 (SDXL control-LoRA on a 6 GB RTX 2060).
ASYNC_SMALL_CARD = (
    "Allocation on device 0 would exceed allowed memory. (out of memory)\nCurrently allocated : 4.58 GiB\n"
    "Requested : 256.00 MiB\nDevice limit : 6.00 GiB\nFree (according to CUDA): 0 bytes\n"
    "PyTorch limit (set by user-supplied memory fraction)\n: 17179869184.00 GiB")


def test_unaccounted_memory_near_the_request_is_not_the_pool() -> None:
    # 6.1 GiB outside the live tensors for a 4.83 GiB request: the request not fitting beside them.
    assert diagnose_text(ASYNC_WARMUP_REQUEST).causes[0].id == "genuine_shortage"


def test_a_desktop_cards_context_and_display_are_not_the_pool() -> None:
    # 1.42 GiB outside the live tensors on a 6 GiB card: a context and a desktop, not a quarter of it beyond that.
    assert diagnose_text(ASYNC_SMALL_CARD).causes[0].id != "fragmentation"


def test_a_user_fraction_below_the_device_is_not_read_as_the_pool() -> None:
    capped = ASYNC_POOL_TRAINING.replace("17179869184.00 GiB", "40.00 GiB")
    # The user's 40 GiB cap, not the pool, is what the request ran into (per_process_cap reads it).
    assert diagnose_text(capped).causes[0].id == "per_process_cap"


# nanoporetech/dorado#326 (duplex basecalling on an A100 40 GB; dorado catches the first OOM, empties the cache and
# retries; the retry fails with other figures and ends the run).
CAUGHT_THEN_FATAL = (
    "[2023-08-09 13:29:43.998] [warning] Caught Torch error 'CUDA out of memory. Tried to allocate 22.47 GiB (GPU 1; "
    "39.39 GiB total capacity; 17.26 GiB already allocated; 4.07 GiB free; 34.77 GiB reserved in total by PyTorch) If "
    "reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation "
    "for Memory Management and PYTORCH_CUDA_ALLOC_CONF', clearing CUDA cache and retrying.\n"
    "terminate called after throwing an instance of 'c10::OutOfMemoryError'\n"
    "  what():  CUDA out of memory. Tried to allocate 22.47 GiB (GPU 1; 39.39 GiB total capacity; 16.70 GiB already "
    "allocated; 4.63 GiB free; 34.21 GiB reserved in total by PyTorch)")


def test_the_last_message_for_the_gpu_is_the_one_diagnosed() -> None:
    d = diagnose_text(CAUGHT_THEN_FATAL)
    top = d.causes[0]
    # The retry's figures: 16.70 GiB live, so 22.69 GiB could be freed for the 22.47 GiB request; free plus cached
    # (22.14 GiB) falls short of it: the work size is too large for the card, not one request beyond it.
    assert top.id == "genuine_shortage"
    assert 16.6 * GIB < top.evidence["allocated_bytes"] < 16.8 * GIB


def test_messages_for_other_gpus_keep_the_first_as_diagnosed() -> None:
    two_ranks = CAUGHT_THEN_FATAL.replace("(GPU 1; 39.39 GiB total capacity; 16.70", "(GPU 2; 39.39 GiB total "
                                          "capacity; 16.70")
    device = diagnose_text(two_ranks).report.device
    assert device is not None and device.allocated_bytes is not None
    assert 17.2 * GIB < device.allocated_bytes < 17.3 * GIB
