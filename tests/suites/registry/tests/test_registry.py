import importlib

import pytest

import reg
from reg import plugins


@pytest.mark.parametrize("cls", reg.iter_plugins())
def test_classes_by_name(cls):
    assert cls.name


@pytest.mark.parametrize("kind", [cls.kind for cls in reg.iter_plugins()])
def test_inherited_attributes(kind):
    pass


@pytest.mark.parametrize("mod", reg.plugin_modules())
def test_module_ids(mod):
    pass


@pytest.mark.parametrize("mod", [reg.top_package(), plugins])
def test_top_package(mod):
    pass


@pytest.mark.parametrize(
    "cls",
    [getattr(importlib.import_module(".plugins.b", "reg"), n) for n in ["GammaPlugin"]],
)
def test_relative_import_module(cls):
    pass


@pytest.mark.parametrize("name", [m.__name__ for m in reg.plugin_modules()])
def test_module_names(name):
    pass
