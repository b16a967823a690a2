"""``--recompute-layers`` outside 1 to the model's layers (qa51 D3): refused with the model's layer count (per
pipeline stage where there are stages), in the CLI, a profile and the planner."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.cli import main
from gpudesk.planner import PlanInputError, plan
from gpudesk.planner.requirement import ModelMemory, Operations, Requirement, WorkloadMix
from gpudesk.planner.workload import profile_problems


@pytest.mark.parametrize("layers", ["49", "1000", "0", "-1"])
def test_cli_refuses_naming_the_layer_count(capsys, layers):
    rc = main(["estimate", "memory", "--model", "qwen3-30b-a3b", "--mode", "train", "--gpus", "8", "--sharding",
               "zero1", "--recompute", "full", f"--recompute-layers={layers}"])
    assert rc != 0
    err = capsys.readouterr().err
    assert "--recompute-layers" in err and "Qwen3 30B-A3B has 48 layers" in err and "give 1 to 48" in err


def test_cli_accepts_every_layer_and_names_the_stage_under_pipeline(capsys):
    base = ["estimate", "memory", "--model", "llama-3-8b", "--mode", "train", "--sharding", "zero1", "--recompute",
            "full"]
    assert main(base + ["--gpus", "1", "--recompute-layers", "32"]) == 0
    capsys.readouterr()
    assert main(base + ["--gpus", "4", "--pp", "4", "--batch", "4", "--recompute-layers", "9"]) != 0
    assert "8 layers in each of its 4 pipeline stages" in capsys.readouterr().err


@pytest.mark.parametrize("layers", [49, 0, -1])
def test_profile_and_planner_refuse_naming_the_layer_count(layers):
    catalog = open_catalog()
    req = Requirement(model=ModelMemory(model="qwen3-30b-a3b", mode="train", recompute="full",
                                        recompute_layers=layers),
                      workload=WorkloadMix(tokens_to_train=2e9, deadline_s=604800),
                      operations=Operations(max_gpus=16))
    problems = [p for p in profile_problems(req, catalog) if p.field == "model.recompute_layers"]
    assert len(problems) == 1 and "has 48 layers" in problems[0].reason
    with pytest.raises(PlanInputError) as info:
        plan(req, catalog)
    assert info.value.field == "model.recompute_layers" and "give 1 to 48" in info.value.reason
