"""Start-up: Python boots on bytecode compiled at build time, and boots without it all the same.

tools/compile_bytecode.mjs compiles the standard library zip and the boot's wheels (msgspec,
relayscope) to .pyc; static/js/pyodide-local.mjs puts the wheels' .pyc beside their installed
sources. The time this saves is measured by bench/web_load.py, not here.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from urllib.parse import urlsplit

from _app import boot_probed
from test_boot import package_version, text

# Loads Pyodide through the page's own shim, as the worker does, then reports what Python had to
# compile from source to import the core and msgspec, and how the standard library was loaded.
PROBE = """<!doctype html>
<html data-app-state="loading"><head><link rel="icon" href="data:,">
<script type="module">
import { loadPyodide } from "./static/js/pyodide-local.mjs";
const py = await loadPyodide({ packages: ["relayscope"] });
document.documentElement.dataset.result = py.runPython(`
import json, sys, zipimport
import importlib._bootstrap_external as be

compiled = []
source_to_code = be.SourceLoader.source_to_code
def spy(self, data, path, **kw):
    compiled.append(path)
    return source_to_code(self, data, path, **kw)
be.SourceLoader.source_to_code = spy
import msgspec, relayscope, relayscope.web.model
be.SourceLoader.source_to_code = source_to_code
zipped = [m for m in list(sys.modules.values())
          if isinstance(getattr(m, "__loader__", None), zipimport.zipimporter)]
json.dumps({
    "compiled": compiled,
    "zipped": [m.__name__ for m in zipped],
    "zipped_from_source": [m.__name__ for m in zipped if not m.__file__.endswith(".pyc")],
    "version": relayscope.__version__,
})`);
document.documentElement.dataset.appState = "ready";
</script></head><body></body></html>
"""

PYC_ZIP = "static/vendor/wheels/site-packages.pyc.zip"


def probe(page, request_log, site) -> dict:
    url = site.url + "startup-probe.html"
    page.route(url, lambda route: route.fulfill(body=PROBE, content_type="text/html"))
    parts = urlsplit(site.url)
    request_log.origin = f"{parts.scheme}://{parts.netloc}"
    page.goto(url)
    page.wait_for_selector("html[data-app-state=ready]", state="attached", timeout=90_000)
    return json.loads(page.get_attribute("html", "data-result"))


def test_boot_and_the_core_import_compile_nothing_from_source(page, request_log, site) -> None:
    result = probe(page, request_log, site)
    assert result["version"] == package_version()
    # the standard library came from the zip, as bytecode only
    assert {"importlib.metadata", "asyncio", "json"} <= set(result["zipped"])
    assert result["zipped_from_source"] == []
    # msgspec's and our modules found their .pyc beside the installed sources
    assert result["compiled"] == []


def copy_of(dist_site, tmp_path):
    root = tmp_path / "site"
    shutil.copytree(dist_site.root, root)
    return root


def test_bytecode_that_does_not_match_its_source_is_not_run(
    open_app, serve, dist_site, tmp_path
) -> None:
    # relayscope/__init__'s .pyc swapped for __main__'s: its source hash is __main__.py's, so
    # Python must compile __init__.py instead, and the page shows the real version.
    root = copy_of(dist_site, tmp_path)
    path = root / PYC_ZIP
    with zipfile.ZipFile(path) as src:
        entries = {info.filename: src.read(info) for info in src.infolist()}
    init = next(n for n in entries if n.endswith("/relayscope/__pycache__/__init__.cpython-314.pyc"))
    entries[init] = entries[init.replace("__init__", "__main__")]
    with zipfile.ZipFile(path, "w") as out:
        for name, data in entries.items():
            out.writestr(name, data)
    with serve(root) as site:
        page = open_app(site)
    assert text(page, "version") == package_version()


def test_the_page_boots_without_the_bytecode(open_app, serve, dist_site, tmp_path, request_log) -> None:
    root = copy_of(dist_site, tmp_path)
    (root / PYC_ZIP).unlink()
    with serve(root) as site:
        page = open_app(site)
    assert text(page, "version") == package_version()
    request_log.assert_same_origin()


# -- Python boots off the page's thread -------------------------------------------------

def test_the_page_thread_is_never_held_while_python_boots(page, site, request_log) -> None:
    # Asserted as ratios within the boot (bench/web_load.py has the milliseconds): when Pyodide
    # booted on the page's thread, one task was 40-45% of the time to "ready" (cold and warm) and
    # no timer fired during it; in the worker, the page's longest task is a few percent of it.
    boot_probed(page, site, request_log)
    ready = page.evaluate("performance.now()")
    longest = max((t["duration"] for t in page.evaluate("window.__longTasks")), default=0)
    assert longest < 0.2 * ready, f"a {longest:.0f} ms task in a {ready:.0f} ms boot"
    ticks = page.evaluate("window.__ticks")
    assert len(ticks) >= 0.3 * ready / 20, f"the page's event loop turned {len(ticks)} times in {ready:.0f} ms"
    # The page answers at once: typing echoes while Python still works or not.
    assert page.is_editable('[data-testid="paste-input"]')
