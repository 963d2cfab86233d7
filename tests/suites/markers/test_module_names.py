"""A module pytestmark list built from names bound to marks."""

import pytest

from shared_marks import gpu16, slow

net = pytest.mark.net

pytestmark = [slow, net, gpu16, pytest.mark.timeout(30)]


def test_module_marks_only():
    pass


@pytest.mark.fast
def test_function_then_module():
    pass
