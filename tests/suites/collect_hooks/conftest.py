# The root conftest puts this directory on sys.path (prepend import mode),
# so golden/conftest.py can import golden_items.
