"""Names a chain of star imports exports: `__all__` decides which."""

__all__ = ["pentagon", "octagon"]


def pentagon():
    return 5


def octagon():
    return 8


def not_exported():
    return 0
