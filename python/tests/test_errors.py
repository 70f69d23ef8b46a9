"""bspkit.Error subclasses: each failure class raises its own subclass, which is
also the builtin exception a caller would catch, and carries code/lump/offset."""
import pytest

import bspkit


def test_missing_file_is_a_file_error(tmp_path):
    with pytest.raises(bspkit.FileError) as info:
        bspkit.open(tmp_path / "no-such-map.bsp")
    assert isinstance(info.value, OSError) and isinstance(info.value, bspkit.Error)
    assert info.value.code == bspkit.ERR_IO


@pytest.mark.parametrize("data, code", [
    (b"", bspkit.ERR_EMPTY),
    (b"VBSP\x14\x00\x00\x00", bspkit.ERR_TRUNCATED),
    (b"NOT A MAP AT ALL" * 8, bspkit.ERR_UNKNOWN_FORMAT),
])
def test_damaged_input_is_a_format_error(data, code):
    with pytest.raises(bspkit.FormatError) as info:
        bspkit.open(data)
    assert info.value.code == code
    assert not isinstance(info.value, (bspkit.FileError, bspkit.UnsupportedError))


def test_limits(samples):
    path = samples["source-room"]
    size = path.stat().st_size if hasattr(path, "stat") else __import__("os").path.getsize(path)
    with pytest.raises(bspkit.LimitError) as info:
        bspkit.open(path, max_file_size=size - 1)
    assert info.value.code == bspkit.ERR_LIMIT
    with open(path, "rb") as f:
        data = f.read()
    with pytest.raises(bspkit.LimitError):
        bspkit.open(data, max_file_size=size - 1)
    with bspkit.open(data, max_file_size=size) as m:  # exactly at the limit: accepted
        assert m.counts
    # A decoded-memory budget smaller than the faces array: decoding them is refused.
    # (Planes are read where they are in the file, without memory of their own.)
    with bspkit.open(path, max_memory=16) as m:
        with pytest.raises(bspkit.LimitError):
            m.faces
        assert len(m.planes) > 0
    with pytest.raises(ValueError):
        bspkit.open(path, max_memory=-1)


def test_argument_error_is_a_value_error(samples):
    with bspkit.open(samples["source-room"]) as m:
        with pytest.raises(bspkit.Error) as info:
            m.render(size=(0, 99999))
    assert info.value.code == bspkit.ERR_ARGUMENT
    assert isinstance(info.value, bspkit.ArgumentError) and isinstance(info.value, ValueError)
