"""fp32 main gradients kept between steps and a flat all-reduce copy (Megatron-LM's 2021 fp16 optimizer, local DDP)."""

import pytest

from conftest import FIXTURES
from gpudesk.sizing import spec_from_hf_config
from gpudesk.sizing import validation as v
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.memory import MemoryWorkload, estimate_memory

CASES = FIXTURES / "sizing"
GPT_64X16384 = spec_from_hf_config(CASES / "configs" / "megatron2021-gpt-64x16384-h32.config.json")
PP64_ROW = "fresh37-bigscience-meg-base-64x16384-tp4pp64-256gpu"


def _pp64(**kw):
    # The bigscience 2021 Megatron run of the fresh-37 row: TP 4 x PP 64 on 256 GPUs, fp16 with fp32 master
    # weights, apex FusedAdam (no step temporaries), 4 micro-batches of one 1024-token sequence, full recompute.
    fields = dict(mode="train", precision="fp16", optimizer="adamw", optimizer_impl="fused", gpus=256, sharding="ddp",
                  tensor_parallel=4, pipeline_parallel=64, pipeline_microbatches=4, seq_len_tokens=1024,
                  micro_batch_size=4, recompute="full", flash_attention=False)
    return estimate_memory(GPT_64X16384, MemoryWorkload(**{**fields, **kw}))


def test_kept_main_gradients_and_the_flat_copy_make_22_bytes_a_parameter():
    plain, kept = _pp64(), _pp64(main_grads_kept=True)
    params = plain.breakdown["weights"] / 2  # fp16 weights, 2 bytes a parameter of this rank
    assert kept.breakdown["main_gradients"] == pytest.approx(params * 4, rel=1e-6)
    # The all-reduce moment: weights 2 + master 4 + Adam 8 + kept fp32 gradients 4 + fp16 gradients 2 + flat copy 2.
    assert kept.allocated_bytes == pytest.approx(params * 22, rel=1e-6)
    # Without the setting the step is the peak: the 16 bytes of model states and the fp32 gradients made for it.
    assert plain.allocated_bytes == pytest.approx(params * 20, rel=1e-6)
    assert plain.breakdown["optimizer_step_temporaries"] == pytest.approx(params * 4, rel=1e-6)
    assert "main_gradients" not in plain.breakdown


def test_the_flat_copy_replaces_pytorch_ddp_buckets():
    plain, kept = _pp64(gpus=512), _pp64(gpus=512, main_grads_kept=True)  # data-parallel 2
    params = plain.breakdown["weights"] / 2
    # PyTorch DDP's buckets live through the whole run; the flat copy only at the all-reduce, which is the peak here.
    assert plain.breakdown["ddp_gradient_buckets"] == pytest.approx(params * 2, rel=1e-6)
    assert kept.breakdown["ddp_gradient_buckets"] == pytest.approx(params * 2, rel=1e-6)
    assert kept.breakdown["gradients"] == pytest.approx(params * 2, rel=1e-6)
    assert kept.allocated_bytes == pytest.approx(params * 22, rel=1e-6)  # not 24: no run-long bucket beside it


def test_the_bigscience_log_reads_within_band_with_the_setting():
    case = next(c for c in v.load_cases(CASES / "measured_peaks_fresh37.jsonl") if c["id"] == PP64_ROW)
    typed = v.evaluate_case({**case, "main_grads_kept": True, "optimizer_impl": "fused"}, CASES / "configs")
    assert typed.ratio == pytest.approx(0.933, abs=0.005)
    # The same run without the setting: the step's 20 bytes a parameter, below the log's 23.5.
    assert v.evaluate_case({**case, "optimizer_impl": "fused"}, CASES / "configs").ratio < 0.85


@pytest.mark.parametrize(("kw", "reason"), [
    ({"precision": "bf16-pure"}, "fp32 master"),
    ({"precision": "fp16-amp"}, "fp32 master"),
    ({"sharding": "zero1"}, "sharding ddp"),
    ({"fp32_grad_buffer": True}, "buffer is the main gradient"),
])
def test_refused_where_it_cannot_hold(kw, reason):
    with pytest.raises(SizingError) as err:
        _pp64(main_grads_kept=True, **kw)
    assert err.value.field == "main_grads_kept"
    assert reason in str(err.value)


def test_refused_outside_full_training():
    with pytest.raises(SizingError) as err:
        estimate_memory(GPT_64X16384, MemoryWorkload(mode="inference", main_grads_kept=True))
    assert err.value.field == "main_grads_kept"
