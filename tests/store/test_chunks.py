"""Columnar chunk encoding of recordings: lossless, compact, span reads."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gpudesk.store import chunks, open_store
from gpudesk.store import recordings as rec


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_encode_decode_is_bit_exact_with_nan_and_extremes(dtype):
    rng = np.random.default_rng(1)
    values = rng.normal(0, 1e6, 5000).astype(dtype)
    values[::7] = np.nan
    values[1] = np.finfo(dtype).max
    values[2] = np.finfo(dtype).tiny
    values[3] = -0.0
    back = chunks.decode(chunks.encode(values), values.dtype.str, values.shape[0])
    assert back.dtype == values.dtype
    assert back.tobytes() == values.tobytes()


def test_regular_time_base_compresses_well():
    t = 1.7e9 + np.arange(3600, dtype=np.float64)
    assert len(chunks.encode(t)) < t.nbytes / 8


def test_decode_refuses_a_blob_of_the_wrong_size():
    blob = chunks.encode(np.arange(10, dtype=np.float64))
    with pytest.raises(ValueError, match="expected 11"):
        chunks.decode(blob, "<f8", 11)


def test_insert_arrays_and_span_read_across_chunks():
    db = open_store()
    sid = rec.create_session(db, source="test")
    secs = 100
    t = np.repeat(1.7e9 + np.arange(secs, dtype=np.float64), 3)
    gpu = np.tile(np.arange(3, dtype=np.int32), secs)
    util = np.arange(t.shape[0], dtype=np.float32)
    util[5] = np.nan
    mem = (np.arange(t.shape[0]) * 1024.0**2).astype(np.float64)
    n = rec.insert_arrays(db, sid, t, gpu, {"gpu_util_pct": util, "mem_used_bytes": mem,
                                             "ecc_sbe_volatile_count": np.full(t.shape[0], np.nan)}, chunk=7)
    assert n == t.shape[0]
    back_t, back_gpu, cols = rec.read_arrays(db, sid)
    assert np.array_equal(back_t, t) and np.array_equal(back_gpu, gpu)
    assert np.array_equal(cols["gpu_util_pct"], util.astype(np.float64), equal_nan=True)
    assert np.array_equal(cols["mem_used_bytes"], mem)
    assert "ecc_sbe_volatile_count" not in cols  # never read: not stored as a column of NaN
    span_t, span_gpu, span = rec.read_arrays(db, sid, 1.7e9 + 10, 1.7e9 + 12, gpus=[1])
    assert span_t.tolist() == [1.7e9 + 10, 1.7e9 + 11, 1.7e9 + 12] and span_gpu.tolist() == [1, 1, 1]
    assert span["gpu_util_pct"].tolist() == [31.0, 34.0, 37.0]
    sess = rec.get_session(db, sid)
    assert (sess.sample_rows, sess.first_t, sess.last_t) == (300, 1.7e9, 1.7e9 + 99)
    rec.delete_session(db, sid)
    assert db.conn.execute("select count(*) from recording_chunk_values").fetchone()[0] == 0
    assert math.isclose(len(rec.list_sessions(db)), 0)
