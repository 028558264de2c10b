"""One sniffing rule (formats.Sniffer) for everyone who needs an input's format: the analyzer,
file grouping, the CLI deciding whether files are sessions, and the web page. They used to look
at different windows (8 physical lines here, 8 non-blank lines there) and could disagree."""

from __future__ import annotations

from pathlib import Path

import pytest
from _corpus import ROOT

from relayscope.analysis import Analyzer
from relayscope.cli.commands.translate import sniff as _sniff
from relayscope.formats import SNIFF_LINES, detect
from relayscope.inputs import Input
from relayscope.multifile import group_files
from relayscope.web.model import Workspace

SESSION_LINE = (ROOT / "static" / "examples" / "real-session.jsonl").read_bytes().split(b"\n")[0]


def formats(data: bytes, tmp_path: Path) -> dict[str, str | None]:
    path = tmp_path / "input.jsonl"
    path.write_bytes(data)
    a = Analyzer()
    a.feed_text(data)
    a.finish()
    ws = Workspace()
    list(ws.load(data))
    return {"detect": detect(data.split(b"\n")), "analyzer": a.format, "cli": _sniff(Input(str(path))),
            "group_files": group_files({"input.jsonl": data})[0].format, "web": ws.format}


@pytest.mark.parametrize(("blank", "garbage", "expected"), [
    (0, 0, "session"),
    (12, 0, "session"),  # blank lines prove nothing and do not count
    (12, SNIFF_LINES - 1, "session"),
    (0, SNIFF_LINES, "stream-json"),  # the window is non-blank lines that prove nothing
])
def test_every_caller_sees_the_same_format(tmp_path: Path, blank: int, garbage: int, expected: str) -> None:
    data = b"\n" * blank + b"not json\n" * garbage + SESSION_LINE + b"\n"
    assert set(formats(data, tmp_path).values()) == {expected}
