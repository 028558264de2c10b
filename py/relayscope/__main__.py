"""``python -m relayscope`` and the ``relayscope`` command: the command line (``cli``).

``--version`` alone is answered before the command line's modules load (argparse's answer, word
for word): it is what a start-up check runs. Ctrl-C while the package is still loading ends the
run as quietly as it does later (exit 130)."""

import gc
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
    # The run is over and its output written. The interpreter's last collections would walk every
    # object still alive (the modules, a translator's windows of recent messages and ids) to find
    # next to nothing to free, as the process ends: a tenth of a one-session translate's time.
    # Frozen, they are not walked (the memory goes back with the process).
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    run()
