"""web/remote.py: the page's DOM as the worker sees it. What Python does to it becomes ops for the
page (static/js/ui.mjs applies them; the browser tests prove that end to end), and the page's
messages become handler calls. Plain Python: no browser, no Pyodide."""

from __future__ import annotations

import json
from typing import Any

import pytest

from relayscope.web import protocol, remote

WRAP = protocol.Wrap(lambda f: f, lambda h: h)  # type: ignore[arg-type,return-value]  # plain stand-ins


def send(data: dict[str, Any]) -> None:
    """A message as the page sends it, decoded and received as main.py does."""
    remote.receive(*protocol.decode(data, WRAP))


@pytest.fixture
def page() -> list[list[Any]]:
    """A fresh page with two elements of index.html; returns the ops sent, flattened."""
    remote.PAGE.__init__()
    remote.DOCUMENT.__init__()
    sent: list[str] = []
    remote.PAGE.post = sent.append
    remote.PAGE.schedule = None
    send({"kind": "start", "snapshot": {
        "elements": {
            "timeline": {"tag": "div", "attrs": {"id": "timeline", "class": "timeline"},
                         "props": {"scrollTop": 0, "clientHeight": 600}},
            "filter": {"tag": "input", "attrs": {"id": "filter"}, "props": {"value": ""}},
            "examples-box": {"tag": "details", "attrs": {"id": "examples-box", "open": ""}, "props": {}},
        },
        "rootAttrs": {"data-app-state": "loading", "data-embed": "1"},
        "href": "http://127.0.0.1:8000/app/?example=x#frag",
        "storage": {"relayscope-theme": "dark"},
        "clipboard": True,
        "watchSupport": "",
    }})
    ops: list[list[Any]] = []

    class Ops(list[list[Any]]):
        def __iter__(self):  # every flush so far, in order
            remote.PAGE.flush()
            ops.clear()
            for message in sent:
                ops.extend(json.loads(message))
            return iter(ops)

    return Ops()


def h(tag: str, text: str | None = None, **attrs: str) -> remote.Node:
    el = remote.DOCUMENT.createElement(tag)
    if text is not None:
        el.textContent = text
    for name, value in attrs.items():
        if name == "cls":
            el.className = value
        else:
            el.setAttribute(name.replace("_", "-"), value)
    return el


def test_a_tree_built_off_the_page_goes_whole_on_attach_then_changes_go_one_by_one(page) -> None:
    box = remote.DOCUMENT.getElementById("timeline")
    row = h("div", cls="row", data_seq="3")
    row.append(h("span", "#3"))
    assert list(page) == []  # nothing of it is on the page yet
    box.append(row)
    (op,) = list(page)
    assert op[0] == "append" and op[1] == "timeline"
    rid, tag, attrs, _props, children, _style = op[2][0]
    assert (tag, attrs) == ("div", {"class": "row", "data-seq": "3"})
    assert children[0][1] == "span" and children[0][3] == {"textContent": "#3"}
    row.classList.add("selected")
    row.classList.add("selected")  # no change: no op
    row.style.top = "90px"
    row.style.top = "90px"
    assert list(page)[1:] == [["class", rid, "selected", True], ["style", rid, "top", "90px"]]
    row.remove()
    assert list(page)[-1] == ["remove", rid]
    row.classList.add("gone")  # off the page: nothing to send
    assert list(page)[-1] == ["remove", rid]
    box.append(row)  # back: sent whole again, with what changed meanwhile
    last = list(page)[-1]
    assert last[0] == "append" and "gone" in last[2][0][2]["class"]


def test_transcript_text_is_sent_as_text_never_as_markup(page) -> None:
    evil = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'
    remote.DOCUMENT.getElementById("timeline").append(h("pre", evil, title=evil))
    (op,) = list(page)
    spec = op[2][0]
    assert spec[3] == {"textContent": evil} and spec[2]["title"] == evil
    assert "innerHTML" not in json.dumps(list(page))


def test_reads_come_back_from_the_mirror(page) -> None:
    root = remote.DOCUMENT.documentElement
    assert root.getAttribute("data-embed") == "1" and root.dataset.appState == "loading"
    details = remote.DOCUMENT.getElementById("examples-box")
    assert details.open is True
    details.open = False
    assert details.open is False and list(page) == [["set", "examples-box", "open", False]]
    p = h("p", "a")
    p.append(h("b", "b"))
    assert p.textContent == "ab" and p.firstChild.tagName == "B"
    assert remote.WINDOW.location.search == "?example=x" and remote.WINDOW.location.hash == "#frag"
    assert remote.WINDOW.localStorage.getItem("relayscope-theme") == "dark"


