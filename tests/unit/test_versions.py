"""The versions we test with: pinned, so a fresh clone tests what the last one did, and the page's
msgspec inside the range the CLI is tested at (the lowest declared, the newest pinned)."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]


def pyproject() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def pins(path: Path) -> dict[str, Version]:
    found: dict[str, Version] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"{path.name}: {line!r} is not pinned with =="
            found[canonicalize_name(name)] = Version(version)
    return found


def requirements() -> list[Requirement]:
    project = pyproject()["project"]
    assert isinstance(project, dict)
    return [Requirement(r) for r in [*project["dependencies"], *project["optional-dependencies"]["dev"]]]


def msgspec_range() -> tuple[Version, Version]:
    (req,) = [r for r in requirements() if r.name == "msgspec"]
    (lowest,) = [Version(s.version) for s in req.specifier if s.operator == ">="]
    return lowest, pins(ROOT / "tools" / "constraints.txt")["msgspec"]


def test_every_requirement_of_the_test_environment_is_pinned_within_its_range() -> None:
    pinned = pins(ROOT / "tools" / "constraints.txt")
    for req in requirements():
        name = canonicalize_name(req.name)
        assert name in pinned, f"{req.name} is not in tools/constraints.txt: run make lock"
        assert req.specifier.contains(pinned[name], prereleases=True), (req, pinned[name])


def test_the_phoenix_environment_is_pinned_too() -> None:
    pinned = pins(ROOT / "tools" / "phoenix" / "constraints.txt")
    for line in (ROOT / "tools" / "phoenix" / "requirements.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            req = Requirement(line)
            assert req.specifier.contains(pinned[canonicalize_name(req.name)])


def test_the_page_runs_a_msgspec_the_cli_is_tested_with() -> None:
    lowest, newest = msgspec_range()
    lock = json.loads((ROOT / "pyodide-lock.json").read_text(encoding="utf-8"))
    page = Version(lock["packages"]["msgspec"]["version"])
    build = re.search(r'"msgspec": "([0-9.]+)"', (ROOT / "tools" / "build_site.py").read_text())
    assert build and Version(build.group(1)) == page, "build_site.py's pin and the committed lock differ"
    assert lowest <= page <= newest, f"the page's msgspec {page} is outside the tested {lowest}..{newest}"


def test_the_docs_name_the_versions_side_by_side() -> None:
    lowest, newest = msgspec_range()
    lock = json.loads((ROOT / "pyodide-lock.json").read_text(encoding="utf-8"))
    text = (ROOT / "docs" / "testing.md").read_text(encoding="utf-8")
    section = text.split("## Versions", 1)[1].split("\n## ", 1)[0]
    for version in (lowest, newest, Version(lock["packages"]["msgspec"]["version"])):
        assert str(version) in section, f"docs/testing.md's Versions section does not name {version}"
