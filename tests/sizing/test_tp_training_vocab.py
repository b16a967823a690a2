"""Tensor-parallel training that keeps the whole logits (no loss parallel) or a replicated token embedding."""

import pytest

from conftest import FIXTURES
from gpudesk.cli import main
from gpudesk.sizing import MemoryWorkload, SizingError, estimate_memory, spec_from_hf_config
from gpudesk.sizing.validation import case_workload

CONFIGS = FIXTURES / "sizing" / "configs"
L3 = spec_from_hf_config(CONFIGS / "llama-3-8b.config.json")


def _tp(**kw) -> dict[str, int]:
    base = dict(mode="train", precision="bf16-pure", optimizer="adamw", seq_len_tokens=4096, micro_batch_size=4,
                gpus=4, tensor_parallel=4, recompute="full", loss="standard-16bit")
    return dict(estimate_memory(L3, MemoryWorkload(**{**base, **kw})).breakdown)


def test_whole_logits_are_not_divided_by_the_tensor_parallel_degree():
    sliced, whole = _tp()["logits"], _tp(tp_whole_logits=True)["logits"]
    assert whole == pytest.approx(4 * sliced, rel=1e-6)
    # standard-16bit: the bf16 logits, log-softmax output and gradient, 6 bytes an element, over all 128256 columns.
    assert whole == pytest.approx(4 * 4096 * 128256 * 6, rel=1e-6)


def test_replicated_embedding_adds_three_quarters_of_the_table_at_tp_4():
    table = 128256 * 4096
    base, repl = _tp(), _tp(tp_replicated_embedding=True)
    # bf16 weights: 2 bytes a parameter of the (1 - 1/4) table beyond the even split.
    assert repl["weights"] - base["weights"] == pytest.approx(table * 0.75 * 2, rel=1e-6)
    assert repl["optimizer_states"] - base["optimizer_states"] == pytest.approx(table * 0.75 * 4, rel=1e-6)
    assert _tp(gpus=1, tensor_parallel=1, tp_replicated_embedding=True) == _tp(gpus=1, tensor_parallel=1)


def test_replicated_embedding_refused_with_pipeline_parallelism_and_outside_full_training():
    with pytest.raises(SizingError) as err:
        _tp(gpus=8, pipeline_parallel=2, tp_replicated_embedding=True)
    assert err.value.field == "tp_replicated_embedding"
    with pytest.raises(SizingError):
        _tp(mode="lora", tp_whole_logits=True)


def test_harness_and_cli_read_the_settings(capsys):
    row = {"method": "full", "tensor_parallel": 4, "gpus": 4}
    assert not case_workload(row).tp_whole_logits and not case_workload(row).tp_replicated_embedding
    w = case_workload(dict(row, tp_whole_logits=True, tp_replicated_embedding=True))
    assert w.tp_whole_logits and w.tp_replicated_embedding
    args = ["estimate", "memory", "--config", str(CONFIGS / "llama-3-8b.config.json"), "--mode", "train",
            "--precision", "bf16-pure", "--optimizer", "adamw", "--seq", "4096", "--batch", "4", "--gpus", "4",
            "--tp", "4", "--recompute", "full"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "whole vocabulary logits" not in out and "token embedding stays whole" not in out
    assert main(args + ["--tp-whole-logits", "--tp-replicated-embedding"]) == 0
    out = capsys.readouterr().out
    assert "whole vocabulary logits" in out and "token embedding stays whole" in out
