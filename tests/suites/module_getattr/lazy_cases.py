"""Parameter lists made on first access."""

_TABLE = {"SMALL": [1, 2], "LARGE": [100, 200, 300]}

BOUND = ["plain"]


def __getattr__(name):
    if name in _TABLE:
        return _TABLE[name]
    raise AttributeError(name)
