"""A fleet reading is a value or None with the reason (issue 25): NaN, +Inf, -Inf, DCGM blanks and negative values
of quantities that cannot be negative; the vector form used for range answers agrees with the scalar one."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gpudesk.telemetry.core import dcgm_fields as df
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.fleet.fleet_values import reading, readings


def test_each_kind_of_non_reading_says_why():
    assert reading(math.nan, m.GPU_UTIL) == (None, "not a number (NaN)")
    assert reading(math.inf, m.POWER) == (None, "infinite (+Inf)")
    assert reading(-math.inf, m.GPU_UTIL) == (None, "infinite (-Inf)")
    assert reading(float(0x7FFFFFF0), m.POWER) == (None, "DCGM blank")
    assert reading(-3.0, m.ECC_DBE) == (None, "negative (-3), impossible for a value in count")
    assert reading(1e308, m.MEM_USED, 2**20) == (None, "DCGM blank")  # at or above DCGM's INT64 blank
    assert reading(-12.0, m.GPU_TEMP) == (-12.0, None)  # a temperature may be below zero
    assert reading(512.0, m.MEM_USED, 2**20) == (512.0 * 2**20, None)


raw_values = st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                       st.sampled_from(sorted(df.SENTINELS)), st.just(2.0**63))


@given(st.lists(raw_values, max_size=20), st.sampled_from([m.GPU_UTIL, m.GPU_TEMP, m.MEM_USED, df.ENERGY_TOTAL]),
       st.sampled_from([1.0, 2.0**20, 1e-3]))
@settings(max_examples=300, deadline=None)
def test_the_vector_form_agrees_with_the_scalar_one(values, metric, scale):
    raw = np.array(values, dtype=np.float64)
    vals, why = readings(raw, metric, scale)
    scalar = [reading(float(x), metric, scale) for x in raw]
    for got, (want, _reason) in zip(vals, scalar):
        assert (want is None and math.isnan(got)) or got == want
    first_bad = next((reason for value, reason in scalar if value is None), None)
    assert why == first_bad
