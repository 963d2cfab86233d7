"""Root conftest: literal ignore lists.

collect_ignore entries are paths relative to this conftest's directory,
compared exactly with each visited path.  collect_ignore_glob entries are made
absolute relative to this directory and fnmatch'ed against the full path, so
"*_legacy.py" applies at any depth below here.
"""

collect_ignore = ["zeta_tests/test_conf_ignored.py", "alpha_tests/conf_ignored_dir"]
collect_ignore_glob = ["*_legacy.py"]

# Ignored only under a condition on the target interpreter's version, which
# proctor reads from its files: the file is still collected by pytest here
# (Python 3), and so by proctor (with no interpreter found, its items would
# be dynamic instead of guessed).
import sys

if sys.version_info < (3, 0):
    collect_ignore.append("zeta_tests/test_py2_only.py")
