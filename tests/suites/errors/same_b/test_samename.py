# See same_a/test_samename.py: this module is reported as an import file
# mismatch by pytest, and by proctor.
def test_second_copy():
    pass
