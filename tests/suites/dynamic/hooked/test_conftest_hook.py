"""Tests under a conftest that defines pytest_generate_tests."""


def test_conftest_hook(conf_param):
    pass


def test_untouched():
    # Not parametrized by the hook, but only running it can tell.
    pass
