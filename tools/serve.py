"""Serve a folder on 127.0.0.1 the way a plain static host would: files, MIME types, no more.

No special headers (no COOP/COEP, no caching rules): the app must load on any static host, and
this server proves it does. `make serve` runs it; the browser tests and bench/ import it.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import ClassVar

# Module scripts and streaming wasm compilation need exact types; don't trust /etc/mime.types.
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".css": "text/css",
    ".json": "application/json",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".whl": "application/zip",
    ".py": "text/x-python; charset=utf-8",
}


class Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the page makes ~15 requests while it loads
    extensions_map: ClassVar[dict[str, str]] = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        **TYPES,
    }
    quiet = False

    def log_message(self, format: str, *args: object) -> None:
        if not self.quiet:
            super().log_message(format, *args)


def make_server(directory: Path, port: int = 0, quiet: bool = False) -> http.server.HTTPServer:
    """A threading server for `directory` on 127.0.0.1 (`port` 0: any free port)."""
    handler = functools.partial(
        type("QuietHandler" if quiet else "LoudHandler", (Handler,), {"quiet": quiet}),
        directory=str(directory),
    )
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    return server


@contextmanager
def serving(directory: Path) -> Iterator[str]:
    """Serve `directory` from a background thread; yields its base URL (ending with /)."""
    server = make_server(directory, quiet=True)
    thread = threading.Thread(target=server.serve_forever, name="site-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--dir", type=Path, default=Path(__file__).resolve().parent.parent)
    args = parser.parse_args(argv)
    server = make_server(args.dir, args.port)
    print(f"Serving {args.dir} at http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C stops)")
    sys.stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
