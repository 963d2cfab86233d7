"""Collected because it matches python_files "*_spec.py"."""

import unittest


def check_login():
    pass


class LoginCases(unittest.TestCase):
    # unittest.TestCase subclasses are collected whatever python_classes
    # says, and their methods follow unittest's rule (the "test" prefix),
    # not python_functions.
    def test_via_unittest(self):
        pass

    def check_not_a_unittest_test(self):
        pass
