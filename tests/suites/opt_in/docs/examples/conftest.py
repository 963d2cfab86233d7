# The example folder's conftest: not an example.
