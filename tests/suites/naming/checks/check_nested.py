"""A rootdir-style (no __init__.py) subdirectory; basenames must be unique."""


def check_nested():
    pass
