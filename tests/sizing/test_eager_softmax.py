"""--eager-softmax: what an eager attention keeps of its scores, by how its softmax is written."""

import json

import pytest

from gpudesk.sizing.eager_softmax import eager_softmax_extra_bytes_per_layer
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.validation import default_cases_path, evaluate_case

FIXTURES = default_cases_path().parent


def _rows(prefix: str) -> list[dict]:
    lines = (FIXTURES / "measured_peaks_fresh29.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if json.loads(line)["id"].startswith(prefix)]


def test_extra_bytes_per_score():
    # a*s^2*b scores a layer: 16 heads x 512^2 x 8 = 33,554,432.
    scores = 16 * 512 * 512 * 8
    assert eager_softmax_extra_bytes_per_layer("16bit", 512, 8, 16) == 0.0
    assert eager_softmax_extra_bytes_per_layer("fp32", 512, 8, 16) == 1.0 * scores
    assert eager_softmax_extra_bytes_per_layer("fp32-clamped", 512, 8, 16) == 3.0 * scores
    assert eager_softmax_extra_bytes_per_layer("fp32", 512, 8, 16, tensor_parallel=4) == scores / 4


@pytest.mark.parametrize("kwargs", [{"flash_attention": True}, {"precision": "fp32"}, {"precision": "bf16-amp"}])
def test_refused_where_the_softmax_is_not_an_eager_16bit_one(kwargs):
    with pytest.raises(SizingError) as err:
        eager_softmax_extra_bytes_per_layer("fp32", 512, 8, 16, **kwargs)
    assert err.value.field == "eager_softmax"
    with pytest.raises(SizingError):
        eager_softmax_extra_bytes_per_layer("fp64", 512, 8, 16)


def test_opt_350m_eager_training_rows_with_the_clamped_fp32_softmax():
    """transformers PR 33298's OPT-350m eager training table (L40S, fp16, logits.sum().backward()): typed as
    OPT's eager attention is written (clamp, fp32 softmax, cast), every row falls within 6 %; the default count
    reads 0.68-0.79 on the three rows with s*b >= 1024."""
    rows = _rows("fresh29-hfpr33298-opt-350m-train-eager")
    assert len(rows) == 4
    for row in rows:
        default = evaluate_case(row, FIXTURES / "configs")
        typed = evaluate_case({**row, "eager_softmax": "fp32-clamped"}, FIXTURES / "configs")
        assert typed.ratio > default.ratio
        assert abs(typed.ratio - 1) < 0.06, (row["id"], typed.ratio)
