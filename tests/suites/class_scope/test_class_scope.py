import pytest

edata = "module"  # shadowed by the class's own `edata`
LIMIT = 3


class TestCases:
    edata = {"w": 200}
    dodod1 = {"a": {"b": edata}}
    dol = {"a": ["b"]}
    cases = [(dodod1, True), (dol, False)]

    @pytest.mark.parametrize("dod, mgi", cases)
    def test_cases(self, dod, mgi):
        pass

    # The class's `edata` (a dict: an auto id), not the module's string.
    @pytest.mark.parametrize("value", [edata, "x"])
    def test_shadowed(self, value):
        pass

    names = ["alpha", "beta"]
    # A comprehension's first iterable is read in the class body.
    upper = [n.upper() for n in names]

    @pytest.mark.parametrize("name", upper)
    def test_first_iterable(self, name):
        pass

    @pytest.mark.parametrize("key", dodod1.keys())
    def test_attribute(self, key):
        pass

    def _make(limit):
        return [f"case{i}" for i in range(limit)]

    made = _make(LIMIT)

    @pytest.mark.parametrize("case", made)
    def test_helper(self, case):
        pass

    class TestNested:
        inner = [1, 2]

        @pytest.mark.parametrize("n", inner)
        def test_nested(self, n):
            pass


@pytest.mark.parametrize("edata", [edata])
def test_module_level(edata):
    pass
