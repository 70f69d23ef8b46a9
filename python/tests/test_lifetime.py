"""Arrays keep the decoded memory alive after the map is closed and dropped."""
import gc

import pytest

import bspkit


def test_array_outlives_map(samples):
    m = bspkit.open(samples["source-room"])
    faces = m.faces
    planes = m.planes
    before = faces.tobytes(), planes.tobytes()
    m.close()
    assert m.closed
    del m
    gc.collect()
    assert (faces.tobytes(), planes.tobytes()) == before
    assert int(faces["num_edges"].sum()) > 0


def test_closed_map_refuses_access(samples):
    with bspkit.open(samples["quake-room"]) as m:
        pass
    with pytest.raises(ValueError):
        m.counts
    with pytest.raises(ValueError):
        m.faces
    m.close()  # closing twice is allowed


def test_many_views_then_close(samples):
    m = bspkit.open(samples["goldsrc-room"].read_bytes())
    views = [m.array(name) for name in bspkit.RECORD_ARRAYS for _ in range(3)]
    m.close()
    del m
    gc.collect()
    total = sum(v.nbytes for v in views)
    views.clear()
    gc.collect()
    assert total > 0
