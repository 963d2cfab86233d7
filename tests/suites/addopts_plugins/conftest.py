def pytest_addoption(parser):
    group = parser.getgroup("suite")
    group.addoption("--columns", action="store", default="", help="columns to show")
    parser.addoption("--fast", action="store_true", help="a flag")
    parser.addoption(
        "--level",
        type=int,
        default=1,
    )
    parser.addoption("--tag", dest="tag")
    parser.addoption("--stages", nargs="+", default=[])
