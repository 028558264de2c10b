"""One source of words: the same session reads the same on the page, in ``translate -f text``
and in ``relayscope html``: its first row (model, version, folder), and its sub-agent lanes'
names (type: task), under the strategy that loses the spawning call (index) as under lineage.
A real session with two sub-agents (tests/fixtures/real), on the built site in Chromium."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from _app import AppDriver

SESSION = (Path(__file__).resolve().parents[1] / "fixtures/real/session-jsonl/JamesTiberiusKirk__dotsv2__cut"
           / ".claude/projects/-Users-dumitruvulpe-uw-telecom-mobile")


def cli(*args: str) -> str:
    run = subprocess.run([sys.executable, "-m", "relayscope", *args], capture_output=True, text=True,
                         env={**os.environ, "COLUMNS": "400"})
    assert run.returncode in (0, 1), run.stderr
    return run.stdout


def page_words(app: AppDriver) -> tuple[str, set[str]]:
    row = app.page.locator('[data-testid="timeline"] .row[data-type="session_meta"] [data-testid="row-summary"]')
    labels = app.page.eval_on_selector_all('[data-testid="lane-label"]', "els => els.map(e => e.textContent)")
    return row.first.get_attribute("title"), set(labels)


@pytest.mark.parametrize("strategy", ["index", "lineage"])
def test_page_cli_text_and_snapshot_say_the_same(app: AppDriver, strategy: str, tmp_path: Path) -> None:
    app.open_folder(SESSION)
    app.strategy(strategy)
    app.tab("lanes")
    session, labels = page_words(app)
    assert "claude-sonnet-4-6" in session and "v2.1.150" in session and "model ?" not in session, session
    assert {x for x in labels if x != "main agent"} and not any(x.startswith("toolu_") for x in labels), labels

    text = cli("translate", "-s", strategy, "-f", "text", "--color", "never", str(SESSION))
    rows = [line for line in text.splitlines() if "session_meta" in line]
    assert rows and rows[0].split("session_meta", 1)[1].strip() == session, (rows, session)
    head, *lines = text.splitlines()
    at, end = head.index("lane"), head.index("type")
    column = {line[at:end].strip() for line in lines if len(line) > end}  # the lane column, cut to its width
    assert column == {label if len(label) <= end - at - 2 else label[:end - at - 3] + "…" for label in labels}

    out = tmp_path / "snap.html"
    cli("html", "-s", strategy, "-o", str(out), str(SESSION))
    snap = out.read_text(encoding="utf-8")
    sums = [html.unescape(s) for s in re.findall(r'<span class="sum">(session [^<]*)</span>', snap)]
    assert sums and sums[0] == session, (sums, session)
    assert {html.unescape(x) for x in re.findall(r'class="lane">([^<]*)<', snap)} == labels
