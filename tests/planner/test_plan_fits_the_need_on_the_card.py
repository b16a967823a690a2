"""One quantity for the fit (issue qa24): the memory a job needs ON THE CARD (``MemoryEstimate.device_need_bytes``)
is what ``estimate memory --gpu`` and the planner both compare with the card. bitsandbytes paged optimizer states
live in CUDA unified memory and are evicted to host RAM when the GPU runs short, so they are out of it; the plan once
judged a paged QLoRA job on its whole total, tighter than the CLI.

The case: bitsandbytes' optimizer benchmark (``benchmarking/optimizer_benchmark_comprehensive.py`` at 1b7b9bb4,
the validation row ``fresh19-bnb-optbench-qwen3-0.6b-fp32-paged-adamw``): full fp32 training of Qwen3-0.6B with
``bnb.optim.PagedAdamW`` (32-bit states, "Optimizer State on CPU 4547.0 MB" in its table), batch 2 of 128 tokens,
no checkpointing, on one RTX 4090 and on one T4. (A LoRA/QLoRA job's paged adapter states are counted in
``lora_adapters`` by the sizing layer, so they have no separate paged part.)
"""

from __future__ import annotations

import json

import pytest

from conftest import FIXTURES
from gpudesk.catalog import open_catalog
from gpudesk.cli import main
from gpudesk.planner import plan
from gpudesk.planner.document import PlanDocument
from gpudesk.planner.requirement import Requirement
from gpudesk.planner.sheet import build_sheet
from gpudesk.planner.sheet_markdown import sheet_to_markdown
from gpudesk.units import format_gib

CONFIG = FIXTURES / "sizing" / "configs" / "qwen3-0.6b.config.json"


def _optimizer_benchmark(card: str) -> Requirement:
    req = Requirement()
    m = req.model
    m.config_path, m.mode, m.precision, m.optimizer = str(CONFIG), "train", "fp32", "paged_adamw"
    m.seq_len_tokens, m.micro_batch_size, m.global_batch_size = 128, 2, 2
    m.recompute, m.sharding = "none", "ddp"
    req.data.sample_count = 20  # the script's 3 warm-up and 10 measured steps, rounded up
    req.operations.max_gpus = 1
    req.operations.allow_consumer_cards = True
    return req


@pytest.mark.parametrize("card", ["rtx4090", "t4"])
def test_the_plan_fits_a_paged_job_as_estimate_memory_does(card, capsys):
    result = plan(_optimizer_benchmark(card), open_catalog())
    [option] = [c for c in result.candidates if c.gpu_id == card and c.count == 1]
    argv = ["estimate", "memory", "--config", str(CONFIG), "--mode", "train", "--precision", "fp32",
            "--optimizer", "paged_adamw", "--seq", "128", "--batch", str(option.micro_batch_size),
            "--recompute", str(option.recompute), "--gpu", card, "--json"]
    assert main(argv) == 0
    cli = json.loads(capsys.readouterr().out)
    assert main(argv[:-1]) == 0  # the text form names the same need
    need_gib = cli["per_gpu"]["device_need_bytes"] / 2**30
    assert f"needed on the card: {need_gib:.2f} GiB per GPU" in capsys.readouterr().out
    breakdown = cli["per_gpu"]["breakdown_bytes"]
    assert dict(option.memory.breakdown) == breakdown  # the same job, part by part
    paged = breakdown["paged_optimizer_states"]
    assert paged > 0
    need = cli["per_gpu"]["total_bytes"] - paged
    assert cli["per_gpu"]["device_need_bytes"] == need == option.per_gpu_memory_bytes
    # The verdict and the headroom to the safe line are the CLI's, not the whole total's (paged part included).
    assert option.usable_memory_bytes == cli["gpu"]["usable_memory_bytes"]
    assert option.safe_line_bytes == cli["gpu"]["safe_line_bytes"]
    assert option.headroom_bytes == cli["gpu"]["headroom_to_safe_line_bytes"] == option.safe_line_bytes - need
    assert option.fits == cli["gpu"]["under_safe_line"]
    # The sheet shows the same need and headroom, and says its total row leaves the paged part out.
    sheet = build_sheet(PlanDocument.from_plan(result), result.candidates.index(option))
    assert sheet.headroom_bytes == option.headroom_bytes
    text = sheet_to_markdown(sheet)
    assert f"**{format_gib(need)}**" in text and "paged states in unified memory left out" in text
