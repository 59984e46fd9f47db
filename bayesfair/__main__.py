"""``python -m bayesfair``: the same as the ``bayesfair`` command."""

from bayesfair.cli import main

main()
