"""``python -m relayscope`` and the ``relayscope`` command: the command line (``cli``).

Ctrl-C while the package is still loading ends the run as quietly as it does later (exit 130)."""

import sys

try:
    from .cli import INTERRUPTED, main
except KeyboardInterrupt:
    sys.exit(130)


def run() -> None:
    try:
        code = main()
    except KeyboardInterrupt:  # between the handler's return and the exit
        code = INTERRUPTED
    sys.exit(code)


if __name__ == "__main__":
    run()
