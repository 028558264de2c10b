"""The library: a folder of several sessions (laid out as ``~/.claude/projects``) is listed, one
row per session, instead of being loaded as one merged run; a session opened from it is that
session alone, as ``relayscope translate`` reads it; "Back" returns to the list as it was; the
address names the session.

The folder is tests/fixtures/library/projects (real sessions of five families, five projects, nine
sessions, sources in its README), copied; for a list long enough to scroll, with more projects
holding the same sessions under new ids."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _app import ROOT, AppDriver

LIBRARY = ROOT / "tests" / "fixtures" / "library" / "projects"
PROJECTS = {p.name: p for p in sorted(LIBRARY.iterdir()) if p.is_dir()}
LIST = "[data-testid=library-session]"
SETTLED = "html[data-app-state=done], html[data-app-state=error]"
FILLED = "[data-testid=library]:not([data-filling])"
SEARCHED = "[data-testid=library]:not([data-searching])"


def make_projects(root: Path, copies: int = 0) -> Path:
    """``root/projects``, laid out as ``~/.claude/projects`` is; ``copies``: that many more
    projects holding the same sessions under new ids (a list long enough to scroll)."""
    projects = root / "projects"
    shutil.copytree(LIBRARY, projects)
    for k in range(copies):
        for name, source in PROJECTS.items():
            target = projects / f"-tmp-copy{k}{name}"
            for main in source.glob("*.jsonl"):
                new = f"{k:08d}-0000-4000-8000-{main.stem[-12:]}"
                target.mkdir(parents=True, exist_ok=True)
                shutil.copy(main, target / f"{new}.jsonl")
                if (source / main.stem).is_dir():
                    shutil.copytree(source / main.stem, target / new)
    return projects


def cli_sessions(projects: Path) -> dict[str, dict]:
    """Each session the command line's rule finds there: its id -> its files."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "py"))
    from relayscope import library

    paths = sorted(str(p.relative_to(projects.parent)) for p in projects.rglob("*") if p.is_file())
    grouping = library.group(paths, lambda p: library.peek_bytes((projects.parent / p).read_bytes()))
    return {g.key: {"files": [projects.parent / f for f in g.transcripts], "project": g.main}
            for g in grouping.groups if g.format == "session" and g.copy_of is None}


def translate_count(files: list[Path]) -> int:
    run = subprocess.run([sys.executable, "-m", "relayscope", "translate", *map(str, files)], capture_output=True)
    assert run.returncode in (0, 1), run.stderr.decode()
    return len(run.stdout.splitlines())


