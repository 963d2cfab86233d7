import os

import pytest


@pytest.mark.skipif(not os.environ.get("PROCTOR_TEST_SECRET_KEY"), reason="PROCTOR_TEST_SECRET_KEY not set")
def test_needs_key():
    pass


def test_exits_cleanly():
    with pytest.raises(SystemExit):
        raise SystemExit(3)
