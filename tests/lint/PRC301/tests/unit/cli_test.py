"""Tests of src/pkg/cli.py (the `_test` suffix also mirrors)."""  # OK


def test_main():
    pass