@pytest.fixture(scope="module")
def projects(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_projects(tmp_path_factory.mktemp("library"))


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_projects(tmp_path_factory.mktemp("library-many"), copies=6)


def settled(app: AppDriver) -> None:
    app.page.wait_for_selector(SETTLED, state="attached", timeout=120_000)
    assert app.page.get_attribute("html", "data-app-state") == "done", app.testid("status").text_content()


def open_library(app: AppDriver, projects: Path, filled: bool = False) -> None:
    app.testid("folder-input").set_input_files(projects)
    settled(app)
    app.page.wait_for_selector("[data-testid=library]:not([hidden])", state="attached")
    if filled:
        app.page.wait_for_selector(FILLED, state="attached", timeout=120_000)


def open_session(app: AppDriver, session: str) -> None:
    app.page.click(f'{LIST}[data-session="{session}"] button.lib-open')
    app.settle()
    assert app.testid("library").is_hidden()


def cli_json(*args: str) -> list[dict]:
    run = subprocess.run([sys.executable, "-m", "relayscope", *args, "--json"], capture_output=True)
    assert run.returncode in (0, 1), run.stderr.decode()
    return [json.loads(line) for line in run.stdout.splitlines()]


def lanes_of(files: list[Path]) -> set[str]:
    run = subprocess.run([sys.executable, "-m", "relayscope", "translate", *map(str, files)], capture_output=True)
    return {json.loads(line).get("lane") for line in run.stdout.splitlines()} - {None}


def listed(app: AppDriver) -> list[str]:
    return app.page.eval_on_selector_all(LIST, "els => els.filter(e => !e.hidden).map(e => e.dataset.session)")


def test_a_folder_of_several_projects_lists_each_session_once_instead_of_a_merged_run(app: AppDriver,
                                                                                     projects: Path) -> None:
    open_library(app, projects)
    sessions = cli_sessions(projects)
    assert len(sessions) == 9
    ids = listed(app)
    assert sorted(ids) == sorted(sessions)  # each once
    assert app.testid("library-count").text_content().strip() == str(len(sessions))
    assert app.testid("workspace").is_hidden()  # no merged run
    projects_shown = set(app.page.eval_on_selector_all(LIST, "els => els.map(e => e.dataset.project)"))
    assert projects_shown == {s["project"] for s in cli_json("sessions", str(projects))}


def test_each_session_opens_alone_with_the_relays_and_lanes_translate_gives_it(app: AppDriver,
                                                                               projects: Path) -> None:
    open_library(app, projects)
    for session, info in cli_sessions(projects).items():
        open_session(app, session)
        assert app.total() == translate_count(info["files"]), session
        assert len(app.lanes()) == len(lanes_of(info["files"])), session
        assert "session=" + session in app.page.url
        assert app.testid("library-back").is_visible()
        app.testid("library-back").click()
        assert app.testid("library").is_visible() and app.testid("workspace").is_hidden()
        assert "session=" not in app.page.url


def test_the_whole_read_figures_fill_in_as_the_command_line_counts_them(app: AppDriver, projects: Path) -> None:
    open_library(app, projects, filled=True)
    for s in cli_json("sessions", str(projects), "--full"):
        row = app.page.locator(f'{LIST}[data-session="{s["session"]}"]')
        cells = {c: row.locator(f'td[data-col="{c}"]').text_content().replace("\u202f", "") for c in
                 ("tools", "errors", "subagents")}
        assert cells == {"tools": str(s["tool_calls"]), "errors": str(s["errors"]), "subagents": str(s["subagents"])}
        assert row.locator('td[data-col="tokens"]').get_attribute("title").startswith("input ")


def visible_order(app: AppDriver) -> list[str]:
    return app.page.eval_on_selector_all(f"{LIST}:not([hidden])", "els => els.map(e => e.dataset.session)")


def test_back_returns_to_the_list_where_it_was_scroll_sort_and_filter(app: AppDriver, many: Path) -> None:
    viewport = app.page.viewport_size
    app.page.set_viewport_size({"width": 1280, "height": 600})  # a list longer than its box
    try:
        back_where_it_was(app, many)
    finally:
        app.page.set_viewport_size(viewport)


def back_where_it_was(app: AppDriver, many: Path) -> None:
    open_library(app, many)
    app.testid("library-group").click()  # one list, not grouped by project
    assert app.testid("library-group").get_attribute("aria-pressed") == "false"
    app.page.click('[data-testid=library] th[data-col="size"] button')  # largest first
    sizes = app.page.eval_on_selector_all(f"{LIST}:not([hidden])", "els => els.map(e => e.querySelector("
                                          "'[data-col=size]').title)")
    numbers = [int(t.split(" bytes")[0].replace("\u202f", "")) for t in sizes]
    assert numbers == sorted(numbers, reverse=True) and len(numbers) > 20
    app.testid("library-filter").fill("haiku")  # the words filter: one session per project copy
    kept = visible_order(app)
    assert 0 < len(kept) < len(numbers)
    app.testid("library-filter").fill("")
    chosen = next(o for o in app.page.eval_on_selector_all('[data-testid=library-project] option',
                                                           "els => els.map(e => e.value)") if o.startswith("/src/exp"))
    app.testid("library-project").select_option(chosen)
    only = app.page.eval_on_selector_all(f"{LIST}:not([hidden])", "els => els.map(e => e.dataset.project)")
    assert 0 < len(only) < len(numbers) and set(only) == {chosen}
    app.testid("library-project").select_option("")
    order = visible_order(app)
    app.testid("library-filter").fill("experiment")
    filtered = visible_order(app)
    app.page.eval_on_selector("[data-testid=library-list]", "el => el.scrollTop = 0")
    last = app.page.locator(f'{LIST}[data-session="{filtered[-1]}"]')
    last.scroll_into_view_if_needed()
    app.page.wait_for_timeout(100)
    top = app.page.eval_on_selector("[data-testid=library-list]", "el => el.scrollTop")
    assert top > 0
    open_session(app, filtered[-1])
    app.testid("library-back").click()
    assert visible_order(app) == filtered
    assert app.testid("library-filter").input_value() == "experiment"
    assert app.page.get_attribute('[data-testid=library] th[data-col="size"]', "aria-sort") == "descending"
    assert app.page.eval_on_selector("[data-testid=library-list]", "el => el.scrollTop") == top
    app.testid("library-filter").fill("")
    assert visible_order(app) == order


def test_a_reload_of_the_address_comes_back_to_the_session_once_its_folder_is_opened(app: AppDriver,
                                                                                       projects: Path) -> None:
    open_library(app, projects)
    session, info = next(iter(cli_sessions(projects).items()))
    open_session(app, session)
    address = app.page.url
    assert "session=" + session in address
    app.page.goto(address)
    app.page.wait_for_selector("html[data-app-state=ready]", state="attached", timeout=120_000)
    wanted = app.testid("library-wanted")
    assert wanted.is_visible() and session in wanted.text_content()
    app.testid("folder-input").set_input_files(projects)
    app.settle()
    assert app.testid("library").is_hidden() and app.testid("workspace").is_visible()
    assert app.total() == translate_count(info["files"])
    assert "session=" + session in app.page.url and wanted.is_hidden()
    app.testid("library-back").click()  # the rest of the folder is listed behind it
    assert sorted(listed(app)) == sorted(cli_sessions(projects))


def test_a_search_keeps_the_matching_sessions_with_their_counts_and_opens_on_the_first_match(
        app: AppDriver, projects: Path) -> None:
    open_library(app, projects)
    for query in ("Bash", "tool:Read", "is:error"):
        expected = {h["session"]: h["count"] for h in cli_json("search", str(projects), query)}
        box = app.testid("library-search")
        box.fill(query)
        box.press("Enter")
        app.page.wait_for_selector(SEARCHED, state="attached", timeout=120_000)
        shown = set(listed(app))
        assert shown == set(expected), query
        counts = {s: int(app.page.locator(f'{LIST}[data-session="{s}"] [data-testid=library-hits]')
                         .get_attribute("data-count")) for s in shown}
        assert counts == expected, query
        assert app.testid("library-count").text_content().strip() == str(len(expected))
    first = listed(app)[0]
    open_session(app, first)
    assert app.testid("filter").input_value() == "is:error"
    app.page.wait_for_selector("[data-testid=timeline] .row.selected", state="attached")
    assert app.testid("search-count").text_content().startswith("1 of ")
    app.testid("library-back").click()
    assert set(listed(app)) == set(expected)  # the search is kept behind the session
    app.testid("library-search").fill("")
    app.testid("library-search").press("Enter")
    assert sorted(listed(app)) == sorted(cli_sessions(projects))


def test_a_shareable_file_of_several_sessions_is_listed_and_each_opens_alone(app: AppDriver, projects: Path,
                                                                               tmp_path: Path) -> None:
    packed = tmp_path / "history.relayscope.zip"
    run = subprocess.run([sys.executable, "-m", "relayscope", "pack", "-o", str(packed), str(projects)],
                         capture_output=True)
    assert run.returncode == 0, run.stderr.decode()
    app.testid("file-input").set_input_files(str(packed))
    settled(app)
    sessions = cli_sessions(projects)
    assert sorted(listed(app)) == sorted(sessions)
    session, info = next(iter(sessions.items()))
    open_session(app, session)
    assert app.total() == translate_count(info["files"])


def test_dropped_files_of_several_sessions_are_listed_and_one_session_opens_directly(app: AppDriver) -> None:
    from test_app_input import drop_files

    mains = [next(PROJECTS["-src-experiments-claude_p"].glob("256ba646*.jsonl")),
             next(PROJECTS["sample-project"].glob("1af7fc5e*.jsonl"))]  # no sub-agents: a file is the session
    drop_files(app, {p.name: p.read_text(encoding="utf-8") for p in mains})
    assert sorted(listed(app)) == sorted(p.stem for p in mains)
    assert app.testid("workspace").is_hidden()
    drop_files(app, {mains[0].name: mains[0].read_text(encoding="utf-8")})  # one session: as before
    assert app.testid("library").is_hidden() and app.testid("workspace").is_visible()
    assert app.total() == translate_count([mains[0]])


def test_a_watched_folder_of_several_sessions_is_listed_and_the_session_opened_is_followed(app: AppDriver) -> None:
    from test_app_watch import OPFS_DIR, model_after, watch, write

    page = app.page
    first, second = PROJECTS["-home-marco-projects-spotter"], PROJECTS["sample-project"]
    files = {f"lw/{p.parent.name}/{p.name}": p for p in (*first.glob("*.jsonl"), *second.glob("*.jsonl"))}
    chosen_path, chosen = next(iter(files.items()))
    data = chosen.read_bytes()
    lines = data.splitlines(keepends=True)
    half = b"".join(lines[:len(lines) // 2])
    for path, source in files.items():
        write(page, path, half if path == chosen_path else source.read_bytes(), fresh=True)
    page.evaluate(OPFS_DIR, "lw")
    watch(page, "lw")
    page.wait_for_selector("[data-testid=library]:not([hidden])", state="attached", timeout=60_000)
    settled(app)
    assert sorted(listed(app)) == sorted(p.stem for p in files.values())
    assert page.get_attribute("html", "data-watch") == "stopped"  # a list, not a merged live run
    open_session(app, chosen.stem)
    page.wait_for_selector('html[data-watch="watching"][data-app-state="done"]', state="attached", timeout=60_000)
    assert app.total() == len(model_after(half).relays)  # as the watch of that file alone shows it
    write(page, chosen_path, data[len(half):])  # the rest of the session lands
    page.wait_for_selector(f'html[data-watch-bytes="{len(data)}"][data-app-state="done"]', state="attached",
                           timeout=60_000)
    assert app.total() == len(model_after(data).relays)
    app.testid("library-back").click()
    assert sorted(listed(app)) == sorted(p.stem for p in files.values())



def test_the_lists_page_layout_hangs_on_an_attribute_not_on_a_has_of_the_page(app: AppDriver,
                                                                              projects: Path) -> None:
    """Shown, the list takes the screen (the body does not scroll, the footer goes) by
    ``<html data-library>``, set and removed with the list: a ``:has(#library:not([hidden]))``
    on the page, which Chromium checks again at every element's ``hidden`` change, restyled
    every element each time a row was filtered out (0.4-1 s for 2,000 rows)."""
    open_library(app, projects)
    page = app.page
    assert page.get_attribute("html", "data-library") == ""
    assert page.eval_on_selector("body", "b => getComputedStyle(b).overflow") == "hidden"
    assert page.eval_on_selector("footer", "f => getComputedStyle(f).display") == "none"
    rules = page.evaluate("""() => [...document.styleSheets].flatMap(s => {
        try { return [...s.cssRules].map(r => r.cssText); } catch (e) { return []; } })""")
    assert rules and not [r for r in rules if ":has(" in r and "#library" in r]
    first = listed(app)[0]
    open_session(app, first)
    assert page.get_attribute("html", "data-library") is None  # the session's layout is the workspace's
    app.testid("library-back").click()
    assert page.get_attribute("html", "data-library") == ""
    app.testid("library-filter").fill("zzzz-no-such-session")
    page.wait_for_selector(f"{LIST}:not([hidden])", state="detached")
    assert page.get_attribute("html", "data-library") == ""  # rows hidden: the list is still shown
