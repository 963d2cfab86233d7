"""A conftest pytest_generate_tests hook: it may parametrize any test below
this directory (here, every test that requests "conf_param").  It lives in a
subdirectory so that it does not make the rest of the suite dynamic."""


def pytest_generate_tests(metafunc):
    if "conf_param" in metafunc.fixturenames:
        metafunc.parametrize("conf_param", ["c1", "c2", "c3"])
