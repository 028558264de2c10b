"""Fixtures for the browser tests: Debian's Chromium driven by Playwright, against the built site.

The site is served as `make site` leaves it (the repo root) or as `make dist` copies it, from a
plain static server on an ephemeral 127.0.0.1 port. Every page records its requests and aborts
any that would leave its own origin, so a test can prove the app loads nothing from elsewhere.
Pages are waited on through <html data-app-state>, never with sleeps.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit
from urllib.request import ProxyHandler, build_opener

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from _app import SETTLED_RUN, AppDriver, cli_ndjson, install_synced_acts  # noqa: E402
from browser import CHROMIUM, launch  # noqa: E402
from serve import serving  # noqa: E402  (tools/ is not a package)

install_synced_acts()

LOCK_PYTHON = ROOT / ".venv-lock" / "bin" / "python"
BOOT_TIMEOUT_MS = 90_000  # a cold boot takes a few seconds; CI machines can be slow and busy
SETTLED = "html[data-app-state=ready], html[data-app-state=error]"


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


@dataclass
class Site:
    """A built site being served: where its files are and the URL it is served at."""

    root: Path
    url: str

    def fetch(self, path: str) -> bytes:
        """The bytes served at `path` (relative to the site root)."""
        with build_opener(ProxyHandler({})).open(self.url + path, timeout=30) as response:
            return response.read()

    def lock(self) -> dict:
        return json.loads(self.fetch("pyodide-lock.json"))


@dataclass
class RequestLog:
    """What one page asked for. Off-origin requests are aborted and kept in `blocked`."""

    origin: str = ""  # set by open_app() before the first navigation
    requests: list = field(default_factory=list)  # playwright Request objects, in order
    blocked: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)

    def allows(self, url: str) -> bool:
        return url.startswith(("data:", "blob:")) or (
            bool(self.origin) and origin(url) == self.origin
        )

    def route(self, route) -> None:
        url = route.request.url
        if self.allows(url):
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort()

    def urls(self) -> list[str]:
        return [r.url for r in self.requests]

    def paths(self) -> list[str]:
        """Paths requested on the page's origin, relative to the site root."""
        return [urlsplit(u).path.lstrip("/") for u in self.urls() if origin(u) == self.origin]

    def assert_same_origin(self) -> None:
        """Nothing left the page's origin: none attempted (blocked) and none made."""
        assert self.origin, "open_app() was never called"
        assert not self.blocked, f"requests to other origins were attempted: {self.blocked}"
        elsewhere = [u for u in self.urls() if not self.allows(u)]
        assert not elsewhere, f"requests left {self.origin}: {elsewhere}"

    def assert_all_succeeded(self) -> None:
        bad = list(self.failed)
        for request in self.requests:
            response = request.response()
            if response is not None and response.status >= 400:
                bad.append(f"{response.status} {request.url}")
        assert not bad, f"failed requests: {bad}"

    def report(self) -> str:
        return "\n".join(["console:", *self.console, "requests:", *self.urls()])


@pytest.fixture(scope="session")
def browser() -> Iterator:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch(playwright)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def serve():
    """serve(folder): a context manager serving `folder` on 127.0.0.1; yields a Site."""

    @contextmanager
    def serve_(root: Path) -> Iterator[Site]:
        with serving(root) as url:
            yield Site(root, url)

    return serve_


@pytest.fixture(scope="session")
def site() -> Iterator[Site]:
    """The repo root, served as `make site` leaves it."""
    if not (ROOT / "static" / "vendor" / "pyodide" / "pyodide.mjs").is_file():
        pytest.fail("static/vendor/ is empty: run `make site` (or `make test`) first")
    with serving(ROOT) as url:
        yield Site(ROOT, url)


