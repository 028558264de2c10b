"""What a run did to a repository (``system/vcs_state_changed``) and where the change was published
(``system/code_change_published``, PROTOCOL.md 7): rows that say so, the URL given as a link to
open only when it is an http(s) address of the characters a URI may hold, and always shown as text."""

from __future__ import annotations

import pytest
from _run_lines import a_run_with_two_agents, cli, init, published, run, text, vcs

from relayscope import meaning
from relayscope import relay as R
from relayscope.present import summary

URL = "https://github.com/acme/app/pull/42"


def _rows(lines: list[dict[str, object]]) -> dict[str | None, R.System]:
    return {r.subtype: r for r in run(lines) if isinstance(r, R.System)}


def test_a_push_and_its_pull_request_read_as_rows_with_a_link() -> None:
    rows = _rows([init(), vcs(), published()])
    assert summary(rows["vcs_state_changed"]) == "repository changed: push · /srv/app"
    assert summary(rows["code_change_published"]) == f"change published (pushed) · github · acme/app #42 · {URL}"
    assert meaning.link_of(rows["code_change_published"]) == URL
    assert meaning.link_of(rows["vcs_state_changed"]) is None
    for name in ("vcs_state_changed", "code_change_published"):
        assert meaning.place_of("system", name) == "lifecycle" and not meaning.is_error(rows[name])


@pytest.mark.parametrize("url", [
    "javascript:alert(1)", "data:text/html,<script>alert(1)</script>", "https://x.test/\x1b[31mred",
    "https://x.test/a b", "https://x.test/<script>", 'https://x.test/"onclick="x', "//x.test/pr/1", "https://x.test/" + "a" * 3000,
])
def test_an_address_that_is_no_plain_web_address_is_no_link_and_stays_text(url: str) -> None:
    row = _rows([init(), published(url)])["code_change_published"]
    assert meaning.link_of(row) is None
    assert meaning.relay_fields(row)["url"] == url  # kept whole, as it came


def test_a_pull_request_record_of_a_session_file_links_too() -> None:
    line = {"type": "pr-link", "prUrl": URL, "sessionId": "s"}
    (row,) = [r for r in run([line]) if isinstance(r, R.Passthrough)]
    assert meaning.link_of(row) == URL


def test_published_words_from_missing_or_mistyped_fields() -> None:
    assert meaning.summarize("system", "code_change_published", {}) == "change published"
    assert meaning.summarize("system", "code_change_published", {"identifier": 7, "repo": "a/b"}) == \
        "change published · a/b #7"
    assert meaning.summarize("system", "code_change_published", {"identifier": "feature/x", "url": 5}) == \
        "change published · feature/x"
    assert meaning.summarize("system", "vcs_state_changed", {"kind": None}) == "repository changed: ?"


def test_text_output_shows_the_url_as_text() -> None:
    out = cli("translate", "-f", "text", data=text(a_run_with_two_agents()))
    (row,) = [line for line in out.splitlines() if "change published" in line]
    assert row.endswith(f"· {URL}")
    hostile = cli("translate", "-f", "text", data=text([init(), published("https://x.test/<b>hi</b>")]))
    assert "https://x.test/<b>hi</b>" in hostile  # as it is: text, never markup
