"""Collected because it matches python_files "check_*.py"."""


def check_addition():
    pass


def it_should_work():
    # Matches the glob "*_should_*".
    pass


def test_not_collected():
    # "test" is no longer a function prefix here.
    pass


def checkmate():
    # "check_" is the prefix, and "checkmate" lacks the underscore.
    pass


class CheckNumbers:
    # Matches the class prefix "Check".
    def check_one(self):
        pass

    def test_not_collected(self):
        pass


class MathSuite:
    # Matches the class glob "*Suite".
    def check_two(self):
        pass

    def it_should_add(self):
        pass


class TestIgnored:
    # "Test" is no longer a class prefix here.
    def check_never(self):
        pass
