"""The command line's commands, one module each (``cmd_NAME``), as git's builtin/ and cargo's
commands/: each imports what it uses at its top, and none imports another; ``cli.main`` imports
the one a run names."""
