"""The protocol tour (static/tour.html): text from its own origin, each point shown by a live
embedded view that reaches "done" and shows what the text says."""

from __future__ import annotations

from _app import SETTLED_RUN
from conftest import BOOT_TIMEOUT_MS, RequestLog, origin, recorded_page

# example -> the strategy its frame must show
EXPECT = {
    "cumulative-dedup": "none",
    "index-bug": "index",
    "interleaved-subagents": "fingerprint",
    "real-subagents": "lineage",
    "real-streaming": "lineage",
    "gotchas": "index",
}


def test_the_tour_explains_the_protocol_with_live_views(browser, site) -> None:
    log = RequestLog(origin=origin(site.url))
    context, page = recorded_page(browser, log, viewport={"width": 1100, "height": 800})
    try:
        page.goto(site.url + "static/tour.html")
        text = page.text_content("main")
        for topic in ("one block", "message.id", "parent_tool_use_id", "--include-partial-messages",
                      "stop_reason", "fingerprint", "lineage"):
            assert topic in text, topic
        assert page.locator('[data-testid="tour-app-link"]').get_attribute("href") == "../index.html"
        frames = page.locator('iframe[data-testid="tour-embed"]')
        assert [frames.nth(i).get_attribute("data-example") for i in range(frames.count())] == list(EXPECT)
        for example, strategy in EXPECT.items():
            here = frames.first  # the ones before it were removed
            here.scroll_into_view_if_needed()  # the frames load lazily, as a reader scrolls
            assert here.get_attribute("data-example") == example
            frame = here.element_handle().content_frame()
            frame.wait_for_selector(SETTLED_RUN, state="attached", timeout=BOOT_TIMEOUT_MS)
            assert frame.get_attribute("html", "data-app-state") == "done", (example, log.report())
            assert frame.get_attribute("html", "data-embed") == "1"
            assert frame.eval_on_selector('[data-testid="strategy"]', "s => s.value") == strategy, example
            assert frame.is_visible('[data-testid="open-full"]')
            if example == "index-bug":
                assert frame.text_content('[data-testid="step-position"]') == "4 / 6"
                lost = frame.text_content('tr[data-strategy="index"] td[data-col="lost"]')
                assert lost == "1"
            here.evaluate("f => f.remove()")  # each frame runs its own Python: free it
        log.assert_same_origin()
        log.assert_all_succeeded()
    finally:
        context.close()


def test_the_app_links_to_the_tour(app) -> None:
    assert app.testid("tour-link").get_attribute("href") == "./static/tour.html"
