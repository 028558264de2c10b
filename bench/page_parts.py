"""Where the page's load of a big file goes, part by part, in CPython: the whole app on remote.py's
stand-ins, no browser.

Usage:

    .venv/bin/python bench/page_parts.py [--mb 50] [--runs 3] [--profile]

The app (web/app.py) is made as the worker makes it, on a mirror of index.html's elements, and
opens the corpus repeated to --mb megabytes (bench/web_scale.py's input) as a picked file: read a
slice at a time, translated, the lookups and the first screen, to <html data-app-state="done">,
then the swimlanes (built after the job is done), to <html data-lanes-ms>. Each part's CPU time (``time.process_time``: the machine is shared)
is summed over the load by wrapping the functions that do it; the least of --runs loads is printed,
as a ratio to the CLI's own work on the same bytes in the same process (``Analyzer`` without the
relays kept, each relay encoded as NDJSON: what ``relayscope translate`` does between start-up and
output). The parts nest: the swimlanes hold the timeline's build and the tracks. The page runs the same Python under Pyodide, about 1.5-2.5 times slower
(bench/engine_gap.py): what is large here is large there. --profile adds cProfile's top functions of
one more load.
Must not: write anywhere (the input is web_scale.py's, made once in bench/out/).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import functools
import html.parser
import pstats
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "py"), str(ROOT / "bench"), str(ROOT / "tools")]

from web_scale import make_input

from relayscope import spans
from relayscope.web import filters, loading, protocol, remote, rows, screen, swimlanes
from relayscope.web.loads import Text
from relayscope.web.protocol import Picked

SPENT: Counter[str] = Counter()

# (module or class, function, part): what each part of the load is, by the function that does it
PARTS: list[tuple[Any, str, str]] = [
    (loading.Loader, "load_more", "translate"),
    (loading.Loader, "end_load", "end of input and lookups"),
    (rows.Rows, "_count_lanes", "lookups: lanes"),
    (rows.Rows, "_group_and_bookkeeping", "lookups: groups"),
    (screen.Screen, "first_rows", "first rows"),
    (screen.Screen, "present", "present"),
    (swimlanes.Swimlanes, "show", "swimlanes"),
    (spans, "build_steps", "swimlanes: timeline build"),
    (swimlanes.Swimlanes, "_track", "swimlanes: tracks"),
    (swimlanes.Swimlanes, "_send", "swimlanes: sending"),
    (filters.Filters, "apply", "rows: filter and draw"),
]


def timed(part: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with its CPU time added to ``part`` (a coroutine's or generator's as it runs)."""
    code = getattr(fn, "__code__", None)
    flags = code.co_flags if code is not None else 0
    if flags & 0x80:  # a coroutine: the time between its awaits

        @functools.wraps(fn)
        async def coroutine(*args: Any, **kwargs: Any) -> Any:
            t = time.process_time()
            out = await fn(*args, **kwargs)
            SPENT[part] += time.process_time() - t
            return out

        return coroutine
    if flags & 0x20:  # a generator: each step

        @functools.wraps(fn)
        def generator(*args: Any, **kwargs: Any) -> Any:
            gen = fn(*args, **kwargs)
            while True:
                t = time.process_time()
                try:
                    value = next(gen)
                except StopIteration as done:
                    SPENT[part] += time.process_time() - t
                    return done.value
                SPENT[part] += time.process_time() - t
                yield value

        return generator

    @functools.wraps(fn)
    def plain(*args: Any, **kwargs: Any) -> Any:
        t = time.process_time()
        out = fn(*args, **kwargs)
        SPENT[part] += time.process_time() - t
        return out

    return plain


class Elements(html.parser.HTMLParser):
    """index.html's elements with an id, as static/js/ui.mjs sends them to the worker."""

    def __init__(self) -> None:
        super().__init__()
        self.elements: dict[str, dict[str, Any]] = {}
        self.root: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "html":
            self.root = a
        if "id" in a:
            props = {"value": a.get("value", "")} if tag in ("input", "select", "textarea") and a.get("type") != "file" else {}
            self.elements[a["id"]] = {"tag": tag, "attrs": a, "props": props}


