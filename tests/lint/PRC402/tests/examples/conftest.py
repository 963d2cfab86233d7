# A conftest is not an example.
