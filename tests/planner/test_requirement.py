"""Requirement validation and TOML profiles: every shipped example loads; bad input names its field."""

import pytest

from gpudesk.paths import examples_dir
from gpudesk.planner import (
    PlanInputError,
    ProfileError,
    Requirement,
    dumps_profile,
    load_profile,
    requirement_from_dict,
    requirement_to_dict,
    save_profile,
)

EXAMPLES = sorted(examples_dir().glob("*.toml"))


def test_all_examples_present():
    names = {p.stem for p in EXAMPLES}
    assert {"article-13b-finetune", "student-project", "startup-mvp-7b", "pretraining-70b", "chat-api-qps200",
            "medical-3d-unet", "risk-model-qps40"} <= names


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_round_trips(path, tmp_path):
    req = load_profile(path)
    out = tmp_path / "copy.toml"
    save_profile(req, out)
    again = load_profile(out)
    assert requirement_to_dict(again) == requirement_to_dict(req)


def test_article_case_values():
    req = load_profile(examples_dir() / "article-13b-finetune.toml")
    assert req.data.sample_count == 20_000_000 and req.data.sample_bytes == 2_000_000
    assert req.workload.deadline_s == 7 * 86400
    assert req.software.framework_version == "2.0.1" and req.software.cuda_version == "12.1"
    assert "deepspeed==0.8.3" in req.software.libraries


def _write(tmp_path, text):
    p = tmp_path / "p.toml"
    p.write_text(text, encoding="utf-8")
    return p


def test_malformed_toml_names_line(tmp_path):
    with pytest.raises(ProfileError, match="not valid TOML.*line 2"):
        load_profile(_write(tmp_path, 'name = "x"\n[model\nparams = 1\n'))


def test_unknown_key_and_wrong_type(tmp_path):
    with pytest.raises(ProfileError) as info:
        load_profile(_write(tmp_path, '[model]\nparms = 13\n'))
    assert info.value.field == "model.parms"
    with pytest.raises(ProfileError) as info:
        load_profile(_write(tmp_path, '[model]\nparams = "lots"\n'))
    assert info.value.field == "model.params"
    with pytest.raises(ProfileError) as info:
        load_profile(_write(tmp_path, '[gpu]\nx = 1\n'))
    assert info.value.field == "gpu"
    with pytest.raises(ProfileError, match="cannot read"):
        load_profile(tmp_path / "missing.toml")


def test_inference_qps_without_model_is_contradictory():
    req = requirement_from_dict({"model": {"mode": "inference"}, "workload": {"target_qps": 200.0, "training_share": 0.0}})
    with pytest.raises(PlanInputError) as info:
        req.validate()
    assert info.value.field == "model.model" and "QPS" in str(info.value)


@pytest.mark.parametrize("section,key,value,field", [
    ("model", "params", 0, "model.params"),
    ("model", "params", -7e9, "model.params"),
    ("model", "params", 5e14, "model.params"),
    ("model", "seq_len_tokens", 0, "model.seq_len_tokens"),
    ("data", "sample_bytes", -1, "data.sample_bytes"),
    ("workload", "deadline_s", -3600.0, "workload.deadline_s"),
    ("operations", "safe_free_fraction", 1.5, "operations.safe_free_fraction"),
    ("tco", "pue", 0.8, "tco.pue"),
    ("tco", "electricity_usd_per_kwh", 12.0, "tco.electricity_usd_per_kwh"),
    ("software", "cuda_version", "twelve", "software.cuda_version"),
])
def test_out_of_range_values(section, key, value, field):
    req = Requirement()
    req.model.params = 7_000_000_000
    req.data.sample_count = 1000
    setattr(getattr(req, section), key, value)
    with pytest.raises(PlanInputError) as info:
        req.validate()
    assert info.value.field == field


def test_inference_needs_qps_and_zero_training_share():
    req = Requirement()
    req.model.params = 1_000_000_000
    req.model.mode = "inference"
    with pytest.raises(PlanInputError) as info:
        req.validate()
    assert info.value.field == "workload.target_qps"
    req.workload.target_qps = 10.0
    with pytest.raises(PlanInputError) as info:
        req.validate()
    assert info.value.field == "workload.training_share"


def test_dumps_escapes_text():
    req = Requirement(name='He said "hi"\nand left')
    req.model.params = 1_000
    req.data.sample_count = 10
    req.tco.gpu_price_overrides_usd = {"a100-80-sxm4": 15000}
    text = dumps_profile(req)
    back = requirement_from_dict(__import__("tomllib").loads(text))
    assert back.name == req.name and back.tco.gpu_price_overrides_usd == {"a100-80-sxm4": 15000.0}
