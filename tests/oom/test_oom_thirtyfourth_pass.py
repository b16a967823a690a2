"""Thirty-fourth pass (issue 28, the misses of fresh batch 36): what the text carries that the doctor ignored.

* The shell's "Killed" glued to a tqdm bar whose unit is not tqdm's default "it" ("20891.13 examples/s]Killed", HF
  datasets' ``map``): tqdm's rate is "<unit>/s" or "s/<unit>" for any unit (tqdm/std.py, ``format_meter``), so the
  mark is the same SIGKILL of the OOM killer (``host_ram``).
* PyTorch's message whose figures stop after the capacity ("(GPU 1; 14.76 GiB total capacity;)"): the capacity alone
  weighs nothing, so it reads as the bare "CUDA out of memory." does, not as clauses that failed to parse.

Every text is a real message quoted from the public thread named in its comment. Negative cases check that each
reading needs its own words or figures."""

from __future__ import annotations

from helpers.oom_top import top_cause as _top

from gpudesk.oom import diagnose_text


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
