"""The web app boots offline to "ready", from its own origin only, on the lock it ships."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import SETTLED, RequestLog, goto_settled, recorded_page

ROOT = Path(__file__).resolve().parents[2]
VENDOR = ROOT / "static" / "vendor"


def package_version() -> str:
    text = (ROOT / "py" / "relayscope" / "__init__.py").read_text(encoding="utf-8")
    match = re.search(r'^__version__ = "([^"]+)"', text, re.MULTILINE)
    assert match, "py/relayscope/__init__.py has no __version__"
    return match.group(1)


def text(page, testid: str) -> str:
    return page.text_content(f'[data-testid="{testid}"]')


@pytest.fixture(scope="module")
def booted(browser, site) -> Iterator[tuple]:
    """One page booted to "ready" in a fresh context, and its RequestLog: what the tests below
    read of a boot (its requests, what it shows) is the same for each, so they share one boot.
    Nothing here acts on it: a test that does (a fetch, a paste) boots its own page."""
    log = RequestLog()
    context, page = recorded_page(browser, log)
    goto_settled(page, log, site.url, SETTLED, "ready")
    yield page, log
    context.close()


def test_page_boots_offline_to_ready_and_shows_the_package_version(booted, site) -> None:
    page, _ = booted
    assert text(page, "version") == package_version()
    assert text(page, "msgspec-version") == site.lock()["packages"]["msgspec"]["version"]
    assert page.is_editable('[data-testid="paste-input"]')
    # Loaded with no special headers: a plain static host is enough.
    assert page.evaluate("crossOriginIsolated") is False


def test_the_page_talks_to_the_worker_through_messages_only_and_fills_its_selects_from_the_core(booted) -> None:
    """No global hooks between the page and the worker; the strategy selects hold the core's catalogue."""
    from relayscope.translator import STRATEGY_NAMES

    page, _ = booted
    assert page.evaluate("Object.keys(globalThis).filter((k) => k.startsWith('relayscope'))") == []
    for select in ("strategy", "embed-strategy"):
        options = page.eval_on_selector_all(f"#{select} option", "els => els.map((e) => e.value)")
        assert options == list(STRATEGY_NAMES), select


def test_every_request_during_load_stays_on_the_page_origin(booted) -> None:
    _, request_log = booted
    request_log.assert_same_origin()
    request_log.assert_all_succeeded()


def test_the_request_log_catches_a_request_to_another_origin(open_app, site, request_log) -> None:
    # The check above would pass vacuously if the route let everything through unseen.
    page = open_app(site)
    page.evaluate("fetch('https://cdn.jsdelivr.net/pyodide/').catch(() => null)")
    assert request_log.blocked == ["https://cdn.jsdelivr.net/pyodide/"]


def test_python_comes_from_the_top_level_lock_and_its_wheels(booted, site) -> None:
    paths = booted[1].paths()
    assert "pyodide-lock.json" in paths
    assert "static/vendor/pyodide/pyodide-lock.json" not in paths  # Pyodide's own lock: unused
    lock = site.lock()["packages"]
    for name in ("relayscope", "msgspec"):
        assert lock[name]["file_name"] in paths, f"{name} was not loaded from its wheel"
    # relayscope was imported from the wheel, not from the sources beside the page.
    assert "py/relayscope/__init__.py" not in paths


def test_vendor_holds_only_what_the_page_uses(booted, site) -> None:
    served = {p.relative_to(ROOT).as_posix() for p in VENDOR.rglob("*") if p.is_file()}
    unused = served - set(booted[1].paths())
    # PyScript and the lock beside Pyodide serve static/pyscript.html, not the app
    # (tests/browser/test_pyscript.py shows them used there).
    unused -= {p for p in served if p.startswith("static/vendor/pyscript/")}
    unused -= {"static/vendor/pyodide/pyodide-lock.json"}
    # micropip is in the lock for installs at run time; nothing loads it at boot.
    assert unused == {site.lock()["packages"]["micropip"]["file_name"]}


def test_served_lock_sha256_entries_match_the_served_files(site) -> None:
    lock = site.lock()
    pyodide_lock = json.loads((ROOT / "node_modules/pyodide/pyodide-lock.json").read_bytes())
    assert lock["info"] == pyodide_lock["info"]
    assert set(lock["packages"]) == {"relayscope", "msgspec", "markdown-it-py", "mdurl", "micropip"}
    for name, entry in lock["packages"].items():
        served = site.fetch(entry["file_name"])  # the bytes served, not the files on disk
        assert hashlib.sha256(served).hexdigest() == entry["sha256"], name


def test_dist_folder_boots_when_served_on_its_own(open_app, dist_site, request_log) -> None:
    page = open_app(dist_site)
    assert text(page, "version") == package_version()
    request_log.assert_same_origin()
    request_log.assert_all_succeeded()
    assert not (dist_site.root / "node_modules").exists()


def test_a_wheel_that_does_not_match_the_lock_is_refused(
    open_app, serve, dist_site, tmp_path, request_log
) -> None:
    # Pyodide fetches each wheel with our lock's sha256 as its integrity, and the page ends in
    # "error" with a message instead of staying at "loading".
    broken = tmp_path / "site"
    shutil.copytree(dist_site.root, broken)
    lock = json.loads((broken / "pyodide-lock.json").read_text(encoding="utf-8"))
    lock["packages"]["relayscope"]["sha256"] = "0" * 64
    (broken / "pyodide-lock.json").write_text(json.dumps(lock), encoding="utf-8")
    with serve(broken) as site:
        page = open_app(site, expect="error")
    status = text(page, "status")
    assert "No module named 'relayscope'" in status and "sha256" in status, status
    assert any("Failed to fetch" in line for line in request_log.console), request_log.report()
