"""dcgmi dmon text -> fleet history, on real outputs pasted in public issues (URL in each fixture's first line)."""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pytest

from gpudesk.telemetry.core import dcgm_fields as df
from gpudesk.telemetry.formats.dcgmi_dmon import (
    DcgmiDmonParser,
    DcgmiParseError,
    parse_dcgmi_dmon,
    read_dcgmi_dmon,
)

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "fleet"


def test_fixtures_name_their_source():
    for path in FIXTURES.glob("dcgmi_*.txt"):
        assert path.read_text().startswith("# source: https://github.com/"), path


def test_mig_instances_as_gpu_i_entities_issue_152():
    # Case: H100 with two MIG GPU instances (entities GPU-I 21 and 22), fields 1002 (SMACT) and 1003 (SMOCC) as
    # fractions; GPU-I 21 shows SMACT 1.294, the >100 % the issue reports.
    hist = parse_dcgmi_dmon((FIXTURES / "dcgmi_dmon_mig_issue152.txt").read_text(), host="h100-node")
    assert [(k.host, k.gpu_index, k.mig_instance) for k in hist.keys] == [("h100-node", None, 21),
                                                                          ("h100-node", None, 22)]
    assert [k.label for k in hist.keys] == ["h100-node GPU ? / MIG 21", "h100-node GPU ? / MIG 22"]
    _, sm = hist.frame.series(0, df.SM_ACTIVE)
    assert sm.tolist() == pytest.approx([129.4])
    assert hist.frame.series(1, df.SM_OCCUPANCY)[1].tolist() == pytest.approx([12.2])
    assert any("SMACT" in n and "above 1.0" in n for n in hist.notes)


def test_eight_gpus_with_na_issue_244():
    # Case: 8-GPU node, fields 1001..1008; the first tick is all N/A, the second has sparse values.
    hist = parse_dcgmi_dmon((FIXTURES / "dcgmi_dmon_8gpu_na_issue244.txt").read_text(), delay_s=1.0)
    assert [k.gpu_index for k in hist.keys] == list(range(8))
    f = hist.frame
    assert len(f) == 2 and f.times.tolist() == [0.0, 1.0]
    _, gract = f.series(0, df.GR_ENGINE_ACTIVE)
    assert math.isnan(gract[0]) and gract[1] == pytest.approx(88.8)
    assert f.series(1, df.FP32_ACTIVE)[1][1] == pytest.approx(4.6)
    assert f.reason(0, df.GR_ENGINE_ACTIVE) == "dcgmi N/A"
    assert np.isnan(f.columns[df.DRAM_ACTIVE]).all()


def test_units_tags_blanks_and_unknown_columns():
    text = ("#Entity   GPUTL  FBUSD  POWER  SMCLK  TMPTR  XYZZY\n"
            "ID               MiB    W      MHz    C\n"
            "GPU 0     61     500    51.3   1410   2147483632  7\n"
            "GPU 0     100    512    60.0   1410   33     8\n")
    hist = parse_dcgmi_dmon(text)
    f = hist.frame
    assert f.series(0, "gpu_util_pct")[1].tolist() == [61.0, 100.0]
    assert f.series(0, "mem_used_bytes")[1][0] == 500 * 2**20
    assert f.series(0, "sm_clock_hz")[1][0] == 1410e6
    temp = f.series(0, "gpu_temp_c")[1]
    assert math.isnan(temp[0]) and temp[1] == 33.0
    assert f.reason(0, "gpu_temp_c") == "DCGM blank"
    assert f.series(0, "dcgmi_xyzzy")[1].tolist() == [7.0, 8.0]


def test_stream_parser_closes_a_tick_when_an_entity_repeats():
    parser = DcgmiDmonParser(host="n", t0=100.0, delay_s=2.0)
    assert parser.feed("#Entity  GPUTL") is None
    assert parser.feed("GPU 0  5") is None
    assert parser.feed("GPU 1  6") is None
    batch = parser.feed("GPU 0  7")
    assert batch is not None and batch.t == 100.0 and [s.values["gpu_util_pct"] for s in batch] == [5.0, 6.0]
    last = parser.finish()
    assert last is not None and last.t == 102.0


@pytest.mark.parametrize("text", ["", "hello\nworld\n", "GPU 0 12 13\n", "x" * 100_000])
def test_not_dcgmi_text_is_a_clear_error(text):
    with pytest.raises(DcgmiParseError) as err:
        parse_dcgmi_dmon(text)
    assert err.value.user_text()


def test_file_times_end_at_the_modification_time(tmp_path):
    path = tmp_path / "dmon.log"
    path.write_text((FIXTURES / "dcgmi_dmon_8gpu_na_issue244.txt").read_text())
    os.utime(path, (1_700_000_000, 1_700_000_000))
    hist = read_dcgmi_dmon(path, host="n", delay_s=5.0)
    assert hist.frame.times.tolist() == [1_699_999_995.0, 1_700_000_000.0]
    with pytest.raises(DcgmiParseError):
        read_dcgmi_dmon(tmp_path / "missing.log")
