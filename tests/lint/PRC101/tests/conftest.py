def pytest_configure(config):
    config.addinivalue_line("markers", "needs_db: talks to a database")
