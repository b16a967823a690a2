"""``gpudesk plan --expert-parallel / --recompute-layers`` (qa51 D14): the same settings as ``gpudesk estimate
memory`` and the profile keys model.expert_parallel / model.recompute_layers; problems named by the flag."""

import json

import pytest

from gpudesk.cli import main
from gpudesk.planner.profile_doc import profile_reference

MOE = ["plan", "--model", "qwen3-30b-a3b", "--mode", "train", "--tokens", "2e9", "--deadline", "7d"]


def test_expert_parallel_flag_plans_on_multiples_of_it(capsys):
    code = main(MOE + ["--max-gpus", "16", "--expert-parallel", "8", "--format", "json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    plan = json.loads(out.out)
    assert plan["requirement"]["model"]["expert_parallel"] == 8
    assert plan["candidates"] and {c["count"] for c in plan["candidates"]} <= {8, 16}
    top = plan["candidates"][0]
    assert top["expert_parallel"] == 8
    assert top["memory_assumptions"][0]["assumption"].startswith("Routed experts: 16 of 128 per GPU")


@pytest.mark.parametrize("extra, flag, text", [
    (["--max-gpus", "4", "--expert-parallel", "8"], "--expert-parallel", "8, 16, 24"),
    (["--max-gpus", "16", "--recompute-layers", "49"], "--recompute-layers", "has 48 layers"),
    (["--max-gpus", "16", "--recompute-layers", "0"], "--recompute-layers", "give 1 to 48"),
])
def test_problems_are_named_by_the_flag(capsys, extra, flag, text):
    assert main(MOE + extra) == 2
    err = capsys.readouterr().err
    assert f"{flag}: " in err and text in err


def test_dense_model_with_expert_parallel_is_named_by_the_flag(capsys):
    assert main(["plan", "--model", "llama-3-8b", "--mode", "train", "--tokens", "2e9", "--deadline", "7d",
                 "--expert-parallel", "8"]) == 2
    assert "--expert-parallel: Llama 3 8B has no experts" in capsys.readouterr().err


def test_profile_reference_names_the_flags():
    assert "`--expert-parallel`" in profile_reference() and "`--recompute-layers`" in profile_reference()
