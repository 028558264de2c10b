"""The app in other people's pages: in a frame on another site with no storage, embed
mode, the <iframe> snippet, the Content-Security-Policy, ?src= from another site."""

from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path

import pytest
from _app import SETTLED_RUN, wait_js
from conftest import (
    BOOT_TIMEOUT_MS,
    SELECTION,
    SETTLED,
    RequestLog,
    origin,
    page_without_clipboard,
    recorded_page,
)

from relayscope.web.model import encode_share

INDEX_BUG = "?example=index-bug&strategy=index&step=4&row=2"


def by_id(where, name: str):
    return where.locator(f'[data-testid="{name}"]')


@pytest.fixture
def cross_site(browser, serve, site, tmp_path: Path):
    contexts = []

    def open_(query: str, width: int = 960, height: int = 560):
        """A parent page on http://localhost:A/ framing the app at http://127.0.0.1:B/: two
        sites, so this Chromium gives the frame no storage. Returns (frame, frame locator, log)."""
        (tmp_path / "index.html").write_text(
            f'<!doctype html><body style="margin:0"><iframe id="app" src="{site.url}index.html{query}" '
            f'width="{width}" height="{height}" style="border:0"></iframe></body>', encoding="utf-8")
        log = RequestLog()
        ctx = serve(tmp_path)
        parent = ctx.__enter__()
        parent_url = parent.url.replace("127.0.0.1", "localhost")
        contexts.append(ctx)
        log.origin = origin(site.url)
        allowed = {origin(site.url), origin(parent_url)}
        log.allows = lambda url: url.startswith(("data:", "blob:")) or origin(url) in allowed  # type: ignore[method-assign]
        context, page = recorded_page(browser, log)
        contexts.append(context)
        page.goto(parent_url)
        frame = page.frame_locator("#app")
        app_frame = next(f for f in page.frames if f.url.startswith(site.url))
        app_frame.wait_for_selector(SETTLED_RUN, state="attached", timeout=BOOT_TIMEOUT_MS)
        return app_frame, frame, log

    yield open_
    for ctx in reversed(contexts):
        if hasattr(ctx, "close"):
            ctx.close()
        else:
            ctx.__exit__(None, None, None)


def test_the_app_runs_in_a_frame_on_another_site_with_no_storage(cross_site, site) -> None:
    app_frame, frame, log = cross_site(f"{INDEX_BUG}&embed=1")
    # The setup really denies storage to the frame (what broke PyScript's boot before).
    denied = app_frame.evaluate("""async () => {
        let local = 'allowed';
        try { window.localStorage.length } catch (e) { local = 'denied' }
        // the page swapped its own indexedDB for memory; a blank child frame has the real one
        const child = document.createElement('iframe'); document.body.append(child);
        const realIDB = child.contentWindow.indexedDB;
        const idb = await new Promise((resolve) => {
            const r = realIDB.open('relayscope-test-probe');
            r.onsuccess = () => resolve('allowed'); r.onerror = () => resolve('denied');
        });
        return [local, idb];
    }""")
    assert denied == ["denied", "denied"]
    state = app_frame.get_attribute("html", "data-app-state")
    assert state == "done", f"{state}: {by_id(frame, 'status').text_content()}\n{log.report()}"
    assert by_id(frame, "step-position").text_content() == "4 / 6"
    by_id(frame, "step-next").click()
    assert by_id(frame, "step-position").text_content() == "5 / 6"
    log.assert_all_succeeded()
    assert not log.blocked, log.blocked
    assert not [c for c in log.console if "pageerror" in c], log.console


