"""PyTorch DDP's all-reduce buckets: a second copy of the gradients unless they are bucket views."""

import json

from conftest import FIXTURES
from gpudesk.cli import main
from gpudesk.sizing import MemoryWorkload, estimate_memory, spec_from_hf_config
from gpudesk.sizing.validation import UNIT_BYTES, case_workload

CONFIGS = FIXTURES / "sizing" / "configs"
PYTHIA_1B = spec_from_hf_config(CONFIGS / "pythia-1b.config.json")
H2O_DDP_ROW = "fresh12-h2o288-full-exp1-pythia-1b-bf16-ddp-3xrtx6000"


def _row(case_id: str) -> dict:
    lines = (FIXTURES / "sizing" / "measured_peaks_fresh12.jsonl").read_text(encoding="utf-8").splitlines()
    return next(r for r in map(json.loads, filter(None, lines)) if r["id"] == case_id)


def _parts(**kw) -> dict[str, int]:
    base = dict(mode="train", precision="bf16-pure", optimizer="adamw", seq_len_tokens=512, micro_batch_size=1,
                gpus=3, sharding="ddp", recompute="full", flash_attention=False)
    return dict(estimate_memory(PYTHIA_1B, MemoryWorkload(**{**base, **kw})).breakdown)


def test_ddp_keeps_a_bucket_copy_of_every_gradient():
    parts = _parts()
    assert parts["ddp_gradient_buckets"] == PYTHIA_1B.params * 2  # bf16 gradients of all parameters, once more


def test_bucket_views_one_gpu_and_sharded_stages_have_no_bucket_copy():
    for parts in (_parts(ddp_bucket_view=True), _parts(gpus=1), _parts(sharding="zero2"), _parts(sharding="fsdp"),
                  _parts(sharding="zero3", offload="optimizer")):
        assert "ddp_gradient_buckets" not in parts


def test_h2o_llmstudio_pythia_ddp_row_is_within_15_percent():
    # h2o-llmstudio PR #288 exp1: pythia-1b bf16 DDP on 3 x RTX 6000, 15 GB per GPU. Without the buckets: 0.78.
    row = _row(H2O_DDP_ROW)
    est = estimate_memory(PYTHIA_1B, case_workload(row))
    ratio = est.statistic_bytes(row["statistic"]) / (row["value"] * UNIT_BYTES[row["unit"]])
    assert 0.85 <= ratio <= 1.15
    assert not case_workload(row).ddp_bucket_view
    assert case_workload(dict(row, ddp_bucket_view=True)).ddp_bucket_view


def test_cli_flag_drops_the_bucket_copy(capsys):
    args = ["estimate", "memory", "--config", str(CONFIGS / "pythia-1b.config.json"), "--mode", "train",
            "--precision", "bf16-pure", "--optimizer", "adamw", "--gpus", "3", "--sharding", "ddp", "--batch", "1",
            "--seq", "512", "--recompute", "full", "--no-flash"]
    assert main(args) == 0
    assert "gradient_as_bucket_view" in capsys.readouterr().out
    assert main(args + ["--ddp-bucket-view"]) == 0
    assert "gradient_as_bucket_view" not in capsys.readouterr().out
