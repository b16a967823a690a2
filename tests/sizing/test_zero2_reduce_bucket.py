"""zero2_reduce_bucket / --zero2-reduce-bucket: DeepSpeed ZeRO-2's reduce_bucket_size in elements (None: DeepSpeed's
5e8 default; the Hugging Face Trainer's "auto" fills hidden_size^2, gpudesk.sizing.zero2_buffers)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from conftest import FIXTURES
from gpudesk.cli import main
from gpudesk.sizing import MemoryWorkload, estimate_memory, spec_from_hf_config
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.validation import case_workload, evaluate_case, load_cases
from gpudesk.sizing.zero2_buffers import DEFAULT_REDUCE_BUCKET_ELEMENTS

SIZING = FIXTURES / "sizing"
CONFIGS = SIZING / "configs"
DISTILBERT = spec_from_hf_config(CONFIGS / "distilbert-base-uncased.config.json")
LLAMA3 = spec_from_hf_config(CONFIGS / "llama-3-8b.config.json")
RASBT = "fresh49-rasbtmemopt-distilbert-full-dszero2-fp16-4gpu-b12-s512"


def _rasbt() -> MemoryWorkload:
    case = next(c for c in load_cases(SIZING / "measured_peaks_fresh49.jsonl") if c["id"] == RASBT)
    return case_workload(case)


def test_the_bucket_follows_the_setting():
    w = _rasbt()
    default = estimate_memory(DISTILBERT, w)
    assert default.breakdown["zero_gradient_buffers"] == DEFAULT_REDUCE_BUCKET_ELEMENTS * 2
    lightning = estimate_memory(DISTILBERT, dataclasses.replace(w, zero2_reduce_bucket=2 * 10**8))
    assert lightning.breakdown["zero_gradient_buffers"] == 2 * 10**8 * 2
    assert any("2e8" not in text and "200,000,000 elements, as given" in text for text, _s in lightning.assumptions)
    hf_auto = estimate_memory(DISTILBERT, dataclasses.replace(w, zero2_reduce_bucket=768 * 768))
    assert hf_auto.breakdown.get("zero_gradient_buffers", 0) <= 768 * 768 * 2


def test_the_offload_path_reads_it_too():
    w = MemoryWorkload(mode="train", precision="fp16", optimizer="adamw", seq_len_tokens=2048, micro_batch_size=1,
                       gpus=8, sharding="zero2", offload="optimizer", recompute="full", flash_attention=True)
    default = estimate_memory(LLAMA3, w).breakdown["zero_gradient_buffers"]
    small = estimate_memory(LLAMA3, dataclasses.replace(w, zero2_reduce_bucket=4096 * 4096))
    assert default - small.breakdown["zero_gradient_buffers"] == (DEFAULT_REDUCE_BUCKET_ELEMENTS - 4096 * 4096) * 2


@pytest.mark.parametrize("kw", [dict(sharding="zero3"), dict(sharding="zero1"), dict(sharding="ddp"),
                                dict(sharding="fsdp-grad-op"), dict(mode="lora", lora_rank=8),
                                dict(zero2_reduce_bucket=-1), dict(zero2_reduce_bucket=1.5)])
def test_refused_where_nothing_reads_it(kw):
    w = dataclasses.replace(_rasbt(), **{"zero2_reduce_bucket": 10**6, **kw})
    with pytest.raises(SizingError) as err:
        estimate_memory(DISTILBERT, w)
    assert err.value.field == "zero2_reduce_bucket"


def test_no_row_types_it_so_none_moved():
    # fresh31 soup Qwen2.5-0.5B full ZeRO-2 (HF Trainer, "auto" config) reads 1.38 at DeepSpeed's 5e8 default; the
    # row does not type the bucket, so it is not changed here. Typed as HF's fill (896^2) it would read about 1.16.
    row = next(c for c in load_cases(SIZING / "measured_peaks_fresh31.jsonl")
               if c["id"] == "fresh31-soup-qwen25-05b-full-zero2-4xh100")
    assert "zero2_reduce_bucket" not in row
    typed = evaluate_case({**row, "zero2_reduce_bucket": 896 * 896}, CONFIGS)
    assert typed.ratio < evaluate_case(row, CONFIGS).ratio


def test_cli_flag(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["estimate", "memory", "--json", "--config", str(CONFIGS / "distilbert-base-uncased.config.json"),
            "--mode", "train", "--precision", "fp16", "--gpus", "4", "--sharding", "zero2", "--seq", "512",
            "--batch", "12"]
    assert main(args) == 0
    default = json.loads(capsys.readouterr().out)["per_gpu"]["allocated_bytes"]
    assert main(args + ["--zero2-reduce-bucket", "2e8"]) == 0
    assert default - json.loads(capsys.readouterr().out)["per_gpu"]["allocated_bytes"] == 3 * 10**8 * 2
    with pytest.raises(SystemExit):
        main(args + ["--zero2-reduce-bucket", "auto"])
    assert "hidden_size x hidden_size" in capsys.readouterr().err
    zero3 = [a if a != "zero2" else "zero3" for a in args]
    status = main(zero3 + ["--zero2-reduce-bucket", "2e8"])
    err = capsys.readouterr().err
    assert status in (1, 2) and "--zero2-reduce-bucket:" in err and "sharding zero2" in err
