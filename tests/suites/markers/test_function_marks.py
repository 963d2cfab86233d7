"""Marks on test functions, spelled in every supported way."""

import os
import sys

import pytest
import pytest as pt
from pytest import mark
from pytest import mark as m

from shared_marks import gpu16, requires_key, slow
import shared_marks

fast = pytest.mark.fast
timeout_5 = pytest.mark.timeout(5)


@pytest.mark.first
@pytest.mark.second
@pytest.mark.third
def test_stacked():
    # Reported bottom-up: third, second, first.
    pass


@mark.slow
def test_from_pytest_import_mark():
    pass


@m.fast
def test_mark_alias():
    pass


@pt.mark.slow
def test_pytest_alias():
    pass


@slow
@fast
def test_module_level_names():
    # fast (local name), then slow (imported name).
    pass


@requires_key
@gpu16
def test_imported_marks_with_args():
    # skipif's condition is evaluated at import: pytest reports the bool.
    pass


@shared_marks.integration
def test_attribute_of_imported_module():
    pass


@pytest.mark.timeout(5)
@pytest.mark.device(serial="123")
@pytest.mark.flaky(reruns=2, only_rerun=["ReadTimeout"])
def test_literal_args_and_kwargs():
    pass


@timeout_5
def test_bound_mark_with_args():
    pass


@pytest.mark.data(
    {"nested": [1, 2.5, None, True], "t": (1, "x")},
    -3,
    b"raw",
    key=None,
    neg=-1.5,
)
def test_nested_literal_values():
    # Tuples are reported as lists, bytes as {"bytes": ...}.
    pass


@pytest.mark.data(os.sep, len("abc"), sys.version_info >= (3, 8))
def test_non_literal_args():
    # Evaluated by pytest (the values end up in the dump); proctor can only
    # report these as expressions.
    pass


def helper():
    return 1


@pytest.mark.with_callable.with_args(helper)
def test_with_args_callable():
    # .with_args() is how a mark takes a single callable argument (calling
    # the mark with it would decorate the callable instead).
    pass


@pytest.mark.data.with_args(1, value=2)
def test_with_args_literals():
    pass


@pytest.mark.slow
@pytest.mark.slow
def test_duplicate_marks():
    # Both are kept.
    pass


@pytest.mark.skip(reason="demo")
@pytest.mark.skipif(False, reason="never")
@pytest.mark.xfail(raises=ValueError, strict=True)
@pytest.mark.usefixtures("tmp_path")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_builtin_marks():
    pass


@pytest.mark.slow()
def test_called_without_args():
    # slow() is the same as slow.
    pass


def test_unmarked():
    pass
