"""``python -m bot`` is the same as the ``hwbot`` console script."""

from bot.cli import main

if __name__ == "__main__":  # pragma: no cover
    main()
