"""The documentation: docs/relay-events.md's examples decode as the relays they claim to be and
cover every relay type; in README.md and every docs/ page each relative link leads to a file (and
heading) that exists and each command output shown is what the command prints; the README stays
an entry (under 200 lines, linking every page)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from _corpus import ROOT

from relayscope.relay import RELAY_TYPES, decode_relay, to_dict

DOC = (ROOT / "docs" / "relay-events.md").read_text()
EXAMPLES = re.findall(r"```json\n(.*?)\n```", DOC, re.DOTALL)


def test_every_example_is_a_valid_relay_written_as_the_encoder_writes_it() -> None:
    assert len(EXAMPLES) >= len(RELAY_TYPES)
    for text in EXAMPLES:
        relay = decode_relay(text)
        assert to_dict(relay) == json.loads(text), text


def test_every_relay_type_is_documented_with_an_example() -> None:
    shown = {decode_relay(text).type for text in EXAMPLES}
    assert shown == set(RELAY_TYPES)
    for name in RELAY_TYPES:
        assert f"## {name}" in DOC or f", {name}" in DOC or f"## {name}," in DOC, name


# -- every page: its links lead somewhere, and what it shows a command print is what it prints ----

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# [text](target) and ![alt](target); the target up to a space (a title) or the closing parenthesis
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)[^)]*\)")
# a fenced block whose first line is a shell prompt running the command: `$ [VAR=value ...] relayscope ARGS`
SHOWN = re.compile(r"```\n\$ ((?:[A-Z_]+=\S+ )*)relayscope ([^\n|>]+)\n(.*?)```", re.DOTALL)


def _anchors(page: Path) -> set[str]:
    """The anchors GitHub makes of a page's headings: lower case, punctuation gone, spaces to -."""
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.DOTALL)
    headings = re.findall(r"^#+ (.+)$", text, re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def _relative_links(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.DOTALL)
    return [t for t in LINK.findall(text) if not re.match(r"[a-z][a-z0-9+.-]*:", t)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_relative_link_leads_to_a_file_and_heading_that_exist(page: Path) -> None:
    links = _relative_links(page)
    for link in links:
        path, _, anchor = link.partition("#")
        target = (page.parent / path).resolve() if path else page
        assert target.is_file(), f"{page.name}: {link} leads to no file"
        if anchor and target.suffix == ".md":
            assert anchor in _anchors(target), f"{page.name}: {link}: no such heading in {target.name}"


def test_the_readme_is_an_entry_not_the_manual() -> None:
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) < 200, f"README.md has {len(lines)} lines: move the detail into docs/"
    assert "docs/img/relayscope.png" in "\n".join(lines)
    for page in PAGES[1:]:
        assert f"](docs/{page.name})" in "\n".join(lines), f"README.md does not link docs/{page.name}"


def test_no_page_names_an_issue_by_number() -> None:
    for page in PAGES:
        found = re.findall(r"\bissues? #?\d+", page.read_text(), re.IGNORECASE)
        assert not found, f"{page.name}: {found}: say what the behaviour is, not which issue asked"


SHOWN_OUTPUT = [(page, m) for page in PAGES for m in SHOWN.finditer(page.read_text())]


@pytest.mark.parametrize("page,shown", SHOWN_OUTPUT, ids=lambda v: getattr(v, "name", None) or v.group(2)[:40])
def test_output_shown_in_the_docs_is_what_the_command_prints(page: Path, shown: re.Match[str]) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "NO_COLOR", "TERM")}
    env["PYTHONPATH"] = str(ROOT / "py")
    env.update(a.split("=", 1) for a in shown.group(1).split())
    p = subprocess.run([sys.executable, "-m", "relayscope", *shlex.split(shown.group(2))],
                       cwd=ROOT, env=env, capture_output=True, timeout=120)
    assert p.stdout.decode().startswith(shown.group(3)), f"{page.name}: $ relayscope {shown.group(2)}"
