"""gpudesk.telemetry.formats.dmon_import: the one path that opens a dmon / dcgmi / CSV log, used by the CLI (analyze, import,
report) and the Monitor tab alike, with one guard and one wording for a log that holds no samples."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import gpudesk
from gpudesk.telemetry.formats.dmon import DmonError
from gpudesk.telemetry.formats.dmon_import import (
    devices_for_model,
    frame_and_devices_from_file,
    frame_and_devices_from_text,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "monitor"
PACKAGE = Path(gpudesk.__file__).resolve().parent


class _Gpu:  # the fields of a catalog GPU the devices read
    id, name, memory_bytes, pcie_gen, pcie_lanes, tdp_w = "a100-80-pcie", "A100 80GB PCIe", 80 * 2**30, 4, 16, 300


def test_a_header_only_log_is_refused_with_what_to_open_instead(tmp_path):
    path = tmp_path / "killed.txt"
    path.write_text("# gpu sm mem\n# Idx % %\n")
    with pytest.raises(DmonError) as raised:
        frame_and_devices_from_file(path)
    err = raised.value
    assert err.message == "killed.txt: no samples could be read." and err.field == "killed.txt"
    assert "nvidia-smi dmon" in (err.remedy or "") and err.remedy in err.user_text()


def test_unsupported_dmon_says_so_and_points_to_nvml():
    with pytest.raises(DmonError) as raised:
        frame_and_devices_from_file(FIXTURES / "sample_f_unsupported.txt")
    assert "could not run on that machine" in raised.value.message
    assert "gpudesk monitor record" in (raised.value.remedy or "")


def test_standard_input_and_import_give_the_same_sentence(tmp_path):
    path = tmp_path / "empty.txt"
    path.write_text("# gpu sm mem\n# Idx % %\n")
    with pytest.raises(DmonError) as from_text:
        frame_and_devices_from_text(path.read_text())
    assert from_text.value.message == "standard input: no samples could be read."
    with pytest.raises(DmonError) as from_import:
        frame_and_devices_from_file(path)
    assert from_import.value.remedy == from_text.value.remedy


def test_the_link_the_user_confirms_replaces_the_datasheet_link():
    frame, devices, log = frame_and_devices_from_file(FIXTURES / "sample_a_pucvmet.txt", _Gpu(), pcie_gen=4,
                                                      pcie_width=8)
    assert len(frame) > 0 and {d.index for d in devices} == set(frame.gpus)
    assert all((d.pcie_gen_max, d.pcie_width_max_lanes, d.pcie_link_source) == (4, 8, "user") for d in devices)
    same = devices_for_model([0], _Gpu(), 4, 16)[0]  # the datasheet link: not a user assumption
    assert same.pcie_link_source == "catalog:a100-80-pcie"


def _no_samples_guards() -> list[str]:
    """Places outside dmon_import that test ``<log>.empty`` themselves instead of calling the one guard."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "dmon_import.py" or path.name == "log_formats.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Attribute) and node.attr == "empty" and isinstance(node.value, ast.Name)
                    and node.value.id == "log"):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
    return found


def test_the_empty_log_guard_is_written_once():
    assert _no_samples_guards() == []
