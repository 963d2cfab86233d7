"""Instances of standard-library classes are named by argument name and
index whatever their arguments are, even arguments proctor cannot know
(python-dateutil's `datetime(..., tzinfo=tz.gettz("Europe/London"))`,
where `gettz` gives None for a zone the machine lacks)."""

import datetime
import os
import typing
from datetime import date, datetime as dt, timedelta

import pytest


def _zone():
    """The zone named in the environment, or None: known only at run time."""
    name = os.environ.get("PROCTOR_FIXTURE_ZONE")
    return datetime.timezone.utc if name else None


def _hours():
    return int(os.environ.get("PROCTOR_FIXTURE_HOURS", "0"))


@pytest.mark.parametrize(
    "when",
    [
        dt(2020, 1, 1, tzinfo=_zone()),
        datetime.datetime(2021, 6, 2, 12, 30, tzinfo=_zone()),
        date(2020, 1, 2),
        timedelta(hours=_hours()),
    ],
)
def test_objects_of_unknown_arguments(when):
    pass


class Version(typing.NamedTuple):
    major: int
    minor: int


@pytest.mark.parametrize("version", [Version(1, 2), (Version(3, 4), "x")])
def test_named_tuple_instances(version):
    pass


@pytest.mark.parametrize("tags", [{Version(1, 2)}, {date(2020, 1, 1)}])
def test_a_set_of_one_object(tags):
    pass
