from factories._compat import OLD_PYTHON

collect_ignore = []
if not OLD_PYTHON:
    collect_ignore.append("test_old_python.py")
