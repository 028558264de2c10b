"""Build the static web app: fill static/vendor/ and keep pyodide-lock.json in step with it.

Runs in .venv-lock/ (Python >= 3.12, tools pinned by tools/requirements-build.txt); the Makefile
calls it. Subcommands:

  site             build our wheel (reproducibly), download the pinned Pyodide wheels once,
                   rewrite pyodide-lock.json if it is missing or outdated, copy the runtime and
                   the wheels into static/vendor/, then verify every lock entry's sha256.
                   Also PyScript (npm's @pyscript/core dist) into static/vendor/pyscript/ and
                   our lock beside Pyodide, for static/pyscript.html (the app loads neither).
  wheel --out DIR  build only our wheel into DIR (the tests build it twice and compare).
  dist [--out DIR] copy what the built site serves into one folder (default dist/site/) that any
                   static host can serve as it is.

The lock is derived, never hand-edited: `info` comes from Pyodide's own lock (node_modules), the
entries from the wheels themselves via pyodide-lock. Our wheel's entry follows the code; the
pinned third-party wheels must keep the sha256 the committed lock already has (PyPI files never
change under one name, so a mismatch means a corrupt or substituted download: stop).

Must not: fetch anything but the pinned wheels from PyPI, or edit anything under py/.
"""

from __future__ import annotations

import argparse
import filecmp
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import attrs
from pyodide_lock import PyodideLockSpec
from pyodide_lock.spec import InfoSpec
from pyodide_lock.utils import _fix_new_package_deps, package_spec_from_wheel

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "pyodide-lock.json"
VENDOR = ROOT / "static" / "vendor"
BUILD = ROOT / "build" / "site"
NODE = ROOT / "node_modules"
PYODIDE_PKG = NODE / "pyodide"
# PyScript (static/pyscript.html, for docs authors; the app itself runs a plain worker): its
# bundled ES modules and stylesheet, without the source maps, into static/vendor/pyscript/.
PYSCRIPT_DIST = NODE / "@pyscript" / "core" / "dist"
# PyScript's Pyodide (the vendored one) reads the lock beside pyodide.mjs: ours, with each
# file_name made relative to that folder, so micropip finds msgspec and itself there.
PYSCRIPT_LOCK = "pyodide/pyodide-lock.json"

# A fixed timestamp (the earliest a zip can hold), so our wheel's bytes, and so its sha256 in the
# committed lock, depend only on the sources and never on when or where it was built.
SOURCE_DATE_EPOCH = "315532800"

# Lock entries' file_name is relative to the lock, which sits at the site root.
WHEELS_URL_DIR = "static/vendor/wheels/"

# Third-party wheels the app loads from our lock (name -> version). The platform and Python
# version for `pip download` come from Pyodide's lock, so a Pyodide bump cannot pair them wrongly.
PINNED = {"msgspec": "0.23.0", "micropip": "0.11.1",
          # a message's Markdown on the page (web/markdown_view.py): pure Python, with its one dependency
          "markdown-it-py": "4.2.0", "mdurl": "0.1.2"}

# The Pyodide runtime files the browser fetches. Not pyodide.js (the UMD copy), not the source
# maps, not Pyodide's own pyodide-lock.json (the app loads ours). The standard library is served
# compiled to bytecode (compiled_stdlib()).
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm")
STDLIB = "python_stdlib.zip"
COMPILE_BYTECODE = ROOT / "tools" / "compile_bytecode.mjs"
# Bytecode for the .py files of the wheels the page loads at boot, unpacked over site-packages
# by static/js/pyodide-local.mjs (not micropip: nothing loads it at boot).
SITE_PACKAGES_PYC = "wheels/site-packages.pyc.zip"
NOT_AT_BOOT = ("micropip-",)
# What names this runtime (its files and the standard library as served): the page keeps a memory
# snapshot of a booted interpreter under it (static/js/pyodide-local.mjs), so one made with other
# files is never restored.
RUNTIME_ID = "pyodide/runtime-id.json"

def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def say(msg: str) -> None:
    print(f"build_site: {msg}", flush=True)


def fail(msg: str) -> None:
    print(f"build_site: error: {msg}", file=sys.stderr, flush=True)
    raise SystemExit(1)


