"""The shareable file and the snapshot on a real session and at scale: sizes, and times as ratios
to translating the same input in the same run (``multifile.translate_files``, what every command
does first), best of --runs, interleaved.

Inputs, all built from real captures:

* ``ef958aa1``: the 3-file sub-agent session in tests/fixtures/real/ (461 KB).
* ``sessions-N``: a project folder of N copies of that session (each its own session id), to
  about 1 MB and --mb MB: many sessions, each with its sub-agent files.
* ``stream-N``: the stream-json captures end to end in one file, to --mb MB: one run of
  tens of thousands of rows, the hardest page to make and to open.

For each: pack (size, time), unpack (time), snapshot (size, time). In the browser the worker
runs the same Python, several times slower; bench/web_load.py measures that ratio for loading.
With --open, each snapshot is also opened in Chromium (from a file, every other request blocked)
and the time to load and paint it printed, beside a blank page's in the same browser. With
--pyodide, pack and snapshot are also timed in Pyodide (the built site's, as the page's worker
loads it: run `make site` first) on the smaller inputs, as ratios to CPython's time in this run.

    python bench/share_bench.py [--mb 50] [--runs 3] [--open] [--pyodide]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))

from _inputs import stream_json_dir

from relayscope import sharefile, snapshot
from relayscope.multifile import translate_files

FOLDER = (ROOT / "tests/fixtures/real/session-jsonl/handgemacht-ai__claude-code-log/test/test_data/real_projects"
          / "-experiments-worktrees")
SESSION = "ef958aa1-0e93-49f0-bb71-150f63befcd1"


def session() -> dict[str, bytes]:
    paths = [FOLDER / f"{SESSION}.jsonl", *sorted((FOLDER / SESSION / "subagents").glob("*.jsonl"))]
    return {str(p.relative_to(FOLDER)): p.read_bytes() for p in paths}


def sessions(mb: float) -> dict[str, bytes]:
    """Copies of the session, each under a session id of its own (in its names and its records)."""
    one = session()
    out: dict[str, bytes] = {}
    k = 0
    while sum(map(len, out.values())) < mb * 1e6:
        k += 1
        new = f"{k:08x}" + SESSION[8:]
        for path, data in one.items():
            out[path.replace(SESSION, new)] = data.replace(SESSION.encode(), new.encode())
    return out


def stream(mb: float) -> dict[str, bytes]:
    files = [f if f.endswith(b"\n") else f + b"\n" for f in
             (p.read_bytes() for p in sorted(stream_json_dir().glob("*.jsonl")))]
    parts: list[bytes] = []
    size = 0
    while size < mb * 1e6:  # one capture at a time, so the input stops near the size asked for
        parts.append(files[len(parts) % len(files)])
        size += len(parts[-1])
    return {"stream.jsonl": b"".join(parts)}


def best(fn: Callable[[], object], runs: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(runs):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


class Opener:
    """Chromium (tools/browser.py's launch) opening a snapshot from a file, every request blocked."""

    def __init__(self) -> None:
        sys.path.insert(0, str(ROOT / "tools"))
        from browser import launch
        from playwright.sync_api import sync_playwright

        self.pw = sync_playwright().start()
        self.browser = launch(self.pw)

    def seconds(self, page_html: str) -> float:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "run.html"
            path.write_text(page_html, encoding="utf-8")
            ctx = self.browser.new_context(viewport={"width": 1280, "height": 900})
            ctx.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort())
            page = ctx.new_page()
            t = time.perf_counter()
            page.goto(path.as_uri(), wait_until="load", timeout=600_000)
            page.screenshot()  # laid out and painted
            took = time.perf_counter() - t
            ctx.close()
        return took

    def close(self) -> None:
        self.browser.close()
        self.pw.stop()


PYODIDE_PAGE = """<!doctype html><meta charset="utf-8"><pre id="out"></pre><script type="module">
import { loadPyodide } from "./static/js/pyodide-local.mjs";
const py = await loadPyodide({ packages: ["relayscope"] });
document.documentElement.dataset.ready = "1";
window.run = (code) => py.runPython(code);
</script>"""
PYODIDE_RUN = """
import base64, json, time
from relayscope import sharefile, snapshot
files = {k: base64.b64decode(v) for k, v in json.loads(INPUT).items()}
out = {}
for name, fn in (("pack", lambda: sharefile.pack(files)), ("html", lambda: snapshot.render(files))):
    t = time.perf_counter(); fn(); out[name] = time.perf_counter() - t
json.dumps(out)
"""


