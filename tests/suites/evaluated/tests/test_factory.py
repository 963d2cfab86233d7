import pytest


def mark_dualiter(parameter, factory):
    def decorator(f):
        return pytest.mark.parametrize(
            parameter, [lambda: factory(), lambda: list(factory())]
        )(f)

    return decorator


def cases(name, values=(1, 2)):
    """A factory with a default: its value comes from the factory's module."""

    def apply(func):
        return pytest.mark.parametrize(name, values)(func)

    return apply


@mark_dualiter("foo", lambda: range(10))
def test_lambda_ids(foo):
    pass


@pytest.mark.filterwarnings("ignore")
@mark_dualiter(factory=lambda: [1], parameter="items")
@pytest.mark.parametrize("x", ["a", "b"])
def test_keywords_and_other_marks(items, x):
    pass


@cases("n")
def test_default_values(n):
    pass