def pyodide_info() -> InfoSpec:
    lock = PYODIDE_PKG / "pyodide-lock.json"
    if not lock.is_file():
        fail(f"{lock.relative_to(ROOT)} is missing: run `npm ci` (or `make site`)")
    return InfoSpec.from_dict(json.loads(lock.read_text(encoding="utf-8"))["info"])


def build_wheel(out: Path) -> Path:
    """Build our wheel into an empty `out` with hatchling, reproducibly."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    env = {**os.environ, "SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH}
    cmd = [sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(out)]
    run = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if run.returncode:
        fail(f"wheel build failed:\n{run.stdout}{run.stderr}")
    (wheel,) = out.glob("*.whl")
    return wheel


def pinned_wheel(name: str, version: str, info: InfoSpec) -> Path:
    """The pinned wheel, downloaded from PyPI the first time only."""
    cache = BUILD / "downloads" / f"{name}-{version}-{info.abi_version}"
    found = sorted(cache.glob("*.whl")) if cache.is_dir() else []
    if len(found) == 1:
        return found[0]
    major, minor = info.python.split(".")[:2]
    cmd = [
        sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
        "--no-deps", "--only-binary=:all:", "--python-version", f"{major}.{minor}",
        "--platform", f"pyemscripten_{info.abi_version}_{info.arch}", "--platform", "any",
        "-d", str(cache), f"{name}=={version}",
    ]  # fmt: skip
    if cache.exists():
        shutil.rmtree(cache)
    say(f"downloading {name}=={version}")
    run = subprocess.run(cmd, capture_output=True, text=True)
    found = sorted(cache.glob("*.whl"))
    if run.returncode or len(found) != 1:
        fail(f"pip download {name}=={version} failed:\n{run.stdout}{run.stderr}")
    return found[0]


def lock_for(wheels: list[Path], info: InfoSpec) -> dict:
    """The lock (as a dict) that loads exactly `wheels`, derived with pyodide-lock."""
    # pyodide-lock 0.2.1 checks binary wheels against `platform` (emscripten_5_0_3), while wheels
    # for this Pyodide are tagged with the ABI (pyemscripten_2026_0): check against the ABI tag
    # and keep the real info for dependency markers and the output.
    check_info = attrs.evolve(info, platform=f"pyemscripten_{info.abi_version}")
    new = {}
    for wheel in wheels:
        spec = package_spec_from_wheel(wheel, info=check_info)
        new[spec.name] = spec
    # Private in 0.2.1 (pinned): resolves each wheel's Requires-Dist against the set; an
    # unsatisfied dependency raises, so a lock that cannot load is never written.
    _fix_new_package_deps(PyodideLockSpec(info=info, packages={}), new, False)
    for spec in new.values():
        spec.file_name = WHEELS_URL_DIR + Path(spec.file_name).name
    lock = PyodideLockSpec(info=info, packages=dict(sorted(new.items())))
    check_wheel_filenames(lock)
    return lock.to_dict()


def check_wheel_filenames(lock: PyodideLockSpec) -> None:
    """Name and version in each entry agree with its wheel's file name."""
    bare = lock.clone()  # pyodide-lock parses the whole file_name, so drop the folder
    for pkg in bare.packages.values():
        pkg.file_name = Path(pkg.file_name).name
    bare.check_wheel_filenames()


def lock_text(lock: dict) -> str:
    return json.dumps(lock, indent=2, sort_keys=True) + "\n"


def write_lock(lock: dict, ours: str) -> None:
    """Write pyodide-lock.json when it differs; refuse a third-party sha256 that changed."""
    old = json.loads(LOCK.read_text(encoding="utf-8")) if LOCK.is_file() else {}
    for name, entry in lock["packages"].items():
        before = old.get("packages", {}).get(name)
        if name == ours or not before or before["file_name"] != entry["file_name"]:
            continue
        if before["sha256"] != entry["sha256"]:
            fail(
                f"{entry['file_name']} has sha256 {entry['sha256']}, but pyodide-lock.json pins "
                f"{before['sha256']}: the download is not the file the lock was made from. "
                f"Delete build/site/downloads/ to fetch it again; never edit the lock by hand."
            )
    text = lock_text(lock)
    if LOCK.is_file() and LOCK.read_text(encoding="utf-8") == text:
        return
    changed = sorted(
        name
        for name in set(lock["packages"]) | set(old.get("packages", {}))
        if lock["packages"].get(name) != old.get("packages", {}).get(name)
    )
    LOCK.write_text(text, encoding="utf-8")
    what = "written" if not old else f"updated ({', '.join(changed) or 'info'})"
    say(f"pyodide-lock.json {what}: commit it with the change that caused it")