class Host:
    async def fetch(self, url: str) -> bytes:
        raise OSError(url)

    def download(self, name: str, data: bytes, mime: str) -> None:
        pass

    def now(self) -> float:
        return 0.0


async def start_app() -> Any:
    page = Elements()
    page.feed((ROOT / "index.html").read_text(encoding="utf-8"))
    page.elements["timeline"]["props"].update(scrollTop=0, clientHeight=800, scrollHeight=0, clientWidth=1000)
    loop = asyncio.get_running_loop()
    remote.PAGE.post = lambda message: None  # the ops are made and encoded as for the page, then dropped
    remote.PAGE.schedule = lambda: loop.call_soon(remote.PAGE.flush)
    wrap = protocol.Wrap(lambda f: f, lambda h: h)
    snapshot = {"elements": page.elements, "rootAttrs": {**page.root, "data-app-state": "loading"},
                "href": "http://127.0.0.1:8000/", "storage": {}, "clipboard": True, "watchSupport": ""}
    remote.receive(*protocol.decode({"kind": "start", "snapshot": snapshot}, wrap))
    from types import SimpleNamespace

    from relayscope import snapshot as snapshots
    from relayscope.web import detail_view
    from relayscope.web.app import App

    # the page's parts web.main imports when first used (app.Parts): here, at once
    app = App(Host(), SimpleNamespace(content=detail_view.content, snapshot=snapshots.render))
    app.start()
    return app


async def load(app: Any, name: str, data: bytes) -> tuple[float, float]:
    """One load of ``data`` as a picked file: the CPU time to "done", and to the swimlanes drawn."""
    t = time.process_time()
    await app.loads.open_files([Picked(name, Text(data))], folder=False)
    while app.root.dataset.appState != "done":
        await asyncio.sleep(0)
    done = time.process_time() - t
    while app.root.dataset.lanesMs is None:
        await asyncio.sleep(0)
    return done, time.process_time() - t


def cli_work(data: bytes) -> float:
    """The CLI's work on ``data`` in this process: translate, relays encoded, nothing kept."""
    import msgspec

    from relayscope.analysis import Analyzer

    t = time.process_time()
    a = Analyzer("lineage", keep=False, drift=True)
    encode = msgspec.json.Encoder().encode
    for line in data.split(b"\n"):
        for r in a.feed_line(line):
            encode(r)
    a.finish()
    return time.process_time() - t


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    path = make_input(args.mb)
    data = path.read_bytes()
    for owner, name, part in PARTS:
        setattr(owner, name, timed(part, getattr(owner, name)))
    app = await start_app()
    cli: list[float] = []
    total: list[tuple[float, float]] = []
    best = None
    for _ in range(args.runs):
        cli.append(cli_work(data))
        SPENT.clear()
        total.append(await load(app, path.name, data))
        if best is None or total[-1][1] <= min(t[1] for t in total):
            best = dict(SPENT)
    assert best is not None
    base = min(cli)
    done, drawn = min(t[0] for t in total), min(t[1] for t in total)
    print(f"{path.name}: {len(data) / 2**20:.1f} MB, {len(app.shown.ws.relays)} relays; CPU time, least of {args.runs}")
    print(f"  {'the CLI’s work (translate, encode)':36} {base * 1000:7.0f} ms   x1.00")
    print(f"  {'the page’s load, file to done':36} {done * 1000:7.0f} ms   x{done / base:.2f}")
    print(f"  {'... and to the swimlanes drawn':36} {drawn * 1000:7.0f} ms   x{drawn / base:.2f}")
    for _, _, part in PARTS:
        if part in best:
            print(f"    {part:34} {best[part] * 1000:7.0f} ms   x{best[part] / base:.2f}")
    if args.profile:
        profile = cProfile.Profile()
        profile.enable()
        await load(app, path.name, data)
        profile.disable()
        pstats.Stats(profile).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    asyncio.run(main())