@pytest.fixture(scope="session")
def dist_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """A fresh `make dist` copy, served on its own under a sub-path, as GitHub Pages serves a
    project site (/<repo>/), so nothing may assume the site sits at the server's root."""
    host = tmp_path_factory.mktemp("host")
    out = host / "relayscope"
    run = subprocess.run(
        [str(LOCK_PYTHON), str(ROOT / "tools" / "build_site.py"), "dist", "--out", str(out)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, f"dist build failed:\n{run.stdout}{run.stderr}"
    with serving(host) as url:
        yield Site(out, url + "relayscope/")


@pytest.fixture
def request_log() -> RequestLog:
    return RequestLog()


def recorded_page(browser, log: RequestLog, **context_args):
    """A page in a fresh context (empty cache and storage) whose requests, failures, console
    messages and page errors all land in `log`; every request goes through `log.route`."""
    context = browser.new_context(**context_args)
    context.route("**/*", log.route)
    return context, recorded(context.new_page(), log)


def recorded(page, log: RequestLog):
    """`page`, its requests, failures, console messages and page errors landing in `log`."""
    page.on("request", lambda r: log.requests.append(r))
    page.on("requestfailed", lambda r: log.failed.append(f"{r.failure} {r.url}"))
    page.on("console", lambda m: log.console.append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda e: log.console.append(f"pageerror: {e}"))
    return page


# The field focused and the text selected in it: what Ctrl+C would copy.
SELECTION = """() => { const f = document.activeElement;
    return [f.dataset.testid, f.value.slice(f.selectionStart, f.selectionEnd)] }"""


@contextmanager
def page_without_clipboard(browser, site: Site, query: str) -> Iterator[tuple]:
    """The app as served over plain http on a host that is not localhost (no navigator.clipboard
    at all), opened at `query` and settled: (page, its RequestLog)."""
    log = RequestLog(origin=origin(site.url))
    context, page = recorded_page(browser, log)
    try:
        page.add_init_script("Object.defineProperty(Navigator.prototype, 'clipboard', {get: () => undefined})")
        page.goto(site.url + query)
        page.wait_for_selector(SETTLED_RUN, state="attached", timeout=BOOT_TIMEOUT_MS)
        yield page, log
    finally:
        context.close()


@pytest.fixture
def page(browser, request_log: RequestLog) -> Iterator:
    """A fresh recorded page (see `recorded_page`)."""
    context, page = recorded_page(browser, request_log)
    yield page
    context.close()


def goto_settled(page, request_log: RequestLog, url: str, settled: str, expect: str):
    """Open `url` on `page`, wait for `settled`, check the app says `expect`."""
    request_log.origin = origin(url)
    page.goto(url)
    page.wait_for_selector(settled, state="attached", timeout=BOOT_TIMEOUT_MS)
    state = page.get_attribute("html", "data-app-state")
    status = page.text_content('[data-testid="status"]')
    assert state == expect, f"app state {state!r}: {status}\n{request_log.report()}"
    return page


@pytest.fixture
def open_app(page, request_log: RequestLog):
    """open_app(site): load the app on `page`, wait until it settles, check it says `expect`."""

    def open_(site: Site, expect: str = "ready"):
        return goto_settled(page, request_log, site.url, SETTLED, expect)

    return open_


# -- the app, driven as a user would --------------------------------------------------------------

def new_app_page(browser, site: Site, log: RequestLog, **context_args):
    context, page = recorded_page(browser, log, **context_args)
    log.origin = origin(site.url)
    return context, page


# What the `app` pages' context forgets of the site's origin before each new page: all it stores
# but Cache Storage, where the app keeps its boot snapshot (Chromium's Storage.clearDataForOrigin).
FORGOTTEN = "cookies,file_systems,indexeddb,local_storage,service_workers,websql,shared_storage"


class AppContext:
    """The one browser context the `app` pages open in, one module's page at a time (requests
    go through that page's log). The first page boots Python from scratch and keeps a snapshot of
    the booted interpreter, as the app does on any first visit; every later page boots from it,
    seconds sooner, as a returning visitor's does. Before each page the rest of the origin's
    storage (local storage, IndexedDB, the origin-private files) is cleared: a module starts as a
    returning visitor who left nothing behind. The boot from scratch is tested on fresh contexts
    (test_boot.py, test_startup.py, the embeds), the snapshot itself in test_boot_snapshot.py."""

    def __init__(self, browser) -> None:
        self.context = browser.new_context(viewport={"width": 1400, "height": 900})
        self.log = RequestLog()
        self.context.route("**/*", lambda route: self.log.route(route))

    def new_page(self, site: Site, log: RequestLog):
        self.log = log
        log.origin = origin(site.url)
        page = self.context.new_page()
        cdp = self.context.new_cdp_session(page)
        cdp.send("Storage.clearDataForOrigin", {"origin": log.origin, "storageTypes": FORGOTTEN})
        cdp.detach()
        return recorded(page, log)


@pytest.fixture(scope="session")
def app_context(browser) -> Iterator[AppContext]:
    shared = AppContext(browser)
    yield shared
    shared.context.close()


@pytest.fixture(scope="module")
def app(app_context: AppContext, site) -> Iterator[AppDriver]:
    """One booted app page shared by the tests of a module (booting Pyodide takes seconds);
    each test loads its own input. Tests that need a fresh page use `page`/`open_app`."""
    log = RequestLog()
    page = app_context.new_page(site, log)
    page.goto(site.url)
    page.wait_for_selector(SETTLED, state="attached", timeout=BOOT_TIMEOUT_MS)
    assert page.get_attribute("html", "data-app-state") == "ready", log.report()
    yield AppDriver(page, log, site)
    page.close()


@pytest.fixture
def cli_count():
    """cli_count(path, strategy): how many relay events `relayscope translate` writes."""

    def count(*paths: Path, strategy: str = "lineage") -> int:
        return len(cli_ndjson(*paths, strategy=strategy).splitlines())

    return count


@pytest.fixture
def visit(page, request_log: RequestLog):
    """visit(site, "?query#fragment"): open the app at that address on a fresh page and wait
    until the run it starts settles as `expect` ("done" or "error")."""

    def visit_(site: Site, suffix: str = "", expect: str = "done"):
        return goto_settled(page, request_log, site.url + suffix, SETTLED_RUN, expect)

    return visit_
