# -*- coding: utf-8-sig -*-
def test_utf8_sig():
    assert "é"
