# -*- coding: latin-1 -*-
"""Collected: non-UTF-8 bytes are fine with a PEP 263 declaration."""

import pytest


@pytest.mark.parametrize("s", ["été"])
def test_latin1(s):
    # The id is the decoded string, escaped: "\\xe9t\\xe9".
    pass
