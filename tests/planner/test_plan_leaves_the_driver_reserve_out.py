"""Issue 27: the driver's reserved framebuffer belongs to the card, not to the job. The usable memory every fit compares
against (PyTorch's total, gpudesk.sizing.capacity) already leaves it out, so a plan has no such answer, a profile that
still carries it is refused by name, and a plan fits a card exactly as ``estimate memory --gpu`` does, whether the
estimate was given the reserve or not."""

from __future__ import annotations

import json
from dataclasses import fields, replace
from pathlib import Path

import pytest

from conftest import FIXTURES
from gpudesk.catalog import open_catalog
from gpudesk.cli import main
from gpudesk.planner import ProfileError, load_profile, memory_workload, requirement_from_dict, resolve_model
from gpudesk.planner.document import PlanDocument
from gpudesk.planner.packages import device_of
from gpudesk.planner.requirement import ModelMemory, Requirement
from gpudesk.sizing import estimate_memory
from gpudesk.sizing.capacity import gpu_fit
from gpudesk.units import MIB

CONFIG = FIXTURES / "sizing" / "configs" / "llama-2-7b.config.json"
# An idle A100's NVML v1 ``used``: 912 MB (rust-nvml/nvml-wrapper issue 57), i.e. 870 MiB.
RESERVED_MIB = 870
PROFILE = ('version = 1\n[model]\nmodel = "llama-3.1-8b"\nmode = "inference"\ndriver_reserved_mib = 870\n'
           '[workload]\ntarget_qps = 5.0\n')


def _inference_on_one_gpu() -> Requirement:
    req = Requirement()
    req.model.config_path = str(CONFIG)
    req.model.mode = "inference"
    req.model.precision = "fp16"
    req.model.weight_format = "fp16"
    req.model.seq_len_tokens = 768
    return req


def test_the_plan_has_no_driver_reserve_answer():
    assert "driver_reserved_mib" not in {f.name for f in fields(ModelMemory)}
    assert memory_workload(_inference_on_one_gpu()).driver_reserved_mib == 0


@pytest.mark.parametrize("card", ["l4", "a100-sxm4-80gb"])
def test_a_plan_fits_a_card_as_estimate_memory_does_with_or_without_the_reserve(card):
    req = _inference_on_one_gpu()
    spec = resolve_model(req.model)
    gpu = device_of(open_catalog().find_gpu(card))
    workload = memory_workload(req)
    planned = estimate_memory(spec, workload)
    typed = estimate_memory(spec, replace(workload, driver_reserved_mib=RESERVED_MIB))
    # The reserve is in the device figure (what an NVML v1 reading is compared with) ...
    assert typed.device_bytes == planned.device_bytes + RESERVED_MIB * MIB
    # ... and out of the fit: the plan's need on the card is the CLI's, and so is the headroom under the safe line.
    assert planned.total_bytes == typed.device_need_bytes == planned.device_need_bytes
    plan_fit = gpu_fit(planned.total_bytes, gpu)
    assert plan_fit.headroom_bytes == gpu_fit(typed.device_need_bytes, gpu).headroom_bytes


def test_the_cli_headroom_is_the_same_with_and_without_the_reserve(capsys):
    args = ["estimate", "memory", "--config", str(CONFIG), "--mode", "inference", "--precision", "fp16",
            "--weight-format", "fp16", "--seq", "768", "--gpu", "l4", "--json"]
    assert main(args) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(args + ["--driver-reserved-mib", str(RESERVED_MIB)]) == 0
    typed = json.loads(capsys.readouterr().out)
    assert typed["per_gpu"]["total_bytes"] == plain["per_gpu"]["total_bytes"] + RESERVED_MIB * MIB
    assert typed["gpu"] == plain["gpu"]


def test_a_profile_that_still_carries_the_reserve_is_refused_by_name(tmp_path: Path, capsys):
    with pytest.raises(ProfileError) as err:
        requirement_from_dict({"model": {"model": "llama-3.1-8b", "driver_reserved_mib": 870}})
    assert err.value.field == "model.driver_reserved_mib"
    assert "no longer a plan answer" in err.value.reason and "--driver-reserved-mib" in err.value.reason
    assert "unknown key" not in err.value.reason
    path = tmp_path / "p.toml"
    path.write_text(PROFILE, encoding="utf-8")
    with pytest.raises(ProfileError):
        load_profile(path)
    assert main(["plan", "--profile", str(path)]) == 2
    text = capsys.readouterr().err
    assert "model.driver_reserved_mib" in text and "estimate memory --driver-reserved-mib" in text
    assert path.read_text(encoding="utf-8") == PROFILE  # the file is left as it was


def test_a_saved_plan_whose_requirement_carries_the_reserve_still_opens():
    doc = PlanDocument.from_dict({"version": 2, "name": "old plan", "requirement": {
        "model": {"model": "llama-3.1-8b", "mode": "inference", "driver_reserved_mib": 870}}})
    assert doc.name == "old plan" and doc.requirement is None
    assert doc.requirement_problem and "model.driver_reserved_mib" in doc.requirement_problem
