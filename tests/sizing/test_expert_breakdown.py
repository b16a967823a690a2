"""The memory breakdown names the expert split (qa51 D2): routed experts per GPU, the expert-parallel size, the
expert-data-parallel ranks and the experts' bytes inside the weight / gradient / optimizer rows, in the estimate
object itself (so the CLI text, --json, the wizard and the sheet render the same thing)."""

from __future__ import annotations

import json

from gpudesk.cli import main
from gpudesk.sizing.estimate import EXPERT_PARTS

from expert_cases import DENSE
from expert_cases import train_estimate as _estimate


def test_estimate_names_the_routed_experts_per_gpu_and_their_bytes():
    est = _estimate(expert_parallel=8)
    share = est.experts
    assert share is not None
    assert (share.experts_per_layer, share.expert_parallel, share.experts_per_gpu) == (128, 8, 16)
    assert share.expert_data_parallel == 2  # 16 GPUs / ep 8
    assert share.headline() == "Routed experts: 16 of 128 per GPU (expert parallel 8)"
    for part in ("weights", "master_weights", "optimizer_states"):  # inside the rows, never more than the row
        assert 0 < share.part_bytes[part] <= est.breakdown.get(part, 0)
    assert share.part_bytes["weights"] > 0 and share.part_bytes["optimizer_states"] > 0
    assert est.assumptions[0][0].startswith("Routed experts: 16 of 128 per GPU")
    assert "2 expert-data-parallel GPUs" in est.assumptions[0][0]
    assert est.to_dict()["experts"]["experts_per_gpu"] == 16


def test_no_split_without_expert_parallelism():
    assert _estimate().experts is None and "experts" not in _estimate().to_dict()
    assert _estimate(DENSE).experts is None


def test_cli_text_and_json_name_the_split(capsys):
    base = ["estimate", "memory", "--model", "qwen3-30b-a3b", "--mode", "train", "--gpus", "8", "--sharding",
            "zero1", "--expert-parallel", "8"]
    assert main(base) == 0
    text = capsys.readouterr().out
    assert "Routed experts: 16 of 128 per GPU (expert parallel 8)" in text
    assert "1 expert-data-parallel GPU;" not in text and "1 expert-data-parallel GPU" in text
    assert main(base + ["--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    experts = data["per_gpu"]["experts"]
    assert experts["expert_parallel"] == 8 and experts["experts_per_gpu"] == 16
    assert set(experts["part_bytes"]) == set(EXPERT_PARTS)