def test_selectors_find_what_python_built_escaped_values_included(page) -> None:
    lanes = remote.DOCUMENT.getElementById("timeline")
    odd = 'agent "x" \\ y'
    card = h("li", data_lane=odd)
    card.append(h("button", "only", data_action="lane-only"))
    lanes.append(h("li", data_lane="main"), card)
    found = lanes.querySelector(f'[data-lane="{remote.WINDOW.CSS.escape(odd)}"]')
    assert found is card
    button = card.querySelector("button[data-action]")
    assert button is not None and button.closest('li[data-lane="main"], li[data-lane]') is card
    assert button.matches("button[data-action], .x") and not button.matches(".x")
    with pytest.raises(ValueError, match="not supported"):
        lanes.querySelector("li > button")


def test_an_event_reaches_its_handler_and_is_acknowledged_after_its_ops(page) -> None:
    box = remote.DOCUMENT.getElementById("timeline")
    row = h("div", data_seq="7")
    inner = h("span", "x")
    row.append(inner)
    box.append(row)
    seen: list[Any] = []

    def handler(event: Any) -> None:
        seen.append(event.target.closest("[data-seq]").getAttribute("data-seq"))
        box.classList.add("clicked")

    box.addEventListener("click", handler)
    listen = list(page)[-1]
    assert listen[:3] == ["listen", "timeline", "click"]
    send({"kind": "event", "lid": listen[3], "seq": 5, "flipped": False,
          "e": {"type": "click", "rid": inner.rid, "self": True, "tag": "SPAN"}})
    assert seen == ["7"]
    assert list(page)[-2:] == [["class", "timeline", "clicked", True], ["ack", 5]]


def test_an_event_the_page_marked_as_work_that_started_none_puts_the_state_back(page) -> None:
    root = remote.DOCUMENT.documentElement
    root.dataset.appState = "done"
    button = remote.DOCUMENT.getElementById("filter")
    starts = {"work": False}

    def handler(_event: Any) -> None:
        if starts["work"]:
            root.dataset.appState = "analyzing"

    button.addEventListener("click", handler)
    lid = list(page)[-1][3]
    for seq, work in ((1, False), (2, True)):
        starts["work"] = work
        send({"kind": "event", "lid": lid, "seq": seq, "flipped": True,
              "e": {"type": "click", "rid": "filter", "self": True}})
    ops = list(page)
    assert ops[ops.index(["ack", 1]) - 1] == ["attr", "root", "data-app-state", "done"]
    assert ops[-2:] == [["attr", "root", "data-app-state", "analyzing"], ["ack", 2]]


def test_values_typed_and_files_picked_arrive_before_the_event(page) -> None:
    send({"kind": "sync", "rid": "filter", "props": {"value": "needle"}})
    assert remote.DOCUMENT.getElementById("filter").value == "needle"
    send({"kind": "sync", "rid": "filter", "props": {}, "files": [{"path": "dir/a.jsonl", "file": "FILE"}]})
    files = remote.DOCUMENT.getElementById("filter").files
    assert files.length == 1 and files.item(0).webkitRelativePath == "dir/a.jsonl"
    assert files.item(0).name == "a.jsonl"


def test_a_scroll_to_the_top_where_the_page_is_already_at_the_top_sends_nothing(page) -> None:
    timeline = remote.DOCUMENT.getElementById("timeline")
    timeline.scrollTop = 0  # the page said 0 in its snapshot: setting it would only force a layout
    assert list(page) == []
    send({"kind": "sync", "rid": "timeline", "props": {"scrollTop": 480}})  # the reader scrolled
    timeline.scrollTop = 0
    assert list(page) == [["set", "timeline", "scrollTop", 0]]
    timeline.scrollTop = 0  # at the top, as far as the page has said
    timeline.scrollTop = 96  # any other position is sent, even twice (the page may have clamped it)
    timeline.scrollTop = 96
    assert list(page)[1:] == [["set", "timeline", "scrollTop", 96]] * 2
    other = remote.DOCUMENT.getElementById("filter")  # an element whose scrolls the page does not send
    other.scrollTop = 0
    assert list(page)[3:] == [["set", "filter", "scrollTop", 0]]


def test_a_measured_height_reaches_who_asked(page) -> None:
    from relayscope.web.dom import measure

    row = h("div")
    remote.DOCUMENT.getElementById("timeline").append(row)
    heights: list[int] = []
    assert measure(row, heights.append) == 0
    assert ["measure", row.rid] in list(page)
    send({"kind": "measured", "sizes": [[row.rid, 212]], "seq": 9})
    assert heights == [212] and row.offsetHeight == 212


def test_the_address_and_storage_are_written_through_the_page(page) -> None:
    remote.WINDOW.history.replaceState(None, "", "?strategy=index")
    remote.WINDOW.localStorage.setItem("relayscope-theme", "light")
    assert remote.WINDOW.location.href == "http://127.0.0.1:8000/app/?strategy=index"
    assert list(page)[-2:] == [["history", "http://127.0.0.1:8000/app/?strategy=index"],
                               ["store", "relayscope-theme", "light"]]
    remote.WINDOW.localStorage.denied = True
    with pytest.raises(PermissionError):
        remote.WINDOW.localStorage.getItem("relayscope-theme")
