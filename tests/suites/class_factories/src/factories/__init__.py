"""The project's own source: functions whose results pytest names."""

import types


def named_class(name, *bases):
    """A new class called `name` (its id is `name`)."""
    return types.new_class(name, bases or (object,))


class Plain:
    pass


def plain_instance(value):
    """An instance of a plain class (its id is the argument name and index)."""
    return Plain()
