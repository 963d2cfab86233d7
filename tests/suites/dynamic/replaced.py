"""A module that puts another object in its place in `sys.modules`, as
`pygments.formatters` does: its attributes are that object's."""

import sys


class _Lazy:
    def __getattr__(self, name):
        return name.upper()


sys.modules[__name__] = _Lazy()
