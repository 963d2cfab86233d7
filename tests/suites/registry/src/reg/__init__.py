import importlib

from reg._mapping import PLUGINS

_cache = {}


def _load(module_name):
    mod = __import__(module_name, None, None, ["__all__"])
    for class_name in mod.__all__:
        cls = getattr(mod, class_name)
        _cache[cls.name] = cls


def iter_plugins():
    for key in sorted(PLUGINS):
        module_name, name = PLUGINS[key][:2]
        if name not in _cache:
            _load(module_name)
        yield _cache[name]


def plugin_modules():
    return [importlib.import_module(info[0]) for info in PLUGINS.values()]


def top_package():
    return __import__("reg.plugins.a")
