"""The protocol tour (static/tour.html): text from its own origin, each point shown by a live
embedded view that reaches "done" and shows what the text says. (The app's link to the tour is
checked in test_app_links.py, on the page booted there.)"""

from __future__ import annotations

import pytest
from _app import SETTLED_RUN
from conftest import BOOT_TIMEOUT_MS, RequestLog

# example -> the strategy its frame must show
EXPECT = {
    "cumulative-dedup": "none",
    "index-bug": "index",
    "interleaved-subagents": "fingerprint",
    "real-subagents": "lineage",
    "real-streaming": "lineage",
    "gotchas": "index",
}


# -- each frame shows its section's point as it opens --------------------------------------

# example -> what its section is about, which must be in the frame's view as it opens
POINTS = {
    "cumulative-dedup": ['dd[data-fact="decision"]', 'dd[data-fact="reason"]',
                         '[data-testid="audit"] tr[data-strategy="none"]'],
    "index-bug": ['dd[data-fact="decision"]', 'dd[data-fact="lost"]',
                  '[data-testid="audit"] tr[data-strategy="index"]'],
    "interleaved-subagents": ['dd[data-fact="decision"]', 'dd[data-fact="reason"]', 'dd[data-fact="reset"]'],
    "real-subagents": ['[data-testid="lane"] >> nth=-1', '[data-testid="audit"] tr[data-strategy="lineage"]'],
    "real-streaming": ['dd[data-fact="decision"]', 'dd[data-fact="reason"]'],
    "gotchas": ['dd[data-fact="decision"]', '[data-testid="audit"] tr[data-strategy="index"]'],
}
WORDS = {  # what the point reads as
    "cumulative-dedup": ('[data-testid="audit"] tr[data-strategy="none"] td[data-col="duplicated"]', "2"),
    "interleaved-subagents": ('dd[data-fact="reason"]', "fingerprint changed"),
    "real-streaming": ('dd[data-fact="decision"]', "already streamed"),
}
BOX = "e => { const r = e.getBoundingClientRect(); return {x: r.x, y: r.y, width: r.width, height: r.height} }"
BACKGROUND = {"light": "rgb(255, 255, 255)", "dark": "rgb(13, 17, 23)"}


# Each width loads the tour once, in one scheme, and boots each of its frames (a Python each): the
# text, the links and every frame's state are checked on the same load as its view's layout, in
# that scheme and then in the other (the page and its frames follow the reader's scheme as it
# changes: the colours and the layout are looked at again, without a boot). Each scheme is the one
# loaded at one width. The frames boot as a returning visitor's do, from the boot snapshot of the
# shared context (the boot from scratch is tested in test_boot.py and test_startup.py).
@pytest.mark.parametrize(("width", "schemes"), [(1280, ("light", "dark")), (390, ("dark", "light"))],
                         ids=["1280-light-dark", "390-dark-light"])
def test_the_tour_explains_the_protocol_with_live_views_that_show_their_point_as_they_open(
        app_context, site, width: int, schemes: tuple[str, str]) -> None:
    log = RequestLog()
    page = app_context.new_page(site, log)
    page.set_viewport_size({"width": width, "height": 900})
    page.emulate_media(color_scheme=schemes[0])
    try:
        page.goto(site.url + "static/tour.html")
        text = page.text_content("main")
        for topic in ("one block", "message.id", "parent_tool_use_id", "--include-partial-messages",
                      "stop_reason", "fingerprint", "lineage"):
            assert topic in text, topic
        assert page.locator('[data-testid="tour-app-link"]').get_attribute("href") == "../index.html"
        assert page.locator('[data-testid="pyscript-link"]').get_attribute("href") == "./pyscript.html"
        frames = page.locator('iframe[data-testid="tour-embed"]')
        assert [frames.nth(i).get_attribute("data-example") for i in range(frames.count())] == list(EXPECT)
        assert list(POINTS) == list(EXPECT)
        for example, points in POINTS.items():
            here = frames.first  # the ones before it were removed
            here.scroll_into_view_if_needed()  # the frames load lazily, as a reader scrolls
            assert here.get_attribute("data-example") == example
            frame = here.element_handle().content_frame()
            frame.wait_for_selector(SETTLED_RUN, state="attached", timeout=BOOT_TIMEOUT_MS)
            assert frame.get_attribute("html", "data-app-state") == "done", (example, log.report())
            assert frame.get_attribute("html", "data-embed") == "1"
            assert frame.eval_on_selector('[data-testid="strategy"]', "s => s.value") == EXPECT[example], example
            assert frame.is_visible('[data-testid="open-full"]')
            if example == "index-bug":
                assert frame.text_content('[data-testid="step-position"]') == "4 / 6"
                assert frame.text_content('tr[data-strategy="index"] td[data-col="lost"]') == "1"
            for scheme in (*schemes, schemes[0]):  # (and back, for the next frame)
                page.emulate_media(color_scheme=scheme)
                assert page.evaluate("getComputedStyle(document.body).backgroundColor") == BACKGROUND[scheme]
                assert frame.evaluate("getComputedStyle(document.body).backgroundColor") == BACKGROUND[scheme]
                view_w, view_h = frame.evaluate("[innerWidth, innerHeight]")
                assert frame.evaluate("document.scrollingElement.scrollWidth") <= view_w, (example, scheme)
                for point in points:
                    box = frame.locator(point).evaluate(BOX)  # in the frame's own viewport
                    assert box["y"] >= 0 and box["y"] + box["height"] <= view_h + 0.5, (example, scheme, point, box)
                    assert box["x"] >= 0 and box["x"] + box["width"] <= view_w + 0.5, (example, scheme, point, box)
            if example in WORDS:
                where, words = WORDS[example]
                assert words in frame.text_content(where), example
            here.evaluate("f => f.remove()")  # each frame runs its own Python: free it
        log.assert_same_origin()
        log.assert_all_succeeded()
    finally:
        page.close()
