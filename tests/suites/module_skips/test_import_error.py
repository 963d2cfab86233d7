"""Fails to import: one collection error, with its traceback."""
import pytest

import a_module_nobody_wrote  # noqa: F401


@pytest.mark.slow
def test_never_runs():
    pass
