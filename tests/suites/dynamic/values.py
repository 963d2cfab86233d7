"""Parameter values defined in another module."""

VALUES = [1, 2, 3]


def load_cases():
    return [("a", 1), ("b", 2)]