def test_embed_mode_shows_the_view_only_and_keeps_the_authors_step(cross_site) -> None:
    _, frame, _ = cross_site(f"{INDEX_BUG}&embed=1&theme=dark")
    html = frame.locator("html")
    assert html.get_attribute("data-embed") == "1" and html.get_attribute("data-theme") == "dark"
    for hidden in ("paste-input", "examples", "share", "filter", "audit", "lanes"):
        assert not by_id(frame, hidden).is_visible(), hidden
    # the stepper comes first (its box dissolves into the one column: measure its parts);
    # the frame's document is its one scroll area (test_an_embed_shows_its_point_...)
    stepper, timeline = by_id(frame, "step-position").bounding_box(), by_id(frame, "timeline").bounding_box()
    # above it, or (a frame this wide) to its left
    assert stepper["y"] < timeline["y"] or stepper["x"] + stepper["width"] <= timeline["x"], "the stepper comes first"
    assert by_id(frame, "step-position").text_content() == "4 / 6"
    assert frame.locator(".row.selected").get_attribute("data-seq") == "2"
    # A click on a row selects it, and the step the author chose stays.
    frame.locator('.row[data-seq="5"]').click()
    assert frame.locator(".row.selected").get_attribute("data-seq") == "5"
    assert by_id(frame, "step-position").text_content() == "4 / 6"
    # "Open in Relayscope": the same view, in the full app, in a new tab.
    link = by_id(frame, "open-full")
    href = link.get_attribute("href")
    assert link.get_attribute("target") == "_blank"
    assert "embed" not in href and "theme" not in href
    for part in ("example=index-bug", "strategy=index", "step=4", "row=5"):
        assert part in href, href
    by_id(frame, "step-next").click()  # the reader uses the stepper: now the step moves
    assert by_id(frame, "step-position").text_content() == "5 / 6"
    assert "step=5" in by_id(frame, "open-full").get_attribute("href")


def test_panels_choose_what_an_embed_shows(cross_site) -> None:
    _, frame, _ = cross_site(f"{INDEX_BUG}&embed=1&panels=stepper,audit")
    assert by_id(frame, "stepper").is_visible() and by_id(frame, "audit").is_visible()
    assert not by_id(frame, "timeline").is_visible()
    assert by_id(frame, "audit").locator('tr[data-strategy="index"] td[data-col="lost"]').text_content() == "1"


def test_embed_is_usable_360_px_wide(cross_site) -> None:
    app_frame, frame, _ = cross_site(f"{INDEX_BUG}&embed=1", width=360, height=560)
    assert app_frame.evaluate("document.scrollingElement.scrollWidth") <= 360
    for name in ("step-prev", "step-next", "open-full"):
        box = by_id(frame, name).bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 360, name
    assert frame.locator(".row").count() >= 3
    by_id(frame, "step-next").click()
    assert by_id(frame, "step-position").text_content() == "5 / 6"


def test_embed_this_view_gives_a_snippet_that_shows_the_same_view(app, browser, site) -> None:
    app.example("index-bug", strategy="index")
    app.testid("step-next").click()
    position = app.step_position()
    app.tab("share")
    app.testid("embed-view").click()
    snippet = app.testid("embed-snippet").input_value()
    assert snippet.startswith("<iframe src=\"") and "embed=1" in snippet and "example=index-bug" in snippet
    src = snippet.split('src="', 1)[1].split('"', 1)[0].replace("&amp;", "&")
    log = RequestLog(origin=origin(site.url))
    context, page = recorded_page(browser, log, viewport={"width": 960, "height": 560})
    try:
        page.goto(src)
        page.wait_for_selector(SETTLED_RUN, state="attached", timeout=BOOT_TIMEOUT_MS)
        assert page.get_attribute("html", "data-embed") == "1"
        assert by_id(page, "step-position").text_content() == position
    finally:
        context.close()


# -- the Content-Security-Policy ---------------------------------------------------------

CSP_PROBE = ("window.__csp = []; document.addEventListener('securitypolicyviolation', "
             "e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI))")


