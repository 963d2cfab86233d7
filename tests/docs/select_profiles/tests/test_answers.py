import pytest


def test_parse():
    pass


def test_flaky_network():
    pass


@pytest.mark.qualitative
def test_answer_quality():
    pass


@pytest.mark.slow
def test_big_corpus():
    pass
