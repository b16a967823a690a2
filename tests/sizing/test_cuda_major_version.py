"""--cuda-major-version: with lazy module loading off, a CUDA 10 build's eager context is smaller than CUDA 11's."""

import json

import pytest

from conftest import FIXTURES
from gpudesk.cli import main
from gpudesk.sizing import spec_from_hf_config
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.memory import MemoryWorkload, estimate_memory
from gpudesk.sizing.overheads import EAGER_CUDA10_CONTEXT_BYTES, EAGER_MODULE_LOADING_CONTEXT_BYTES
from gpudesk.sizing.validation import evaluate_case, load_cases
from gpudesk.units import MIB

CONFIGS = FIXTURES / "sizing" / "configs"
BERT = spec_from_hf_config(CONFIGS / "bert-base-uncased.config.json")
# transformers 2.11 PyTorchBenchmark: one BertModel forward, fp32, batch 8 (the fresh-34 benchmarks.md rows).
_BENCH = dict(mode="inference", precision="fp32", weight_format="fp32", seq_len_tokens=128, context_tokens=128,
              prompt_tokens=128, micro_batch_size=8, concurrent_sequences=8, no_kv_cache=True, flash_attention=False,
              cuda_lazy_loading=False)


def test_cuda10_eager_context_replaces_cuda11s_and_nothing_else():
    cuda11 = estimate_memory(BERT, MemoryWorkload(**_BENCH))
    cuda10 = estimate_memory(BERT, MemoryWorkload(**_BENCH, cuda_major_version=10))
    assert cuda11.component("cuda_context") == EAGER_MODULE_LOADING_CONTEXT_BYTES
    assert cuda10.component("cuda_context") == EAGER_CUDA10_CONTEXT_BYTES == 877 * MIB
    assert cuda11.device_bytes - cuda10.device_bytes == (1343 - 877) * MIB
    # Tensors the allocator holds do not depend on the toolkit.
    assert cuda10.allocated_bytes == cuda11.allocated_bytes
    assert cuda10.reserved_bytes == cuda11.reserved_bytes
    # CUDA 11 and later share the eager figure; lazy loading ignores it.
    assert estimate_memory(BERT, MemoryWorkload(**_BENCH, cuda_major_version=12)).breakdown == cuda11.breakdown
    lazy = {**_BENCH, "cuda_lazy_loading": True}
    assert (estimate_memory(BERT, MemoryWorkload(**lazy, cuda_major_version=11)).breakdown
            == estimate_memory(BERT, MemoryWorkload(**lazy)).breakdown)


def test_refused_with_lazy_loading_or_an_unknown_version():
    with pytest.raises(SizingError) as err:
        estimate_memory(BERT, MemoryWorkload(**{**_BENCH, "cuda_lazy_loading": True}, cuda_major_version=10))
    assert err.value.field == "cuda_major_version" and "11.7" in err.value.reason
    for bad in (9, 14, True):
        with pytest.raises(SizingError) as err:
            estimate_memory(BERT, MemoryWorkload(**_BENCH, cuda_major_version=bad))
        assert err.value.field == "cuda_major_version"


def test_benchmarks_md_rows_typed_with_their_cuda_10_build():
    # PyTorch 1.4.0 (CUDA 10.1 wheels) on a TITAN RTX: NVML used memory after one forward. Typed with the build's
    # CUDA the estimate moves by the context difference only; the rows themselves are not edited.
    rows = [c for c in load_cases(FIXTURES / "sizing" / "measured_peaks_fresh34.jsonl") if "-hfbench-" in c["id"]]
    assert len(rows) == 10 and all("cuda_major_version" not in c and not c["cuda_lazy_loading"] for c in rows)
    for row in rows:
        untyped = evaluate_case(row, CONFIGS)
        typed = evaluate_case({**row, "cuda_major_version": 10}, CONFIGS)
        assert untyped.estimated_bytes - typed.estimated_bytes == (1343 - 877) * MIB
        assert untyped.ratio > 1.3 and abs(typed.ratio - 1) < 0.08


def test_cli_flag(capsys: pytest.CaptureFixture[str]) -> None:
    bench = ["estimate", "memory", "--json", "--config", str(CONFIGS / "bert-base-uncased.config.json"), "--mode",
             "inference", "--precision", "fp32", "--batch", "8", "--seq", "128", "--prompt-tokens", "128",
             "--no-kv-cache", "--no-flash", "--cuda-lazy-loading", "off", "--gpus", "1"]
    assert main(bench) == 0
    cuda11 = json.loads(capsys.readouterr().out)["per_gpu"]["total_bytes"]
    assert main(bench + ["--cuda-major-version", "10"]) == 0
    assert cuda11 - json.loads(capsys.readouterr().out)["per_gpu"]["total_bytes"] == (1343 - 877) * MIB
    lazy = [a if a != "off" else "on" for a in bench]
    status = main(lazy + ["--cuda-major-version", "10"])
    err = capsys.readouterr().err
    assert status in (1, 2) and "--cuda-major-version:" in err and "11.7" in err


def test_profile_field_reaches_the_workload_and_is_checked():
    from gpudesk.planner.requirement import ModelMemory, Requirement, requirement_problems
    from gpudesk.planner.workload import memory_workload

    req = Requirement(model=ModelMemory(mode="inference", cuda_lazy_loading=False, cuda_major_version=10))
    assert memory_workload(req).cuda_major_version == 10
    assert not [p for p in requirement_problems(req) if "cuda_major_version" in str(p)]
    bad = Requirement(model=ModelMemory(mode="inference", cuda_major_version=9))
    assert [p for p in requirement_problems(bad) if "cuda_major_version" in str(p)]