def bytecode(mode: str, out_name: str, inputs: list[Path]) -> Path:
    """Run tools/compile_bytecode.mjs (its header says why) on a zip and wheels, once per set of
    inputs: the result is kept in build/site/bytecode/ under a hash of the inputs and the script."""
    key = hashlib.sha256(
        "".join(sha256(p) for p in [COMPILE_BYTECODE, *inputs]).encode() + mode.encode()
    ).hexdigest()[:16]
    out = BUILD / "bytecode" / mode / key / out_name
    if out.is_file():
        return out
    node = shutil.which("node")
    if node is None:
        fail("node is not on PATH (npm needs it too)")
    if out.parent.parent.exists():
        shutil.rmtree(out.parent.parent)  # earlier inputs
    out.parent.mkdir(parents=True)
    say(f"compiling to bytecode: {mode}")
    tmp = out.with_suffix(".tmp")
    zip_in, *wheels = map(str, inputs)
    cmd = [node, str(COMPILE_BYTECODE), mode, str(PYODIDE_PKG), zip_in, str(tmp), *wheels]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode or not tmp.is_file():
        fail(f"compiling to bytecode ({mode}) failed:\n{run.stdout}{run.stderr}")
    tmp.rename(out)
    return out


def vendor_manifest(wheels: list[Path]) -> dict[str, Path]:
    """static/vendor/ relative path -> source file, for everything the site serves from there."""
    files = {f"pyodide/{name}": PYODIDE_PKG / name for name in PYODIDE_FILES}
    stdlib = PYODIDE_PKG / STDLIB
    if not stdlib.is_file():
        fail(f"{stdlib.relative_to(ROOT)} is missing: run `npm ci` (or `make site`)")
    files[f"pyodide/{STDLIB}"] = stdlib = bytecode("stdlib", STDLIB, [stdlib])
    files[RUNTIME_ID] = runtime_id([files[f"pyodide/{name}"] for name in PYODIDE_FILES] + [stdlib])
    boot = [w for w in wheels if not w.name.startswith(NOT_AT_BOOT)]
    files[SITE_PACKAGES_PYC] = bytecode("site-packages", Path(SITE_PACKAGES_PYC).name, [stdlib, *boot])
    files.update({f"wheels/{w.name}": w for w in wheels})
    files.update(pyscript_files())
    missing = [str(src) for src in files.values() if not src.is_file()]
    if missing:
        fail("missing: " + ", ".join(missing) + " (run `npm ci`)")
    return files


def runtime_id(files: list[Path]) -> Path:
    """static/vendor/pyodide/runtime-id.json: {"id": a hash of the runtime's files}."""
    digest = hashlib.sha256("".join(sha256(p) for p in files).encode()).hexdigest()[:16]
    out = BUILD / "runtime-id.json"
    text = json.dumps({"id": digest}) + "\n"
    if not out.is_file() or out.read_text(encoding="utf-8") != text:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    return out


def pyscript_files() -> dict[str, Path]:
    """static/vendor/pyscript/: @pyscript/core's dist, as npm installed it (no source maps)."""
    if not (PYSCRIPT_DIST / "core.js").is_file():
        fail(f"{PYSCRIPT_DIST.relative_to(ROOT)} is missing: run `npm ci` (or `make site`)")
    return {
        f"pyscript/{src.name}": src
        for src in sorted(PYSCRIPT_DIST.iterdir())
        if src.suffix in (".js", ".css") and src.name != "service-worker.js"
    }


