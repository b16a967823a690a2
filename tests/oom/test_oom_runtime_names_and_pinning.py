"""qa17: the runtime a report recognised is shown by its name (not its id) and the memory outside its allocator is
worded for that runtime; the pinned-memory fix names a DataLoader only when the text shows one."""

from __future__ import annotations

import io

from gpudesk import i18n

from gpudesk.oom import diagnose_text
from gpudesk.oom.account import accounts_of
from gpudesk.oom.labels import runtime_name

# CUDA.jl's OutOfGPUMemoryError with its status printout (src/pool.jl memory_status), written for this test.
CUDA_JL = (
    "ERROR: LoadError: Out of GPU memory trying to allocate 8.016 MiB\n"
    "Effective GPU memory usage: 91.54% (14.446 GiB/15.782 GiB)\n"
    "Memory pool usage: 13.984 GiB (14.000 GiB reserved)\n"
)
# FalkonML/falkon#31's title: PyTorch's caching host allocator could not pin (cudaErrorOperatingSystem), no DataLoader.
FALKON_31 = "cuda runtime error (304) : OS call failed or operation not supported on this OS"
# hearbenchmark/hear-eval-kit#316: the DataLoader's pin-memory thread.
PIN_THREAD = "RuntimeError: Caught RuntimeError in pin memory thread for device 0."


def _shown(cause) -> str:
    return "\n".join([cause.fix, *cause.more_fixes, *cause.checks])


def test_pinned_memory_without_a_dataloader_gets_generic_advice() -> None:
    top = diagnose_text(FALKON_31).causes[0]
    assert top.id == "not_capacity"
    text = _shown(top)
    assert "DataLoader" not in text and "pin_memory=False" not in text
    assert "ulimit -l" in text and "RAM" in text


def test_pinned_memory_with_a_dataloader_names_it() -> None:
    for text in (PIN_THREAD, 'File "/x/torch/utils/data/dataloader.py", line 9\n' + FALKON_31):
        top = diagnose_text(text).causes[0]
        assert "pin_memory=False" in top.fix and "DataLoader" in top.fix, text


def test_runtime_ids_have_display_names() -> None:
    assert runtime_name("cudajl") == "CUDA.jl"
    assert runtime_name("tensorflow") == "TensorFlow"
    assert runtime_name("something-new") == "something-new"


def test_cli_names_cuda_jl_not_its_id() -> None:
    from gpudesk.cli.oom import print_diagnosis

    out = io.StringIO()
    print_diagnosis(diagnose_text(CUDA_JL), out=out)
    text = out.getvalue()
    assert "cudajl" not in text
    assert "Recognised: CUDA.jl" in text and "Framework: CUDA.jl" in text


def test_account_note_words_memory_outside_the_runtime_not_pytorch() -> None:
    notes = " ".join(t.note for a in accounts_of(diagnose_text(CUDA_JL).report) for t in a.terms)
    assert "PyTorch" not in notes
    assert "outside the framework's allocator" in notes


def test_unrecognised_framework_is_named_in_the_language() -> None:
    """The copied report and the history table show an unrecognised framework through runtime_name."""
    before = i18n.current_language()
    try:
        assert runtime_name("unknown") == "unknown"
        i18n.set_language("zh_CN")
        assert runtime_name("unknown") == "未知"
    finally:
        i18n.set_language(before)
