"""A module-level pytest_generate_tests hook."""


def pytest_generate_tests(metafunc):
    if "generated" in metafunc.fixturenames:
        metafunc.parametrize("generated", [x * x for x in range(3)])


def test_generated(generated):
    pass


def test_not_generated():
    # Untouched by the hook, but only running the hook can tell: a collector
    # may report this one as dynamic too.
    pass


class TestClassHook:
    def pytest_generate_tests(self, metafunc):
        # A pytest_generate_tests *method* applies to this class's tests.
        metafunc.parametrize("from_class", ["k1", "k2"])

    def test_class_generated(self, from_class):
        pass
