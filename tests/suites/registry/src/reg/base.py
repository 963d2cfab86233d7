class Plugin:
    name = None
    kind = "plain"


class Special(Plugin):
    kind = "special"
