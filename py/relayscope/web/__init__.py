"""Browser-only code: the page (index.html) runs main.py in a web worker (static/js/worker.mjs),
which draws through remote/'s mirror of the page's DOM.

It imports the core; the core never imports it. It may relax the core's typing where dynamic JS
objects force it (mypy skips the DOM modules of this folder).
"""