def pyodide_times(inputs: list[tuple[str, dict[str, bytes]]], runs: int) -> None:
    """Pack and snapshot in Pyodide (in a page of the built site) against CPython, same inputs."""
    import base64
    import json

    sys.path.insert(0, str(ROOT / "tools"))
    from browser import launch
    from playwright.sync_api import sync_playwright
    from serve import serving

    with serving(ROOT) as url, sync_playwright() as pw:
        browser = launch(pw)
        page = browser.new_page()
        page.route(url + "__bench.html", lambda r: r.fulfill(body=PYODIDE_PAGE, content_type="text/html"))
        page.goto(url + "__bench.html")
        page.wait_for_selector("html[data-ready]", state="attached", timeout=120_000)
        for name, files in inputs:
            given = json.dumps({k: base64.b64encode(v).decode() for k, v in files.items()})
            page.evaluate("x => { window.INPUT = x }", given)
            code = "INPUT = __import__('js').INPUT\n" + PYODIDE_RUN
            there = [json.loads(page.evaluate("c => window.run(c)", code)) for _ in range(runs)]
            t_pack, _ = best(lambda f=files: sharefile.pack(f), runs)
            t_html, _ = best(lambda f=files: snapshot.render(f), runs)
            p, h = min(x["pack"] for x in there), min(x["html"] for x in there)
            print(f"{name:<14} in Pyodide: pack {p:6.2f} s = {p / t_pack:4.1f}x CPython | "
                  f"html {h:6.2f} s = {h / t_html:4.1f}x CPython", flush=True)
        browser.close()


def measure(name: str, files: dict[str, bytes], runs: int, opener: Opener | None = None) -> None:
    size = sum(map(len, files.values()))
    base, _ = best(lambda: list(translate_files(files)), runs)
    t_pack, packed = best(lambda: sharefile.pack(files), runs)
    assert isinstance(packed, bytes)
    t_unpack, _ = best(lambda: sharefile.unpack(packed), runs)
    print(f"{name:<14} {size / 1e6:6.1f} MB {len(files):4d} files | translate {base:6.2f} s | "
          f"pack {len(packed) / 1e6:6.2f} MB ({len(packed) / size:4.0%}) {t_pack:5.2f} s = {t_pack / base:4.2f}x | "
          f"unpack {t_unpack:5.2f} s = {t_unpack / base:4.2f}x")
    kinds = [("html", None)]  # as relayscope html makes it: content only up to FULL_UP_TO
    if size > snapshot.FULL_UP_TO:
        kinds.append(("html, content", snapshot.DETAIL_CHARS))  # past it: what keeping the content costs
    for label, chars in kinds:
        t_html, page = best(lambda c=chars: snapshot.render(files, detail_chars=c), max(1, runs - 1))
        assert isinstance(page, str)
        html = len(page.encode("utf-8"))
        line = (f"{'':<14} {label:<13} {html / 1e6:6.1f} MB ({html / size:4.2f}x input) "
                f"{t_html:6.2f} s = {t_html / base:5.2f}x translate")
        if opener is not None:
            try:
                line += f" | opened in Chromium: {min(opener.seconds(page) for _ in range(runs)):6.2f} s to load and paint"
            except Exception as exc:  # the renderer gave up: that is the finding
                line += f" | Chromium failed to open it: {type(exc).__name__}"
        print(line, flush=True)
    del page


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=50)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--open", action="store_true", help="also time opening each snapshot in Chromium")
    ap.add_argument("--pyodide", action="store_true", help="also time pack and html in Pyodide (1 and 10 MB)")
    args = ap.parse_args()
    opener = Opener() if args.open else None
    if opener is not None:
        print(f"a blank page opens in {min(opener.seconds('<!doctype html><p>blank') for _ in range(args.runs)):.2f} s")
    print(f"Python {sys.version.split()[0]}; best of {args.runs} (html: of {max(1, args.runs - 1)}); "
          "ratios to translate_files of the same input in the same run")
    for name, files in (("ef958aa1", session), ("sessions-1", lambda: sessions(1)), ("stream-1", lambda: stream(1)),
                        ("sessions-10", lambda: sessions(10)), ("sessions-20", lambda: sessions(20)),
                        (f"sessions-{args.mb:g}", lambda: sessions(args.mb)),
                        (f"stream-{args.mb:g}", lambda: stream(args.mb))):
        measure(name, files(), args.runs, opener)
    if opener is not None:
        opener.close()
    if args.pyodide:
        pyodide_times([("ef958aa1", session()), ("sessions-1", sessions(1)), ("sessions-10", sessions(10))], args.runs)


if __name__ == "__main__":
    main()
