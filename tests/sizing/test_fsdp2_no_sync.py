"""FSDP2 with gradient sync off between micro-batches keeps each rank's whole unsharded gradients (``--fsdp2-no-sync``)."""

import pytest

from conftest import FIXTURES
from gpudesk.cli import main
from gpudesk.sizing import MemoryWorkload, SizingError, estimate_memory, spec_from_hf_config
from gpudesk.sizing.validation import case_workload

CONFIGS = FIXTURES / "sizing" / "configs"
L7 = spec_from_hf_config(CONFIGS / "llama-2-7b.config.json")


def _fsdp2(**kw) -> dict[str, int]:
    base = dict(mode="train", precision="bf16-pure", optimizer="adamw", seq_len_tokens=512, micro_batch_size=4,
                gpus=4, sharding="fsdp", fsdp_version=2, recompute="full", gradient_accumulation=True)
    return dict(estimate_memory(L7, MemoryWorkload(**{**base, **kw})).breakdown)


def test_fp32_reduce_dtype_keeps_the_whole_models_gradients_in_fp32_on_every_rank():
    parts = _fsdp2(fsdp2_no_sync="fp32")
    # bf16 parameters, reduce_dtype float32: to_accumulated_grad_if_needed upcasts every unsharded gradient.
    assert parts["unsharded_gradients"] == L7.params * 4
    assert "gradients" not in parts  # no shards until the syncing micro-batch


def test_grad_dtype_keeps_them_at_the_gradients_own_bytes_and_tensor_parallel_divides_them():
    assert _fsdp2(fsdp2_no_sync="grad-dtype")["unsharded_gradients"] == L7.params * 2
    # Tensor parallelism shards the parameters, the data-parallel ranks do not.
    tp2 = _fsdp2(fsdp2_no_sync="fp32", tensor_parallel=2, gpus=8)["unsharded_gradients"]
    assert tp2 == pytest.approx(L7.params * 4 / 2, rel=1e-9)


def test_off_or_no_accumulation_keeps_shards():
    for parts in (_fsdp2(), _fsdp2(fsdp2_no_sync="fp32", gradient_accumulation=False)):
        assert "unsharded_gradients" not in parts
    assert _fsdp2()["gradients"] == L7.params * 2 // 4


def test_refused_outside_fsdp2():
    for kw in (dict(fsdp_version=1), dict(sharding="zero2")):
        with pytest.raises(SizingError) as err:
            _fsdp2(fsdp2_no_sync="fp32", **kw)
        assert err.value.field == "fsdp2_no_sync"
    with pytest.raises(SizingError):
        _fsdp2(fsdp2_no_sync="bf16")


def test_harness_and_cli_read_the_setting(capsys):
    row = {"method": "full", "sharding": "fsdp", "fsdp_version": 2, "gradient_accumulation_steps": 4}
    assert case_workload(row).fsdp2_no_sync == "off"
    assert case_workload(dict(row, fsdp2_no_sync="fp32")).fsdp2_no_sync == "fp32"
    args = ["estimate", "memory", "--config", str(CONFIGS / "llama-2-7b.config.json"), "--mode", "train",
            "--precision", "bf16-pure", "--optimizer", "adamw", "--seq", "512", "--batch", "4", "--gpus", "4",
            "--sharding", "fsdp", "--fsdp-version", "2", "--recompute", "full", "--grad-accum", "4"]
    assert main(args) == 0
    assert "gradient sync off" not in capsys.readouterr().out
    assert main(args + ["--fsdp2-no-sync", "fp32"]) == 0
    assert "gradient sync off" in capsys.readouterr().out
