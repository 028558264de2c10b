"""Links of any size (web/share.py) and the share fragment's limits (model.decode_share)."""

from __future__ import annotations

import base64
import zlib

import pytest

from relayscope import sharefile
from relayscope.redact import Redactor
from relayscope.web.model import SHARE_MAX_BYTES, decode_share, encode_share
from relayscope.web.share import (
    Redacted,
    describe_view,
    embed_params,
    file_name,
    fingerprint,
    full_params,
    named,
    parse_fingerprint,
    shared,
    stem,
    view_url,
)


def test_fingerprint_round_trips_through_its_fragment() -> None:
    fp = fingerprint([(None, b'{"type":"system"}\n')], name="a b&c.jsonl")
    assert fp.size == 18 and len(fp.sha256) == 32
    back = parse_fingerprint("#" + fp.fragment())
    assert back == fp and back.matches(fp)


def test_fingerprint_tells_files_apart_and_ignores_their_order() -> None:
    a, b = ("x.jsonl", b"one"), ("y.jsonl", b"two")
    assert fingerprint([a, b]) == fingerprint([b, a])
    assert not fingerprint([a, b]).matches(fingerprint([("x.jsonl", b"onet"), ("y.jsonl", b"wo")]))
    assert not fingerprint([(None, b"one")]).matches(fingerprint([(None, b"onE")]))


@pytest.mark.parametrize("fragment", ["file=12", "file=x&sha256=0123456789abcdef", "file=3&sha256=zz" * 4,
                                      "sha256=0123456789abcdef0123"])
def test_a_damaged_fingerprint_link_is_refused_in_words(fragment: str) -> None:
    with pytest.raises(ValueError, match="damaged"):
        parse_fingerprint(fragment)


def test_embed_and_full_params_swap_only_how_the_view_is_shown() -> None:
    view = {"example": "index-bug", "strategy": "index", "step": "4"}
    embedded = embed_params(view, theme="dark", panels="stepper,audit")
    assert embedded == {**view, "embed": "1", "theme": "dark", "panels": "stepper,audit"}
    assert full_params(embedded) == view
    assert view_url("http://h/app/", {"a": "1 2"}, "file=3") == "http://h/app/?a=1+2#file=3"


def test_an_embed_opens_every_panel_its_author_chose() -> None:
    # the full app's detail panel (its tab, size, fold) does not travel into an embed: its panels=
    # is the author's choice, so a panel hidden in the app is not hidden in the page
    view = {"example": "index-bug", "tab": "share", "size": "30", "detail": "closed"}
    assert embed_params(view, panels="audit,lanes") == {"example": "index-bug", "embed": "1", "panels": "audit,lanes"}


def test_share_links_refuse_to_unpack_past_the_cap() -> None:
    bomb = zlib.compress(b'{"text":"' + b"a" * (SHARE_MAX_BYTES + 10) + b'"}', 9)
    fragment = "v1." + base64.urlsafe_b64encode(bomb).rstrip(b"=").decode()
    assert len(fragment) < 200_000  # small enough to arrive in a URL
    with pytest.raises(ValueError, match="more than 32 MB"):
        decode_share(fragment)


def test_broken_share_links_get_the_readers_words_not_zlibs() -> None:
    good = encode_share("x" * 5000, {"name": "t"})
    assert good is not None
    for broken in (good[: len(good) // 2], "v1.!!!not-base64", "v1." + "A" * 40):
        with pytest.raises(ValueError) as info:
            decode_share(broken)
        message = str(info.value)
        assert "damaged" in message and "zlib" not in message.lower() and "Error" not in message


class _Input:
    """A workspace's input, as share.Redacted and share.shared read it."""

    def __init__(self, parts: list[tuple[str | None, bytes]]) -> None:
        self.parts = parts

    def source_bytes(self) -> bytes | None:
        return self.parts[0][1] if self.parts[0][0] is None else None

    def source_parts(self) -> list[tuple[str | None, bytes]]:
        return self.parts


KEY = "AKIAQ3EGRZ7XKWLM5TN4"
LINE = ('{"type":"user","message":{"content":"use ' + KEY + ' from /home/alice/x"}}\n').encode()


def test_a_single_text_is_shared_under_its_file_name_and_downloads_are_named_after_the_main_file() -> None:
    assert file_name("run.jsonl") == "run.jsonl" and file_name("pasted text") == "pasted-text.jsonl"
    assert file_name(None) == "transcript.jsonl" and file_name("logs/run.ndjson") == "run.ndjson"
    assert stem(["s/subagents/agent-1.jsonl", "s.jsonl"]) == "s" and stem(["x.ndjson"]) == "x"
    assert named([(None, b"a")], "pasted text") == {"pasted-text.jsonl": b"a"}


def test_redacted_shares_are_what_pack_redact_writes_and_the_preview_lists_every_secret() -> None:
    ws = _Input([("s.jsonl", LINE), ("home-alice/agent-1.jsonl", LINE)])
    r = Redacted(ws, "2 files")
    out = shared(ws, "2 files", {"q": KEY, "step": "3"}, r)
    cli = sharefile.prepare({"s.jsonl": LINE, "home-alice/agent-1.jsonl": LINE}, {"q": KEY, "step": "3"}, Redactor())
    assert out == cli
    assert sharefile.write(out) == sharefile.write(cli)
    assert all(KEY.encode() not in data for data in out.files.values()) and KEY not in out.view["q"]
    assert {f.kind for f in r.findings} >= {"aws-key", "user"}
    assert [p for p, _ in r.parts] == list(out.files)  # the fingerprint hashes the names that travel


def test_an_unredacted_share_is_the_input_as_it_is_and_a_single_text_stays_single() -> None:
    ws = _Input([(None, LINE)])
    out = shared(ws, "my run.jsonl", {"strategy": "index"}, None)
    assert out.files == {"my-run.jsonl": LINE} and out.redacted is None
    assert Redacted(ws, "my run.jsonl").single is not None


def test_a_view_is_said_in_words() -> None:
    assert describe_view({}) == "strategy lineage, step 1"
    assert describe_view({"strategy": "index", "step": "12", "row": "40", "q": "Agent"}) == \
        "strategy index, step 12, row 40 open, search “Agent”"
