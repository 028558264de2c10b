"""The shareable file (relayscope.sharefile) and the CLI around it: a zip any tool opens, that
carries every file of an input under its relative path with the view; read back whole, or as
much of it as is there when it is damaged, cut short, foreign, hostile (names that climb out, a
bomb) or newer; packed redacted with no planted secret left; read by every command as the
folder it came from (``audit`` of the file equals ``audit`` of the folder on the 3-file
sub-agent session ef958aa1); and the same files and view in a link's fragment."""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from _corpus import FIXTURE_SESSIONS, ROOT

from relayscope import sharefile as S
from relayscope.redact import Redactor

ENV = {**os.environ, "PYTHONPATH": str(ROOT / "py")}
FOLDER = FIXTURE_SESSIONS / "handgemacht-ai__claude-code-log/test/test_data/real_projects/-experiments-worktrees"
SESSION = "ef958aa1-0e93-49f0-bb71-150f63befcd1"
PLANTED = ROOT / "tests" / "fixtures" / "redact" / "planted.jsonl"
SECRETS: dict[str, str] = json.loads((PLANTED.parent / "planted-secrets.json").read_text())


def session_files() -> dict[str, bytes]:
    """ef958aa1 as the CLI packs its folder: the main file first, then the sub-agent files."""
    main = FOLDER / f"{SESSION}.jsonl"
    agents = sorted((FOLDER / SESSION / "subagents").glob("agent-*.jsonl"))
    return {str(p.relative_to(FOLDER)): p.read_bytes() for p in [main, *agents]}


def run(*args: str, stdin: bytes | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "relayscope", *args], input=stdin, capture_output=True,
                          env=ENV, timeout=120, check=False, cwd=cwd)


