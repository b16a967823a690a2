"""Fifteenth pass (issue 28): the misses that recurred over the seen batches fresh-13..17, read as mechanisms.

* PyTorch before 1.10 (its message dates the allocator): the cached memory left when it raises sits inside segments
  its live tensors occupy, and no setting of that allocator frees it, so while it is smaller than the live tensors the
  job's peak leads and fragmentation is only possible; a cache larger than the live tensors stays fragmentation.

Every text is a real message quoted from the public thread named in its comment; a variant is marked as such.
Negative cases check that each reading needs its own figures or words."""

from __future__ import annotations

from gpudesk.oom import diagnose_text


def _ids(text: str) -> list[str]:
    return [c.id for c in diagnose_text(text).causes]


# Scalsol/mega.pytorch#32 (PyTorch <= 1.3 wording, a 4 GB GTX 1050 Ti; the method's memory module was too large).
MEGA_CACHED = ("CUDA out of memory. Tried to allocate 396.00 MiB (GPU 0; 3.95 GiB total capacity; 1.89 GiB already "
               "allocated; 384.75 MiB free; 650.19 MiB cached)")
# rshaojimmy/MADDoG#11 (PyTorch 1.4-1.9 wording; the maintainer: use a GPU with more memory).
MADDOG_RESERVED = ("RuntimeError: CUDA out of memory. Tried to allocate 2.87 GiB (GPU 0; 14.76 GiB total capacity; "
                   "8.77 GiB already allocated; 19.75 MiB free; 13.71 GiB reserved in total by PyTorch)")
# fredzzhang/pocket#9 (PyTorch <= 1.3 wording): 6.80 GiB cached beside 307.86 MiB of live tensors.
POCKET_CACHED = ("RuntimeError: CUDA out of memory. Tried to allocate 7.31 GiB (GPU 0; 11.92 GiB total capacity; "
                 "307.86 MiB already allocated; 4.36 GiB free; 6.80 GiB cached)")


def test_an_old_allocators_cache_smaller_than_the_live_tensors_is_the_jobs_peak():
    for text in (MEGA_CACHED, MADDOG_RESERVED):
        causes = diagnose_text(text).causes
        assert causes[0].id == "genuine_shortage", text
        frag = next(c for c in causes if c.id == "fragmentation")
        assert frag.confidence <= 0.5 and causes[0].confidence > frag.confidence
        assert "lowering the peak" in causes[0].explanation


def test_an_old_allocators_cache_larger_than_the_live_tensors_stays_fragmentation():
    assert _ids(POCKET_CACHED)[0] == "fragmentation"


def test_the_same_figures_in_a_message_of_an_allocator_with_settings_keep_fragmentation():
    # Negative (variant: MADDoG's figures in the 1.10+ wording, whose allocator has max_split_size_mb).
    text = MADDOG_RESERVED + (" If reserved memory is >> allocated memory try setting max_split_size_mb to avoid "
                              "fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF")
    assert _ids(text)[0] == "fragmentation"
