from reg.base import Plugin

__all__ = ["AlphaPlugin"]


class AlphaPlugin(Plugin):
    name = "alpha"
