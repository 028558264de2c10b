"""A visit after the first boots from a memory snapshot of the booted interpreter, kept in Cache
Storage under the runtime's id (static/js/pyodide-local.mjs); one that does not fit is never
used, and a session that makes one keeps the plain `js` module. How much time it saves is
measured by bench/web_load.py, not here."""

from __future__ import annotations

import json
from urllib.parse import urlsplit

# Boots Pyodide through the page's own shim, as the worker does, and reports how, with what `js`
# is and a relay translated by the package it loaded.
PROBE = """<!doctype html>
<html data-app-state="loading"><head><link rel="icon" href="data:,">
<script type="module">
import { loadPyodide, boot } from "./static/js/pyodide-local.mjs";
const py = await loadPyodide({ packages: ["relayscope"] });
const kept = await boot.snapshot;
const js = py.runPython("import js; js");
const relays = py.runPython(`
from relayscope.analysis import analyze
[r.type for r in analyze(b'{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"hi"}]}}').relays]
`).toJs();
const keys = await (await caches.open("relayscope-boot")).keys();
document.documentElement.dataset.result = JSON.stringify({
  from: boot.from, kept, plainJs: js === globalThis, relays, keys: keys.map((r) => r.url),
});
document.documentElement.dataset.appState = "ready";
</script></head><body></body></html>
"""


def visit(context, site) -> dict:
    page = context.new_page()
    url = site.url + "snapshot-probe.html"
    page.route(url, lambda route: route.fulfill(body=PROBE, content_type="text/html"))
    try:
        page.goto(url)
        page.wait_for_selector("html[data-app-state=ready]", state="attached", timeout=90_000)
        return json.loads(page.get_attribute("html", "data-result"))
    finally:
        page.close()


def runtime_key(site) -> str:
    runtime = json.loads(site.fetch("static/vendor/pyodide/runtime-id.json"))["id"]
    return f"{site.url}static/vendor/pyodide/boot-314.0.7-{runtime}.snapshot"


def test_second_visit_boots_from_the_snapshot_the_first_kept(browser, site) -> None:
    context = browser.new_context()
    try:
        first = visit(context, site)
        second = visit(context, site)
    finally:
        context.close()
    assert first["from"] == "scratch" and first["kept"] == "kept"
    assert first["keys"] == [runtime_key(site)]
    assert second["from"] == "snapshot"
    for run in (first, second):  # the package works on both, with the page's own globals as `js`
        assert run["plainJs"] is True
        assert "text_delta" in run["relays"]


def test_a_snapshot_of_another_runtime_or_a_broken_one_is_not_restored(browser, site) -> None:
    context = browser.new_context()
    page = context.new_page()
    parts = urlsplit(site.url)
    try:
        page.goto(site.url + "static/vendor/pyodide/runtime-id.json")
        page.evaluate(
            """async ([other, mine]) => {
                const cache = await caches.open("relayscope-boot");
                await cache.put(other, new Response(new Uint8Array(64)));
                await cache.put(mine, new Response(new Uint8Array(1 << 20)));
            }""",
            [f"{parts.scheme}://{parts.netloc}/static/vendor/pyodide/boot-0-other.snapshot", runtime_key(site)],
        )
        page.close()
        broken = visit(context, site)
        again = visit(context, site)
    finally:
        context.close()
    assert broken["from"] == "scratch" and broken["kept"] == "kept"  # booted as always, then kept its own
    assert broken["keys"] == [runtime_key(site)]  # the other runtime's is gone
    assert again["from"] == "snapshot" and again["plainJs"] is True
