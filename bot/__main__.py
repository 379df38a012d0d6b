"""``python -m bot`` is the same as the ``hwbot`` console script."""

from bot.cli import run

if __name__ == "__main__":  # pragma: no cover
    run()
