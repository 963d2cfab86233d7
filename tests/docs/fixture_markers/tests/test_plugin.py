def test_parse_option():
    pass


def test_runs_in_a_subprocess(pytester):
    pass


def test_through_a_fixture(plugin_run):
    pass
