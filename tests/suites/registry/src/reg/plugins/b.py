from reg.base import Special

__all__ = ["BetaPlugin", "GammaPlugin"]


class BetaPlugin(Special):
    name = "beta"


class GammaPlugin(BetaPlugin):
    name = "gamma"