def rezip(members: list[tuple[str, bytes]], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    """A zip of exactly these members, in this order (names as given, however hostile)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as z:
        for name, data in members:
            z.writestr(zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0)), data, compress_type=method)
    return buffer.getvalue()


def members(data: bytes) -> list[tuple[str, bytes]]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return [(i.filename, z.read(i)) for i in z.infolist()]


def with_manifest(data: bytes, change) -> bytes:
    """``data`` with its manifest changed by ``change(dict)``."""
    out = []
    for name, body in members(data):
        if name == S.MANIFEST:
            head = json.loads(body)
            change(head)
            body = json.dumps(head).encode()
        out.append((name, body))
    return rezip(out)


def messages(opened: S.Opened) -> str:
    return "\n".join(map(str, opened.issues))


# -- the format -------------------------------------------------------------------------------


def test_pack_then_unpack_gives_every_file_under_its_path_and_the_view() -> None:
    files = session_files()
    data = S.pack(files, {"strategy": "index", "step": 40, "row": "12", "newkey": "kept"})
    opened = S.unpack(data)
    assert opened.issues == [] and opened.missing == []
    assert list(opened.files) == list(files) and opened.files == files
    assert opened.view == {"strategy": "index", "step": "40", "row": "12", "newkey": "kept"}
    assert opened.version == S.VERSION and opened.redacted is None


def test_it_is_a_plain_zip_with_the_manifest_first_and_packs_the_same_bytes_every_time() -> None:
    files = session_files()
    data = S.pack(files)
    assert data == S.pack(files)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert z.testzip() is None
        names = z.namelist()
        assert names[0] == S.MANIFEST and names[1:] == [S.FILES + p for p in files]
        head = json.loads(z.read(S.MANIFEST))
    assert (head["format"], head["version"]) == ("relayscope-share", 1)
    assert head["files"] == [{"path": p, "size": len(d), "sha256": hashlib.sha256(d).hexdigest()}
                             for p, d in files.items()]
    assert len(data) < sum(map(len, files.values())) / 3  # compressed


def test_packed_redacted_no_planted_secret_is_left_in_files_paths_view_or_bytes() -> None:
    secret = SECRETS["anthropic-key"]
    files = {"-Users-janedoe-proj/s.jsonl": PLANTED.read_bytes(),
             f"-Users-janedoe-proj/s/subagents/agent-{SECRETS['aws-key']}.jsonl": PLANTED.read_bytes()}
    r = Redactor()
    data = S.pack(files, {"q": secret}, r)
    opened = S.unpack(data)
    unpacked = b"".join([*opened.files.values(), *(p.encode() for p in opened.files), json.dumps(opened.view).encode()])
    everything = b"".join(body for _, body in members(data)) + data
    for kind, value in SECRETS.items():
        assert value.encode() not in everything and value.encode() not in unpacked, kind
    assert all("janedoe" not in p for p in opened.files)
    assert opened.view["q"].startswith("[redacted:anthropic-key:")
    assert opened.redacted is not None and opened.redacted["places"] == r.count > 0
    assert set(opened.redacted["kinds"]) >= {"anthropic-key", "aws-key", "user"}


def test_one_redaction_serves_the_file_the_link_and_the_snapshot() -> None:
    from relayscope import snapshot

    r = Redactor()
    shared = S.prepare({"-Users-janedoe-x/s.jsonl": PLANTED.read_bytes()}, {"q": SECRETS["slack-token"]}, r)
    listed = (r.count, list(r.findings))  # what a preview shows
    data, fragment = S.write(shared), S.link(shared, limit=10**7)
    page = snapshot.render(shared.files, view=shared.view)
    assert (r.count, list(r.findings)) == listed  # nothing redacted again, nothing new found
    assert fragment is not None and S.decode_link(fragment) == (shared.files, shared.view)
    opened = S.unpack(data)
    assert (opened.files, opened.view, opened.redacted) == (shared.files, shared.view, shared.redacted)
    for value in (SECRETS["slack-token"], SECRETS["anthropic-key"], "janedoe"):
        assert value not in page and value.encode() not in data and value not in fragment
        assert value.encode() not in b"".join(opened.files.values())


@pytest.mark.parametrize(("name", "expected", "why"), [
    ("a/b.jsonl", "a/b.jsonl", None),
    ("a\\b.jsonl", "a/b.jsonl", None),  # a Windows tool's separator
    ("./a//b.jsonl", "a/b.jsonl", None),
    ("../x.jsonl", "../x.jsonl", "climbs out"),
    ("a/../../x.jsonl", "a/../../x.jsonl", "climbs out"),
    ("a\\..\\..\\x.jsonl", "a/../../x.jsonl", "climbs out"),
    ("/etc/passwd", "/etc/passwd", "absolute"),
    ("C:/Windows/x.jsonl", "C:/Windows/x.jsonl", "absolute"),
    ("C:\\x.jsonl", "C:/x.jsonl", "absolute"),
    ("", "", "empty"),
    ("./", "", "empty"),
    ("a\x00b.jsonl", "a\x00b.jsonl", "control character"),
    ("a\x1b[2Jb.jsonl", "a\x1b[2Jb.jsonl", "control character"),
    ("x" * 2000, "x" * 2000, "longer than"),
])
def test_names_are_relative_paths_or_refused_with_the_reason(name: str, expected: str, why: str | None) -> None:
    path, reason = S.check_path(name)
    assert path == expected
    assert (reason is None) if why is None else (reason is not None and why in reason)


def test_pack_refuses_a_name_it_would_refuse_to_read() -> None:
    with pytest.raises(ValueError, match="climbs out"):
        S.pack({"../x.jsonl": b"{}\n"})
    with pytest.raises(ValueError, match="two files"):
        S.pack({"a/b.jsonl": b"1", "a//b.jsonl": b"2"})
    with pytest.raises(ValueError, match="strings"):
        S.pack({"a.jsonl": b""}, {"row": [1, 2]})


# -- bad input: what is there opens, what is not is listed ----------------------------------


@pytest.mark.parametrize("keep", [0.99, 0.6, 0.3])
def test_a_file_cut_short_still_opens_the_files_it_holds_and_lists_the_rest(keep: float) -> None:
    files = session_files()
    data = S.pack(files)
    cut = data[: int(len(data) * keep)]
    with pytest.raises(zipfile.BadZipFile):
        zipfile.ZipFile(io.BytesIO(cut))  # no directory: zip tools give up here
    opened = S.unpack(cut)
    assert "cut short" in messages(opened)
    assert opened.view == {} or opened.view is not None
    whole = [p for p in files if opened.files.get(p) == files[p]]
    assert whole == list(files)[: len(whole)]  # the files before the cut, intact
    for path in files:
        if path in whole:
            continue
        assert path in opened.missing
        part = opened.files.get(path, b"")
        assert files[path].startswith(part) and (not part or part.endswith(b"\n"))  # complete lines only
    assert opened.missing == [p for p in files if p not in whole]


def test_a_file_cut_inside_its_manifest_says_so() -> None:
    opened = S.unpack(S.pack(session_files())[:200])
    assert opened.files == {}
    assert "manifest is cut short" in messages(opened)


def test_a_wrong_sha256_is_named_and_the_file_still_opens() -> None:
    files = session_files()
    first = next(iter(files))

    def change(head: dict) -> None:
        head["files"][0]["sha256"] = "0" * 64

    opened = S.unpack(with_manifest(S.pack(files), change))
    assert opened.files == files
    (issue,) = opened.issues
    assert issue.path == first and "SHA-256" in issue.message


def test_a_damaged_member_is_named_and_the_others_open() -> None:
    files = session_files()
    data = bytearray(S.pack(files))
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as z:
        info = z.getinfo(S.FILES + list(files)[1])
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    for k in range(200, 260):  # bytes in the middle of its compressed data
        data[start + k] ^= 0x5A
    opened = S.unpack(bytes(data))
    damaged = list(files)[1]
    assert damaged not in opened.files and opened.missing == [damaged]
    assert {p: files[p] for p in files if p != damaged} == opened.files
    assert any(i.path == damaged and "damaged" in i.message for i in opened.issues)


def test_an_unknown_version_is_named_and_read_as_version_1() -> None:
    def change(head: dict) -> None:
        head["version"] = 2

    opened = S.unpack(with_manifest(S.pack(session_files(), {"row": "3"}), change))
    assert opened.files == session_files() and opened.view == {"row": "3"}
    assert "format version 2" in messages(opened) and opened.version == 2


def test_a_zip_that_is_not_ours_gives_its_transcripts_and_says_so() -> None:
    files = session_files()
    foreign = rezip([("README.txt", b"hello"), *((f"export/{p}", d) for p, d in files.items())])
    opened = S.unpack(foreign)
    assert opened.files == {f"export/{p}": d for p, d in files.items()}
    assert "another tool" in messages(opened) and opened.version is None
    empty = S.unpack(rezip([("word/document.xml", b"<w/>")]))
    assert empty.files == {} and "holds no transcript" in messages(empty)


def test_a_manifest_of_another_format_is_named_and_its_files_still_open() -> None:
    def change(head: dict) -> None:
        head["format"] = "something-else"

    opened = S.unpack(with_manifest(S.pack(session_files()), change))
    assert opened.files == session_files() and "not a Relayscope manifest" in messages(opened)


def test_bytes_that_are_no_zip_say_so() -> None:
    opened = S.unpack(b'{"type":"system"}\n')
    assert opened.files == {} and "not a zip file" in messages(opened)
    assert not S.is_sharefile(b'{"ty') and S.is_sharefile(S.pack({"a.jsonl": b""})[:4])


@pytest.mark.parametrize("hostile", ["files/../escape.jsonl", "files//etc/cron.d/x.jsonl", "files/a/../../../x.jsonl",
                                     "files/C:\\Windows\\x.jsonl", "files/a\x1b]0;pwned\x07.jsonl"])
def test_names_that_climb_out_or_are_absolute_are_skipped_and_named(hostile: str) -> None:
    ours = members(S.pack({"ok.jsonl": b"{}\n"}))
    opened = S.unpack(rezip([*ours, (hostile, b'{"x":1}\n')]))
    assert opened.files == {"ok.jsonl": b"{}\n"}
    assert any("skipped" in i.message for i in opened.issues)
    foreign = S.unpack(rezip([(hostile[len("files/"):], b"{}\n"), ("fine.jsonl", b"{}\n")]))
    assert list(foreign.files) == ["fine.jsonl"]


def test_a_name_twice_keeps_the_first() -> None:
    ours = members(S.pack({"a.jsonl": b"1\n"}))
    with pytest.warns(UserWarning):  # zipfile warns of the duplicate name it is asked to write
        data = rezip([*ours, ("files/a.jsonl", b"2\n")])
    opened = S.unpack(data)
    assert opened.files == {"a.jsonl": b"1\n"} and "same name" in messages(opened)


def test_files_listed_but_absent_and_present_but_unlisted_are_named() -> None:
    ours = members(S.pack({"a.jsonl": b"1\n", "b.jsonl": b"2\n"}))
    opened = S.unpack(rezip([ours[0], ours[1], ("files/c.jsonl", b"3\n")]))
    assert opened.files == {"a.jsonl": b"1\n", "c.jsonl": b"3\n"}
    assert opened.missing == ["b.jsonl"]
    text = messages(opened)
    assert "b.jsonl: listed in the manifest but not in the file" in text and "c.jsonl: not listed" in text


def test_a_zip_bomb_is_bounded_by_declared_and_by_real_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(S.names, "MAX_BYTES", 1 << 20)
    bomb = S.pack({"small.jsonl": b"{}\n"})
    data = rezip([*members(bomb), ("files/zeros.jsonl", b"\0" * (8 << 20))])
    assert len(data) < 64 << 10  # 8 MiB in a few KiB
    opened = S.unpack(data)
    assert opened.files == {"small.jsonl": b"{}\n"} and "MiB a shareable file may hold" in messages(opened)
    cut = S.unpack(data[:-30])  # no directory: read by inflating, which stops at the bound
    assert "zeros.jsonl" not in cut.files and "small.jsonl" in cut.files


def test_no_more_than_max_files_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(S.names, "MAX_FILES", 3)
    data = rezip([(f"files/{k}.jsonl", b"{}\n") for k in range(5)] + [(S.MANIFEST, b'{"format":"relayscope-share","version":1}')])
    opened = S.unpack(data)
    assert len(opened.files) == 3 and "more than 3 files" in messages(opened)


def test_a_streamed_zip_cut_short_is_read_past_its_data_descriptors() -> None:
    class Unseekable(io.RawIOBase):
        def __init__(self) -> None:
            self.data = bytearray()

        def writable(self) -> bool:
            return True

        def write(self, b) -> int:  # type: ignore[override]
            self.data += b
            return len(b)

    sink = Unseekable()
    files = session_files()
    with zipfile.ZipFile(sink, "w", zipfile.ZIP_DEFLATED) as z:
        for name, body in members(S.pack(files)):
            with z.open(name, "w") as f:
                f.write(body)
    data = bytes(sink.data)
    assert S.unpack(data).files == files
    last = list(files)[-1]
    opened = S.unpack(data[: len(data) - 1000 - len(files[last]) // 8])
    assert [p for p in files if opened.files.get(p) == files[p]] == list(files)[:-1]
    assert opened.missing == [last]


# -- links ------------------------------------------------------------------------------------


def test_a_link_carries_several_files_and_the_view_when_it_fits() -> None:
    files = {"s.jsonl": b'{"a":1}\n', "s/subagents/agent-1.jsonl": b'{"b":"\xff not utf-8"}\n'}
    fragment = S.encode_link(files, {"row": "3", "strategy": "index"})
    assert fragment is not None and fragment.startswith("v2.") and len(fragment) < 200
    assert S.decode_link("#" + fragment) == (files, {"row": "3", "strategy": "index"})


def test_a_link_is_refused_past_its_budget_and_the_session_needs_the_file() -> None:
    files = session_files()
    assert S.encode_link(files) is None  # 461 KB: past LINK_LIMIT; the page says to send the file
    assert S.encode_link(files, limit=10**7) is not None
    small = {"a.jsonl": b"x" * 1000}
    fragment = S.encode_link(small)
    assert fragment is not None and S.encode_link(small, limit=len(fragment) - 1) is None


def test_a_redacted_link_carries_no_planted_secret() -> None:
    fragment = S.encode_link({"-Users-janedoe-x/s.jsonl": PLANTED.read_bytes()}, {"q": SECRETS["github-token"]}, Redactor())
    assert fragment is not None
    files, view = S.decode_link(fragment)
    carried = b"".join(files.values()) + json.dumps([list(files), view]).encode()
    assert SECRETS["github-token"].encode() not in carried and SECRETS["anthropic-key"].encode() not in carried
    assert b"janedoe" not in carried


@pytest.mark.parametrize("damage", [lambda f: f[:-20], lambda f: f[:3] + "@@" + f[5:], lambda f: "v1.abc",
                                    lambda f: f + "AAAA"])
def test_a_damaged_link_says_so(damage) -> None:
    fragment = S.encode_link({"a.jsonl": b'{"a":1}\n' * 50})
    assert fragment is not None
    with pytest.raises(ValueError, match=r"damaged|not a link"):
        S.decode_link(damage(fragment))


def test_a_link_naming_a_path_that_climbs_out_or_unpacking_too_far_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import base64
    import zlib
    payload = json.dumps({"view": {}, "files": [["../x.jsonl", 3]]}).encode() + b"\nabc"
    fragment = "v2." + base64.urlsafe_b64encode(zlib.compress(payload)).decode().rstrip("=")
    with pytest.raises(ValueError, match="will not open"):
        S.decode_link(fragment)
    monkeypatch.setattr(S.names, "LINK_MAX_BYTES", 1000)
    big = S.encode_link({"a.jsonl": b"y" * 5000})
    assert big is not None
    with pytest.raises(ValueError, match="more than"):
        S.decode_link(big)


# -- the CLI reads it like a folder, and writes it --------------------------------------------


@pytest.fixture(scope="module")
def packed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("share") / f"run{S.SUFFIX}"
    p = run("pack", str(FOLDER), "-o", str(out), "--view", "strategy=index", "--view", "row=12")
    assert p.returncode == 0, p.stderr.decode()
    assert b"packed 3 file(s)" in p.stderr
    return out


def test_pack_of_the_folder_holds_the_session_under_its_layout(packed: Path) -> None:
    opened = S.unpack(packed.read_bytes())
    assert opened.issues == [] and opened.files == session_files()
    assert opened.view == {"strategy": "index", "row": "12"}


def test_audit_of_the_shareable_file_equals_audit_of_the_folder(packed: Path) -> None:
    folder, shared = run("audit", "--json", str(FOLDER)), run("audit", "--json", str(packed))
    assert folder.returncode == shared.returncode == 0
    a = json.loads(folder.stdout.decode().replace(f"{FOLDER}/", ""))
    b = json.loads(shared.stdout.decode().replace(f"{packed}/", ""))
    assert a == b and a[0]["name"] == f"{SESSION}.jsonl" and len(a[0]["files"]) == 3
    text_a = run("audit", str(FOLDER)).stdout.decode().replace(f"{FOLDER}/", "")
    text_b = run("audit", str(packed)).stdout.decode().replace(f"{packed}/", "")
    assert text_a == text_b and "lineage" in text_a


@pytest.mark.parametrize("command", [["translate"], ["translate", "-f", "text"], ["trace"], ["stats"],
                                     ["export", "--format", "chrome-trace"]])
def test_every_command_reads_the_shareable_file_as_the_folder(packed: Path, command: list[str]) -> None:
    folder, shared = run(*command, str(FOLDER)), run(*command, str(packed))
    assert folder.returncode == shared.returncode == 0, shared.stderr.decode()
    assert shared.stdout.decode().replace(f"{packed}/", "") == folder.stdout.decode().replace(f"{FOLDER}/", "")


def test_a_shareable_file_is_read_from_stdin_too(packed: Path) -> None:
    p = run("translate", "-", stdin=packed.read_bytes())
    assert p.returncode == 0
    assert len(p.stdout.splitlines()) == len(run("translate", str(packed)).stdout.splitlines()) > 100


def test_a_damaged_shareable_file_reports_what_is_wrong_and_translates_the_rest(packed: Path, tmp_path: Path) -> None:
    data = packed.read_bytes()
    cut = tmp_path / "cut.relayscope.zip"
    cut.write_bytes(data[: len(data) * 2 // 3])
    p = run("translate", str(cut))
    err = p.stderr.decode()
    assert p.returncode == 1
    assert f"{cut}: the zip's directory is missing" in err and "cut short" in err
    relays = [json.loads(line) for line in p.stdout.splitlines()]
    files = {r.get("file") for r in relays}
    assert f"{cut}/{SESSION}.jsonl" in files  # the main file, whole, still translated
    assert any(f and "agent-" in f for f in files)


def test_a_zip_that_is_not_ours_is_named_on_stderr(tmp_path: Path) -> None:
    foreign = tmp_path / "other.zip"
    foreign.write_bytes(rezip([("notes.txt", b"hi")]))
    p = run("audit", str(foreign))
    assert p.returncode == 1 and b"holds no transcript" in p.stderr


def test_pack_redact_leaves_no_planted_secret_and_repacking_keeps_the_view(tmp_path: Path) -> None:
    out = tmp_path / "red.relayscope.zip"
    p = run("pack", "--redact", str(PLANTED), "-o", str(out), "--view", "row=2")
    assert p.returncode == 0 and b"redacted" in p.stderr
    opened = S.unpack(out.read_bytes())
    body = b"".join(opened.files.values())
    assert SECRETS["anthropic-key"].encode() not in body and SECRETS["github-token"].encode() not in body
    again = tmp_path / "again.relayscope.zip"
    assert run("pack", str(out), "-o", str(again)).returncode == 0
    assert S.unpack(again.read_bytes()).files == opened.files and S.unpack(again.read_bytes()).view == {"row": "2"}
    over = run("pack", str(out), "-o", str(out))
    assert over.returncode == 2 and b"would write over the input" in over.stderr


def test_redact_of_a_shareable_file_writes_a_redacted_shareable_file(tmp_path: Path) -> None:
    plain = tmp_path / "plain.relayscope.zip"
    assert run("pack", str(PLANTED), "-o", str(plain), "--view", "q=" + SECRETS["aws-key"]).returncode == 0
    p = run("redact", str(plain))
    assert p.returncode == 0
    opened = S.unpack(p.stdout)
    assert opened.issues == [] and list(opened.files) == ["planted.jsonl"]
    assert SECRETS["aws-key"] not in opened.view["q"] and SECRETS["aws-key"].encode() not in opened.files["planted.jsonl"]
    folder = tmp_path / "out"
    assert run("redact", str(plain), "-o", str(folder)).returncode == 0
    assert (folder / "planted.jsonl").read_bytes() == opened.files["planted.jsonl"]


def test_follow_refuses_a_shareable_file(packed: Path) -> None:
    p = run("translate", "--follow", str(packed))
    assert p.returncode == 2 and b"does not grow" in p.stderr
