"""``python -m relayscope`` and the ``relayscope`` command: the command line (``cli``).

``--version`` alone is answered before the command line's modules load (argparse's answer, word
for word): it is what a start-up check runs. Ctrl-C while the package is still loading ends the
run as quietly as it does later (exit 130)."""

import sys

if sys.argv[1:] == ["--version"]:
    from . import __version__

    sys.stdout.write(f"relayscope {__version__}\n")
    sys.exit(0)

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
