"""Browser-only code: the PyScript page (index.html) runs main.py on the main thread.

It imports the core; the core never imports it. It may relax the core's typing where PyScript's
dynamic JS objects force it (mypy skips this folder).
"""