def test_the_page_carries_a_csp_and_runs_under_it(browser, site) -> None:
    log = RequestLog(origin=origin(site.url))
    context, page = recorded_page(browser, log)
    try:
        page.add_init_script(CSP_PROBE)
        page.goto(site.url + "?example=real-subagents")
        page.wait_for_selector(SETTLED_RUN, state="attached", timeout=BOOT_TIMEOUT_MS)
        assert page.get_attribute("html", "data-app-state") == "done", log.report()
        csp = page.get_attribute('meta[http-equiv="Content-Security-Policy"]', "content")
        directives = dict(d.strip().split(" ", 1) for d in csp.split(";") if d.strip())
        # no eval of any kind on the page: Python and its WebAssembly run in the worker
        assert directives["script-src"].split() == ["'self'"]
        assert directives["worker-src"] == "'self'" and directives["default-src"] == "'self'"
        assert page.evaluate("window.__csp") == []
        # It bites: an inline script and a script from another origin are refused.
        page.evaluate("""() => {
            const s = document.createElement('script'); s.textContent = 'window.__inline = 1';
            document.body.append(s);
            const t = document.createElement('script'); t.src = 'https://cdn.example.com/x.js';
            document.body.append(t);
        }""")
        wait_js(page, "window.__csp.length >= 2")
        assert page.evaluate("window.__inline") is None
        assert any(v.startswith("script-src") and "inline" in v for v in page.evaluate("window.__csp"))
        assert not log.blocked  # refused by the page itself, before any request
    finally:
        context.close()


def test_src_from_another_site_asks_first_and_shows_the_host(browser, site) -> None:
    other = site.url.replace("127.0.0.1", "localhost") + "static/examples/index-bug.ndjson"
    log = RequestLog(origin=origin(site.url))
    context, page = recorded_page(browser, log)
    try:
        page.goto(f"{site.url}?src={other}&strategy=index")
        page.wait_for_selector(SETTLED, state="attached", timeout=BOOT_TIMEOUT_MS)
        assert page.get_attribute("html", "data-app-state") == "ready"
        assert by_id(page, "src-ask").is_visible()
        assert by_id(page, "src-host").text_content() == origin(other).split("//", 1)[1]
        assert not [u for u in log.urls() if origin(u) == origin(other)], "fetched before the reader agreed"
        by_id(page, "src-cancel").click()
        assert not by_id(page, "src-ask").is_visible()
        assert "Nothing was loaded" in by_id(page, "message").text_content()
        assert not [u for u in log.urls() if origin(u) == origin(other)]
    finally:
        context.close()


def test_src_from_another_site_is_fetched_once_the_reader_agrees(browser, site) -> None:
    other = site.url.replace("127.0.0.1", "localhost") + "static/examples/index-bug.ndjson"
    log = RequestLog(origin=origin(site.url))
    allowed = {origin(site.url), origin(other)}
    log.allows = lambda url: url.startswith(("data:", "blob:")) or origin(url) in allowed  # type: ignore[method-assign]
    context, page = recorded_page(browser, log)
    try:
        page.goto(f"{site.url}?src={other}&strategy=index")
        page.wait_for_selector(SETTLED, state="attached", timeout=BOOT_TIMEOUT_MS)
        by_id(page, "src-confirm").click()
        page.wait_for_selector(SETTLED_RUN, state="attached", timeout=BOOT_TIMEOUT_MS)
        # the test server sends no CORS header: the browser refuses the response, and the page
        # says so; what matters here is that the request was made only now
        assert [u for u in log.urls() if u.startswith(origin(other))] == [other]
    finally:
        context.close()


# -- embeds that show their point, the height message, the embed builder ------------------

# Every element that scrolls on its own (a scroll bar of its own: overflow auto/scroll and more
# content than room), besides the document itself.
OWN_SCROLLERS = """() => [...document.querySelectorAll('body *')].filter((e) => {
    const s = getComputedStyle(e);
    const scrolls = (v) => v === 'auto' || v === 'scroll';
    return (scrolls(s.overflowY) && e.scrollHeight > e.clientHeight + 1)
        || (scrolls(s.overflowX) && e.scrollWidth > e.clientWidth + 1);
}).map((e) => e.id || e.className || e.tagName)"""

POINTS = {  # the tour's examples, as its frames open them: the audit row each is about
    "index-bug": ("?example=index-bug&strategy=index&step=4", "index"),
    "cumulative-dedup": ("?example=cumulative-dedup&strategy=none", "none"),
    "gotchas": ("?example=gotchas&strategy=index", "index"),
}


