"""Parameter lists that are not literals."""

import pytest

import replaced
from values import VALUES, load_cases

LOCAL_CASES = ["p", "q"]


def local_values():
    return [10, 20]


@pytest.mark.parametrize("x", local_values())
def test_from_function_call(x):
    pass


@pytest.mark.parametrize("x", [i * 2 for i in range(3)])
def test_from_comprehension(x):
    pass


@pytest.mark.parametrize("x", VALUES)
def test_from_imported_name(x):
    pass


@pytest.mark.parametrize("name,n", load_cases())
def test_from_imported_function(name, n):
    pass


@pytest.mark.parametrize("x", LOCAL_CASES)
def test_from_module_constant(x):
    # A module-level literal bound to a name: a collector may resolve it or
    # report the item as dynamic; both are accepted.
    pass


@pytest.mark.parametrize("x", list(range(2)))
@pytest.mark.parametrize("y", ["static1", "static2"])
def test_mixed_static_and_dynamic(x, y):
    pass


@pytest.fixture(params=load_cases())
def from_loader(request):
    return request.param


def test_fixture_params_from_call(from_loader):
    pass


@pytest.mark.slow
def test_static_neighbour():
    # Static: must match exactly, markers included.
    pass


@pytest.mark.parametrize("mod", [__import__("json")])
def test_import_outside_the_suite(mod):
    # A module outside the suite and the project's source: not read, so
    # its object (and id) stays dynamic.
    pass


@pytest.mark.parametrize("cls", [getattr(__import__("values"), "Missing", int)])
def test_getattr_default(cls):
    # A name a module does not bind statically may still exist at run time
    # (a module can replace itself in sys.modules): the default is not taken.
    pass


def parametrize_with(parameter, values):
    def decorator(f):
        return pytest.mark.parametrize(parameter, [v for v in values if v])(f)

    return decorator


@parametrize_with("v", [0, 1, 2])
def test_factory_reading_its_parameter(v):
    # The values read a parameter of the factory inside a comprehension:
    # not followed, so the item stays dynamic.
    pass


REGISTERED = []


def register(value):
    REGISTERED.append(value)
    return value


@pytest.mark.parametrize("v", [register(1), register(2)])
def test_registers(v):
    pass


@pytest.mark.parametrize("r", REGISTERED)
def test_reads_a_registry(r):
    # `register` changed the list at import, before this line ran: its
    # value depends on the calls that ran before, so it stays dynamic.
    pass


@pytest.mark.parametrize("name", [getattr(replaced, n) for n in ["thing"]])
def test_module_replaced_in_sys_modules(name):
    pass
