"""Hostile dcgmi dmon text (issue 25): DCGM blank sentinels, a NUL byte that would shift columns, UTF-16 logs,
non-ASCII digits, negative readings; and a hypothesis strategy over rows of real output. Every case ends in a
correct N/A with its reason or a row left out with a note; never a value in the wrong column, never a traceback."""

from __future__ import annotations

import codecs
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.formats.dcgmi_dmon import DcgmiParseError, parse_dcgmi_dmon, read_dcgmi_dmon

HEADER = "#Entity   GPUTL  POWER  FBUSD  TMPTR\nID                W      MiB    C\n"


def _parse(rows: str):
    return parse_dcgmi_dmon(HEADER + rows + "GPU 1  5  100.0  2000  40\n")


def _value(hist, gpu_position: int, metric: str) -> float:
    return float(hist.frame.series(gpu_position, metric)[1][0])


@pytest.mark.parametrize("raw, reason", [
    ("2147483648", "32-bit blank range"), ("2147483632", "DCGM blank"), ("2147483635", "no permission"),
    ("9223372036854775807", "DCGM blank"), ("9223372036854775792", "DCGM blank"), ("140737488355328", "DCGM blank"),
])
def test_dcgm_blank_sentinels_are_na_with_the_reason(raw, reason):
    hist = _parse(f"GPU 0  50  {raw}  1000  {raw}\n")
    assert math.isnan(_value(hist, 0, m.POWER)) and math.isnan(_value(hist, 0, m.GPU_TEMP))
    assert reason in hist.frame.reasons[(0, m.POWER)]
    assert _value(hist, 0, m.GPU_UTIL) == 50 and _value(hist, 0, m.MEM_USED) == 1000 * 2**20


def test_a_counter_may_pass_two_to_the_31():
    # DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION in mJ: 2**31 mJ is 25 days at 1 W, a real reading
    hist = parse_dcgmi_dmon("#Entity   TOTEC\nID        mJ\nGPU 0     2147483648\n")
    assert hist.frame.series(0, "energy_total_j")[1].tolist() == [2147483.648]


def test_negative_readings_are_na_and_a_temperature_below_zero_is_kept():
    hist = _parse("GPU 0  -5  -3  -1  -10\n")
    for metric in (m.GPU_UTIL, m.POWER, m.MEM_USED):
        assert math.isnan(_value(hist, 0, metric))
        assert "negative reading" in hist.frame.reasons[(0, metric)]
    assert _value(hist, 0, m.GPU_TEMP) == -10


@pytest.mark.parametrize("row", ["GPU 0  61 \x00  250  40000  30", "GPU 0  61  250\x00  40000  30",
                                 "GPU 0  61  \x1b[2J  250  40000  30"])
def test_a_row_with_a_control_byte_is_left_out_never_shifted(row):
    hist = _parse(row + "\n")
    assert [k.gpu_index for k in hist.keys] == [1]  # GPU 0's only row was left out, nothing shifted into FBUSD
    assert any("control character" in n for n in hist.notes)


def test_a_row_with_more_values_than_columns_is_left_out():
    hist = _parse("GPU 0  61  250  40000  30  99\n")
    assert [k.gpu_index for k in hist.keys] == [1]
    assert any("5 values for 4 columns" in n for n in hist.notes)


@pytest.mark.parametrize("entity", ["٣", "²", "３"])
def test_a_non_ascii_digit_entity_id_is_a_note_not_a_traceback(entity):
    hist = _parse(f"GPU {entity}  61  250  4000  30\n")
    assert [k.gpu_index for k in hist.keys] == [1]
    assert any("not a number written with the digits 0-9" in n for n in hist.notes)


@pytest.mark.parametrize("encoding, bom", [("utf-16-le", codecs.BOM_UTF16_LE), ("utf-16-be", codecs.BOM_UTF16_BE),
                                          ("utf-8", codecs.BOM_UTF8)])
def test_utf16_and_bom_logs_are_read_as_dmon_logs_are(tmp_path, encoding, bom):
    path = tmp_path / "dcgmi.log"
    path.write_bytes(bom + (HEADER + "GPU 0  61  250.5  4000  30\r\n").encode(encoding))
    hist = read_dcgmi_dmon(path)
    assert _value(hist, 0, m.POWER) == 250.5 and _value(hist, 0, m.GPU_UTIL) == 61


def test_many_bad_rows_are_counted_and_only_the_first_are_quoted():
    hist = _parse("".join(f"GPU 0  \x00 {i}\n" for i in range(100)))
    assert sum("control character" in n for n in hist.notes) == 20
    assert any("100 rows were left out in all" in n for n in hist.notes)


# --- hypothesis: rows of real output with hostile tokens --------------------------------------------------

TOKEN = st.one_of(
    st.sampled_from(["N/A", "NA", "-", "0", "61", "0.367", "2147483648", "9223372036854775807", "-1", "1e308",
                     "inf", "-inf", "nan", "1.294", "\x00", "\x1b]52;c;aGk=\x07", "٣", "GPU", "#Entity"]),
    st.text(max_size=6),
    st.floats().map(repr),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
)
ROW = st.tuples(st.sampled_from(["GPU", "GPU-I", "GPU-CI", "Gpu", ""]), st.one_of(st.integers(0, 9).map(str),
                                                                                    st.text(max_size=3)),
                st.lists(TOKEN, max_size=6)).map(lambda r: " ".join([r[0], r[1], *r[2]]))


@settings(max_examples=300, deadline=None)
@given(rows=st.lists(ROW, max_size=12))
def test_any_rows_parse_to_plausible_values_or_notes(rows):
    try:
        hist = _parse("\n".join(rows) + "\n")
    except DcgmiParseError as exc:
        assert exc.user_text()
        return
    for name, column in hist.frame.columns.items():
        values = column[~np.isnan(column)]
        assert np.isfinite(values).all(), name
        if name in (m.GPU_UTIL,):
            assert ((values >= 0) & (values <= 100)).all()
        if name == m.POWER:
            assert ((values >= 0) & (values < 2147483632)).all()
    for (_, metric), reason in hist.frame.reasons.items():
        assert reason and metric