def pyscript_lock(lock: dict) -> Path:
    """Our lock as static/vendor/pyodide/pyodide-lock.json: the same entries, each file_name
    relative to static/vendor/pyodide/ (where loadPyodide looks when given only indexURL)."""
    moved = json.loads(json.dumps(lock))
    for entry in moved["packages"].values():
        entry["file_name"] = "../wheels/" + Path(entry["file_name"]).name
    out = BUILD / "pyscript" / "pyodide-lock.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    text = lock_text(moved)
    if not out.is_file() or out.read_text(encoding="utf-8") != text:
        out.write_text(text, encoding="utf-8")
    return out


def sync_tree(dest_root: Path, files: dict[str, Path]) -> None:
    """Make dest_root hold exactly `files`, copying only what changed."""
    for rel, src in files.items():
        dest = dest_root / rel
        if dest.is_file() and filecmp.cmp(src, dest, shallow=False):
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)
    for path in sorted(dest_root.rglob("*"), reverse=True):
        rel = path.relative_to(dest_root).as_posix()
        if path.is_file() and rel not in files:
            path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()


def verify(root: Path) -> PyodideLockSpec:
    """Check the lock served from `root` against the files served beside it."""
    lock_path = root / "pyodide-lock.json"
    lock = PyodideLockSpec.from_json(lock_path)  # schema check: unknown keys are refused
    check_wheel_filenames(lock)
    if lock.info != pyodide_info():
        fail(f"{lock_path}: info differs from Pyodide's own lock: run `make site`")
    for name, pkg in lock.packages.items():
        path = root / pkg.file_name
        if not path.is_file():
            fail(f"{lock_path}: {name}: {pkg.file_name} is missing: run `make site`")
        if sha256(path) != pkg.sha256:
            fail(f"{lock_path}: {name}: sha256 of {pkg.file_name} differs: run `make site`")
    return lock


def cmd_site() -> None:
    info = pyodide_info()
    ours = build_wheel(BUILD / "wheel")
    wheels = [ours] + [pinned_wheel(n, v, info) for n, v in PINNED.items()]
    name = ours.name.split("-")[0]
    lock = lock_for(wheels, info)
    write_lock(lock, ours=name)
    sync_tree(VENDOR, {**vendor_manifest(wheels), PYSCRIPT_LOCK: pyscript_lock(lock)})
    verified = verify(ROOT)
    size = sum(p.stat().st_size for p in VENDOR.rglob("*") if p.is_file())
    say(
        f"static/vendor/ ready ({size / 1e6:.1f} MB); pyodide-lock.json verified: "
        + ", ".join(f"{p.name} {p.version} {p.sha256[:12]}" for p in verified.packages.values())
    )


def cmd_wheel(out: Path) -> None:
    wheel = build_wheel(out)
    print(f"{wheel} {sha256(wheel)}")


def dist_files() -> dict[str, Path]:
    """Everything the page loads: the markup, the lock, static/ (vendor too), its Python."""
    files = {"index.html": ROOT / "index.html", "pyodide-lock.json": LOCK}
    for base in ("static", "py/relayscope/web"):
        for src in sorted((ROOT / base).rglob("*")):
            wanted = base == "static" or src.suffix == ".py"
            if wanted and src.is_file() and "__pycache__" not in src.parts:
                files[src.relative_to(ROOT).as_posix()] = src
    return files


def cmd_dist(out: Path) -> None:
    verify(ROOT)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        # GitHub Pages runs Jekyll unless told not to, and Jekyll drops files starting with "_".
        marker = Path(tmp) / ".nojekyll"
        marker.touch()
        sync_tree(out, {**dist_files(), ".nojekyll": marker})
    verify(out)
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    say(f"{out} ready ({size / 1e6:.1f} MB): copy it as it is to any static host")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("site")
    wheel = sub.add_parser("wheel")
    wheel.add_argument("--out", type=Path, required=True)
    dist = sub.add_parser("dist")
    dist.add_argument("--out", type=Path, default=ROOT / "dist" / "site")
    args = parser.parse_args(argv)
    if args.cmd == "site":
        cmd_site()
    elif args.cmd == "wheel":
        cmd_wheel(args.out)
    else:
        cmd_dist(args.out.resolve())


if __name__ == "__main__":
    main()