def inside(box: dict, width: int, height: int) -> bool:
    return box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= width + 0.5 \
        and box["y"] + box["height"] <= height + 0.5


@pytest.mark.parametrize("size", [(360, 480), (640, 400)], ids=["360x480", "640x400"])
@pytest.mark.parametrize("example", list(POINTS))
def test_an_embed_shows_its_point_without_scrolling(cross_site, example: str, size) -> None:
    query, strategy = POINTS[example]
    width, height = size
    app_frame, frame, _ = cross_site(f"{query}&embed=1&panels=stepper,timeline,audit", width, height)
    # no watch note nor controls in an embed (a frame of another site cannot show file pickers)
    for name in ("watch-unsupported", "watch", "watch-folder", "watch-bar"):
        assert not by_id(frame, name).is_visible(), name
    # one scroll area: the frame's document, at its top
    assert app_frame.evaluate(OWN_SCROLLERS) == []
    assert app_frame.evaluate("document.scrollingElement.scrollTop") == 0
    assert app_frame.evaluate("document.scrollingElement.scrollWidth") <= width
    # the point first, in view: the step's decision and reason, and the audit's row
    for what in ('dd[data-fact="decision"]', 'dd[data-fact="reason"]',
                 f'[data-testid="audit"] tr[data-strategy="{strategy}"]'):
        box = frame.locator(what).bounding_box()
        assert box and inside(box, width, height), (what, box)


@pytest.mark.parametrize("size", [(360, 480), (640, 400)], ids=["360x480", "640x400"])
def test_a_lanes_embed_shows_its_cards_and_the_audit_row(cross_site, size) -> None:
    # the tour's section 4 without the timeline: who worked (every lane's card) and the audit's
    # lineage row, in view as the frame opens; a card is its name, badges and relay count, and
    # the whole run's tokens (~200 px under the cards) stay in the full app
    width, height = size
    app_frame, frame, _ = cross_site("?example=real-subagents&strategy=lineage&embed=1&panels=lanes,audit",
                                     width, height)
    assert frame.locator('[data-testid="lane"]').count() == 4
    assert not by_id(frame, "run-tokens").is_visible()
    assert not frame.locator('[data-testid="lane-tokens"]').first.is_visible()
    assert not by_id(frame, "swimlanes").is_visible()  # the full app's, not a chosen panel
    assert app_frame.evaluate(OWN_SCROLLERS) == []
    for what in ('[data-testid="lane"] >> nth=-1', '[data-testid="audit"] tr[data-strategy="lineage"]'):
        box = frame.locator(what).bounding_box()
        assert box and inside(box, width, height), (what, box)


