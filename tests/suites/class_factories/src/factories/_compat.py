import sys

OLD_PYTHON = sys.version_info < (3, 8)
