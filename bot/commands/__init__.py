"""One module per ``hwbot`` command; ``bot.cli`` imports each lazily so ``--help`` stays fast.
"""


__all__ = []