DRIFTING = [  # a record type and a system subtype this version does not know: a drift notice
    {"type": "system", "subtype": "init", "session_id": "s1", "model": "claude-opus-5", "tools": []},
    {"type": "foo_event", "x": 1},
    {"type": "assistant", "uuid": "u1", "parent_tool_use_id": None,
     "message": {"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "hi"}]}},
    {"type": "system", "subtype": "brand_new", "detail": "?"},
    {"type": "result", "subtype": "success", "is_error": False, "result": "ok"},
]


@pytest.mark.parametrize("panels", ["stepper,timeline,audit", "stepper,timeline,toolbar"])
def test_an_embed_leaves_the_full_apps_chrome_out(cross_site, panels: str) -> None:
    # The full app's newer chrome, in an embed only when the author chose the toolbar: the drift
    # notice (it sits with the filter chips and filters); never the step scope's choice without
    # it, the redact switch (the share section's), the swimlanes (not a panel one can choose).
    text = "\n".join(json.dumps(x) for x in DRIFTING)
    fragment = encode_share(text, {"name": "drift.ndjson"})
    app_frame, frame, _ = cross_site(f"?embed=1&panels={panels}#{fragment}", 640, 400)
    assert app_frame.get_attribute("html", "data-app-state") == "done"
    assert by_id(frame, "drift-notice").get_attribute("hidden") is None  # the app drew it
    toolbar = "toolbar" in panels
    assert by_id(frame, "drift-notice").is_visible() == toolbar
    assert by_id(frame, "step-scope").is_visible() == toolbar
    for hidden in ("redact-switch", "share", "swimlanes", "help-toggle", "watch", "paste-input"):
        assert not by_id(frame, hidden).is_visible(), hidden
    box = frame.locator('dd[data-fact="decision"]').bounding_box()
    assert box and inside(box, 640, 400)


def test_an_embed_shows_only_the_chosen_panels_in_either_theme(cross_site) -> None:
    for theme, background in (("light", "rgb(255, 255, 255)"), ("dark", "rgb(13, 17, 23)")):
        app_frame, frame, _ = cross_site(f"{INDEX_BUG}&embed=1&panels=audit,lanes&theme={theme}", 640, 400)
        assert app_frame.evaluate("getComputedStyle(document.body).backgroundColor") == background
        assert by_id(frame, "audit").is_visible() and by_id(frame, "lanes").is_visible()
        for hidden in ("stepper", "timeline", "step-facts", "step-next"):
            assert not by_id(frame, hidden).is_visible(), hidden


@contextmanager
def hosted(browser, serve, site, folder: Path, body: str, viewport: dict):
    """A page on another site (http://localhost:A/) whose body is ``body``, framing the app at
    http://127.0.0.1:B/. Yields (page, log); requests to either origin are allowed."""
    (folder / "index.html").write_text(f'<!doctype html><body style="margin:0">{body}</body>', encoding="utf-8")
    log = RequestLog(origin=origin(site.url))
    with serve(folder) as parent:
        parent_url = parent.url.replace("127.0.0.1", "localhost")
        allowed = {origin(site.url), origin(parent_url)}
        log.allows = lambda url: url.startswith(("data:", "blob:")) or origin(url) in allowed  # type: ignore[method-assign]
        context, page = recorded_page(browser, log, viewport=viewport)
        try:
            page.goto(parent_url + "index.html")
            yield page, log
        finally:
            context.close()


HEIGHT_PARENT = """<script>
window.heights = [];
addEventListener('message', (e) => {
  if (e.data && e.data.type === 'relayscope:height') {
    heights.push(e.data.height);
    document.getElementById('app').height = e.data.height;   // what a host page may do
  }
});
</script><iframe id="app" src="SRC" width="360" height="200" style="border:0"></iframe>"""


def test_the_frame_tells_its_parent_its_height(browser, serve, site, tmp_path: Path) -> None:
    src = f"{site.url}index.html{INDEX_BUG}&embed=1&panels=stepper,audit"
    with hosted(browser, serve, site, tmp_path, HEIGHT_PARENT.replace("SRC", src), {"width": 400, "height": 900}) as (page, _):
        app_frame = next(f for f in page.frames if f.url.startswith(site.url))
        app_frame.wait_for_selector(SETTLED_RUN, state="attached", timeout=BOOT_TIMEOUT_MS)
        wait_js(page, "window.heights.length > 0")
        content = app_frame.evaluate("Math.ceil(document.documentElement.getBoundingClientRect().height)")
        wait_js(page, f"window.heights.at(-1) === {content}")
        assert content > 200  # the view is taller than the frame the page guessed
        # sized by the message, the frame shows all of it: nothing left to scroll
        assert app_frame.evaluate("document.scrollingElement.scrollHeight <= innerHeight + 1")
        assert all(isinstance(h, int) for h in page.evaluate("window.heights"))


def snippet_src(snippet: str) -> str:
    return snippet.split('src="', 1)[1].split('"', 1)[0].replace("&amp;", "&")


def test_the_embed_builder_makes_the_snippet_and_previews_it(app, browser, serve, site, tmp_path: Path) -> None:
    app.example("index-bug", strategy="index")
    app.tab("share")
    app.testid("embed-view").click()
    builder = app.testid("embed-builder")
    assert builder.is_visible()
    snippet = app.testid("embed-snippet").input_value()
    for part in ('title="Relayscope: ', 'loading="lazy"', 'height="480"',
                 'sandbox="allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox"'):
        assert part in snippet, (part, snippet)
    assert " allow=" not in snippet  # nothing the embed does not use
    # choose: the audit and lanes only, dark, fingerprint, step 3, 360 px high
    for panel in ("stepper", "timeline", "lanes"):  # stepper and timeline off, lanes on (audit is on)
        builder.locator(f'button[data-panel="{panel}"]').click()
    assert builder.locator('button[data-panel="audit"]').get_attribute("aria-pressed") == "true"
    app.testid("embed-theme").select_option("dark")
    app.testid("embed-strategy").select_option("fingerprint")
    app.testid("embed-step").fill("3")
    app.testid("embed-height").fill("360")
    snippet = app.testid("embed-snippet").input_value()
    src = snippet_src(snippet)
    for part in ("embed=1", "panels=audit%2Clanes", "theme=dark", "strategy=fingerprint", "step=3",
                 "example=index-bug"):
        assert part in src, (part, src)
    assert 'height="360"' in snippet
    # the live preview is a frame of this site showing exactly that
    preview = app.testid("embed-preview")
    assert preview.get_attribute("src") == src and preview.get_attribute("height") == "360"
    assert origin(src) == origin(site.url)
    shown = preview.element_handle().content_frame()
    shown.wait_for_selector(SETTLED_RUN, state="attached", timeout=BOOT_TIMEOUT_MS)
    wait_js(app.page, "document.querySelector('[data-testid=embed-preview]').contentDocument"
                      ".documentElement.dataset.theme === 'dark'")
    assert shown.is_visible('[data-testid="audit"]') and not shown.is_visible('[data-testid="stepper"]')
    # the snippet, pasted into a page on another site, shows the chosen panels
    with hosted(browser, serve, site, tmp_path, snippet, {"width": 640, "height": 600}) as (page, log):
        page.wait_for_selector("iframe", timeout=BOOT_TIMEOUT_MS)
        framed = page.frame_locator("iframe")
        framed.locator(SETTLED_RUN).wait_for(state="attached", timeout=BOOT_TIMEOUT_MS)
        assert framed.locator("html").get_attribute("data-app-state") == "done", log.report()
        assert framed.locator("html").get_attribute("data-panels") == "audit lanes"
        assert framed.locator("html").get_attribute("data-theme") == "dark"
        assert by_id(framed, "audit").is_visible() and by_id(framed, "lanes").is_visible()
        assert not by_id(framed, "stepper").is_visible() and not by_id(framed, "timeline").is_visible()
        assert by_id(framed, "strategy").input_value() == "fingerprint"
        log.assert_all_succeeded()
        assert not log.blocked, log.blocked


def test_the_builders_copy_falls_back_to_selecting_the_snippet(browser, site) -> None:
    with page_without_clipboard(browser, site, "?example=index-bug") as (page, log):
        page.locator("#tab-share").click()
        by_id(page, "embed-view").click()
        by_id(page, "embed-copy").click()
        selected = page.evaluate(SELECTION)
        assert selected == ["embed-snippet", by_id(page, "embed-snippet").input_value()]
        assert selected[1].startswith("<iframe ")
        assert "Ctrl+C" in by_id(page, "embed-copy").text_content()
        assert not [c for c in log.console if "pageerror" in c or "AttributeError" in c], log.console


def test_the_builders_copy_puts_the_snippet_on_the_clipboard(browser, site) -> None:
    log = RequestLog(origin=origin(site.url))
    context, page = recorded_page(browser, log)
    try:
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=origin(site.url))
        page.goto(site.url + "?example=index-bug")
        page.wait_for_selector(SETTLED_RUN, state="attached", timeout=BOOT_TIMEOUT_MS)
        page.locator("#tab-share").click()
        by_id(page, "embed-view").click()
        by_id(page, "embed-copy").click()
        page.wait_for_selector('[data-testid="embed-copy"]:text("Copied")')
        assert page.evaluate("navigator.clipboard.readText()") == by_id(page, "embed-snippet").input_value()
    finally:
        context.close()
