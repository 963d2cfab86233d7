import sys

collect_ignore = []
if sys.version_info >= (3, 8):
    collect_ignore.append("test_py2_era.py")
elif sys.platform == "win32":
    collect_ignore.append("test_versions.py")
