"""A value that is an object or None depending on the environment
(python-dateutil's `tz.gettz("Pacific/Kiritimati")`, None where the zone
is missing): pytest's id is `zone0` or `None`, so the item stays dynamic.
Wrapped in a `datetime(...)` it is an object whatever it is
(`evaluated/tests/test_object_arguments.py`)."""

import datetime
import os

import pytest


def _zone():
    name = os.environ.get("PROCTOR_FIXTURE_ZONE")
    return datetime.timezone.utc if name else None


@pytest.mark.parametrize("zone", [_zone(), datetime.timezone.utc])
def test_the_unknown_value_itself(zone):
    pass
