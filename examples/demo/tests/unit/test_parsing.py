import enum

import pytest


class Mode(enum.Enum):
    FAST = 1
    SAFE = 2


@pytest.mark.parametrize("text, expected", [("1", 1), ("-2", -2), pytest.param("x", None, id="invalid")])
def test_parse_int(text, expected):
    assert (int(text) if expected is not None else None) == expected


@pytest.mark.parametrize("mode", [Mode.FAST, Mode.SAFE])
def test_mode_roundtrip(mode):
    assert Mode(mode.value) is mode


class TestStore:
    def test_put(self, backend):
        assert backend

    @pytest.mark.slow
    def test_bulk_load(self):
        assert sum(range(10)) == 45
