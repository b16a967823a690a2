"""Profile validation reports every problem at once, most fundamental first (model, mode, then sizes), the training
share follows the mode unless given, and an unknown model says what was meant (the tryout's p_badmodel*.toml)."""

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.cli import main
from gpudesk.planner import PlanInputError, load_profile, plan
from gpudesk.planner.errors import PlanInputErrors
from gpudesk.planner.profile import requirement_from_dict

# /tmp/try/p_badmodel.toml and p_badmodel2.toml of the tryout, verbatim.
BADMODEL = 'version = 1\n[model]\nmodel = "nonexistent-model"\n'
BADMODEL2 = 'version = 1\n[model]\nmodel = "nonexistent-model"\nmode = "inference"\n[workload]\ntarget_qps = 5.0\n'


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def _write(tmp_path, text, name="p.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_training_share_follows_an_inference_mode_unless_given():
    req = requirement_from_dict({"model": {"model": "llama-3.1-8b", "mode": "inference"}, "workload": {"target_qps": 5.0}})
    assert req.workload.training_share == 0.0
    req.validate()
    given = requirement_from_dict({"model": {"model": "llama-3.1-8b", "mode": "inference"},
                                   "workload": {"target_qps": 5.0, "training_share": 1.0}})
    with pytest.raises(PlanInputError) as info:
        given.validate()
    assert info.value.field == "workload.training_share"  # a stated contradiction is still reported


def test_inference_with_unknown_model_reports_the_model(tmp_path, catalog):
    with pytest.raises(PlanInputError) as info:
        load_profile(_write(tmp_path, BADMODEL2), catalog)
    assert info.value.field == "model.model" and "not in the catalog" in str(info.value)
    assert "training_share" not in str(info.value)


def test_all_problems_at_once_model_first(tmp_path, catalog):
    with pytest.raises(PlanInputErrors) as info:
        load_profile(_write(tmp_path, BADMODEL), catalog)
    fields = [p.field for p in info.value.problems]
    assert fields == ["model.model", "data.sample_count"]
    assert info.value.field == "model.model" and str(info.value).startswith("2 problems: (1) model.model")


def test_mode_problems_before_sizes():
    req = requirement_from_dict({"model": {"model": "llama-3.1-8b", "mode": "inference", "seq_len_tokens": -5},
                                 "workload": {"deadline_s": -1.0}})
    fields = [p.field for p in req.problems()]
    assert fields == ["workload.target_qps", "model.seq_len_tokens", "workload.deadline_s"]


def test_did_you_mean_names_close_catalog_models(tmp_path, catalog):
    text = BADMODEL2.replace("nonexistent-model", "llama-3.1-8bb")
    with pytest.raises(PlanInputError) as info:
        load_profile(_write(tmp_path, text), catalog)
    assert "Did you mean: llama-3.1-8b" in str(info.value)
    with pytest.raises(PlanInputError) as info:
        load_profile(_write(tmp_path, BADMODEL2), catalog)
    assert "Nothing in the catalog is close; its models include" in str(info.value)


def test_plan_reports_the_model_with_the_other_problems(catalog):
    req = requirement_from_dict({"model": {"model": "nonexistent-model"}})
    with pytest.raises(PlanInputErrors) as info:
        plan(req, catalog)
    assert [p.field for p in info.value.problems] == ["model.model", "data.sample_count"]


def test_cli_prints_every_problem(tmp_path, capsys):
    assert main(["plan", "--profile", str(_write(tmp_path, BADMODEL))]) != 0
    err = capsys.readouterr().err
    assert "2 problems: (1) model.model: 'nonexistent-model' is not in the catalog" in err
    assert "(2) data.sample_count" in err and "Traceback" not in err
