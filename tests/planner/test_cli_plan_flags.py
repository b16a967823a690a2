"""``gpudesk plan`` by flags, the profile reference, "did you mean" errors and fine-tuned HF ids (issue 29)."""

import json
from pathlib import Path

import pytest

from gpudesk.cli import main
from gpudesk.planner.profile_doc import profile_reference

REPO = Path(__file__).resolve().parents[2]


def test_plan_by_flags_maps_a_fine_tuned_hf_id_to_its_base_shape(capsys):
    code = main(["plan", "--model", "Qwen/Qwen2.5-14B-Instruct", "--mode", "lora", "--tokens", "2e8", "--deadline", "7d",
                 "--budget", "60000", "--max-gpus", "4", "--micro-batch", "4", "--global-batch", "16", "--format", "json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    plan = json.loads(out.out)
    assert plan["model"]["name"] == "Qwen2.5 14B (shape of Qwen/Qwen2.5-14B-Instruct)"
    assert plan["requirement"]["workload"]["deadline_s"] == 7 * 86400
    assert plan["requirement"]["workload"]["tokens_to_train"] == 2e8
    assert plan["requirement"]["operations"]["budget_usd"] == 60000
    assert any("fine-tuned variant of Qwen/Qwen2.5-14B" in str(step) for step in plan["rationale"])


def test_qps_alone_plans_a_service(capsys):
    code = main(["plan", "--model", "llama-3.1-70b", "--qps", "20", "--prompt-tokens", "1024", "--output-tokens", "256",
                 "--format", "json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    plan = json.loads(out.out)
    assert plan["requirement"]["model"]["mode"] == "inference"
    assert plan["candidates"][0]["qps_capacity"] >= 20


def test_flags_override_the_profile(capsys):
    example = REPO / "resources" / "examples" / "article-13b-finetune.toml"
    assert main(["plan", "--profile", str(example), "--market", "china", "--format", "json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["requirement"]["operations"]["market"] == "china"
    assert plan["requirement"]["model"]["model"]  # the profile's other answers stay


def test_no_requirement_is_a_clear_error(capsys):
    assert main(["plan"]) == 2
    assert "give a requirement: --profile FILE.toml, or flags" in capsys.readouterr().err


@pytest.mark.parametrize("argv, command, hint", [
    (["plan", "--profle", "x.toml"], "gpudesk plan", "did you mean --profile?"),
    (["catalog", "show", "h100", "--jsn"], "gpudesk catalog show", "did you mean --json?"),
    (["estimate", "memory", "--model", "llama-3-8b", "--sequence", "4096"], "gpudesk estimate memory", "did you mean --seq?"),
    (["plna"], "gpudesk", "did you mean plan?"),
])
def test_a_typo_names_its_command_and_the_closest_spelling(capsys, argv, command, hint):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert f"usage: {command} " in err and hint in err


def test_help_profile_prints_the_documented_reference(capsys):
    assert main(["plan", "--help-profile"]) == 0
    printed = capsys.readouterr().out
    assert printed.rstrip("\n") == profile_reference().rstrip("\n")
    assert (REPO / "docs" / "profile.md").read_text(encoding="utf-8").rstrip("\n") == profile_reference().rstrip("\n")
    for key in ("tokens_to_train", "deadline_s", "target_qps", "budget_usd", "market", "micro_batch_size"):
        assert f"| `{key}` |" in printed


@pytest.mark.parametrize("extra, flag", [
    (["--mode", "train", "--tokens", "1e12", "--deadline", "30d", "--budget", "nan"], "--budget"),
    (["--mode", "train", "--tokens", "1e12", "--deadline", "30d", "--max-gpus", "0"], "--max-gpus"),
    (["--mode", "inference", "--qps", "inf", "--prompt-tokens", "1000", "--output-tokens", "200"], "--qps"),
])
def test_a_bad_flag_value_is_reported_under_its_flag(extra, flag, capsys):
    """``plan --budget nan`` once answered "profile the flags: operations.budget_usd: ..." (a profile key the user
    never typed, in a sentence that does not parse)."""
    assert main(["plan", "--model", "llama-3-70b"] + extra) == 2
    err = capsys.readouterr().err
    assert f"{flag}:" in err and "the flags" not in err and "operations." not in err and "workload." not in err, err


def test_a_profile_key_keeps_its_name_when_the_flags_did_not_set_it(tmp_path, capsys):
    profile = tmp_path / "p.toml"
    profile.write_text('[model]\nmodel = "llama-3-70b"\nmode = "train"\n[workload]\ntokens_to_train = 1e12\n'
                       'deadline_s = 86400\n[operations]\nmax_gpus = 0\n')
    assert main(["plan", "--profile", str(profile), "--market", "global"]) == 2
    assert "operations.max_gpus" in capsys.readouterr().err
