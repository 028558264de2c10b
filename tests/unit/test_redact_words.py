"""A name once found is redacted wherever it stands as a word, in every file of an input, with
the same placeholder; common or short names never shred the text; the user's own words too;
tokens after a "/" in URLs and paths."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from relayscope import sharefile
from relayscope.redact import Redactor, redact_bytes
from relayscope.redact_words import COMMON, eligible


def line(content: str, **more: object) -> bytes:
    return json.dumps({"type": "user", "message": {"content": content}, **more}).encode()


def test_a_home_folders_name_goes_everywhere_it_is_a_word_with_one_placeholder() -> None:
    data = b"\n".join([
        line("see https://github.com/users/quentinz/projects and quentinz/dotfiles, Quentinz wrote it"),
        line("x", cwd="/home/quentinz/src/proj"),
        line("quentinzz and xquentinz are other words;\nquentinz after an escaped newline"),
    ])
    out = redact_bytes(data, r := Redactor())
    assert b"quentinz/" not in out.lower() and b" quentinz" not in out.lower()
    assert out.count(b"[redacted:user:1]") == 5, out
    assert b"quentinzz" in out and b"xquentinz" in out  # no part of a longer word
    assert r.places[("user", "quentinz")] == 5


def test_ls_l_owners_and_prompts_are_found_and_go_everywhere() -> None:
    listing = "total 8\ndrwxr-xr-x  5 mkovacs mkovacs 160 Jan 1 12:00 src\n-rw-r--r-- 1 root wheel 3 Jan 1 x"
    data = b"\n".join([line("mkovacs said hello"), line(listing), line("mkovacs@kv-thinkpad:~/src$ make\nkv-thinkpad up")])
    out = redact_bytes(data, Redactor())
    assert b"mkovacs" not in out and b"kv-thinkpad" not in out, out
    assert b"[redacted:user:1] said hello" in out  # the first line too: the first pass found it
    assert b"root wheel" in out and b"[redacted:host:1]" in out


def test_a_name_found_in_one_file_goes_in_every_file_and_file_name() -> None:
    files = {"proj/a.jsonl": line("nothing but dcalloway in prose"),
             "proj/b.jsonl": line("x", cwd="/Users/dcalloway/app"),
             "proj/dcalloway-notes.jsonl": line("y")}
    shared = sharefile.prepare(files, {"q": "dcalloway"}, Redactor())
    blob = b"".join(shared.files.values()) + "".join(shared.files).encode() + json.dumps(shared.view).encode()
    assert b"dcalloway" not in blob, blob


def test_short_and_common_names_never_shred_the_text() -> None:
    for name in ("dev", "test", "a", "user", "admin", "ubuntu", "root"):
        data = b"\n".join([line("x", cwd=f"/home/{name}/src"),
                           line(f"a dev test of the user admin on ubuntu by root: {name} {name.upper()}")])
        out = redact_bytes(data, Redactor())
        assert b"/home/[redacted:user:1]/src" in out  # where the rule finds it, still replaced
        assert b"a dev test of the user admin on ubuntu by root" in out, (name, out)
    assert not eligible("ab") and not eligible("123") and eligible("bob") and "dev" in COMMON
    assert eligible("ab", own=True) and not eligible("a", own=True)


def test_the_users_own_words_go_everywhere_in_any_case_and_never_inside_a_placeholder() -> None:
    r = Redactor()
    assert r.add_word("Acme") and r.add_word("user") and not r.add_word("x")
    out = redact_bytes(b"\n".join([line("ACME and acme-corp and acmeish", cwd="/home/jdoe/x"),
                                   line("the user jdoe")]), r)
    assert b"[redacted:word:1] and [redacted:word:1]-corp and acmeish" in out, out
    assert out.count(b'"type": "user"') == 2  # what a record is stays
    assert b"[redacted:user:1]" in out and b"[redacted:word:2]" in out  # the placeholder's "user" kept whole
    assert redact_bytes(out, Redactor()) == out  # redacting twice is once


def test_a_word_in_an_id_like_value_stays() -> None:
    out = redact_bytes(b"\n".join([line("x", cwd="/home/jdoe/x", uuid="jdoe-1")]), Redactor())
    assert b'"uuid": "jdoe-1"' in out


def test_tokens_after_a_slash_in_urls_and_paths() -> None:
    gh = "ghp_" + "a1B2" * 9
    aws = "AKIA" + "ABCDEFGHIJKLMNOP"
    out = redact_bytes(line(f"https://x.io/{gh} and s3://bucket/{aws}/key"), Redactor())
    assert gh.encode() not in out and aws.encode() not in out, out


def test_redact_word_and_list_counts_on_the_command_line(tmp_path: Path) -> None:
    f = tmp_path / "s.jsonl"
    f.write_bytes(b"\n".join([line("Initech and initech"), line("x", cwd="/home/pgibbons/a"), line("pgibbons")]) + b"\n")
    p = subprocess.run([sys.executable, "-m", "relayscope", "redact", "--list", "--redact-word", "Initech", str(f)],
                       capture_output=True, check=False)
    out = p.stdout.decode()
    assert p.returncode == 0, p.stderr
    assert "initech" not in out.lower() and "pgibbons" not in out
    places = out.split("places", 1)[1]
    assert "[redacted:word:1]" in places and "[redacted:user:1]" in places
    p = subprocess.run([sys.executable, "-m", "relayscope", "translate", "--redact", "--redact-word", "initech", str(f)],
                       capture_output=True, check=False)
    assert b"nitech" not in p.stdout and b"pgibbons" not in p.stdout + p.stderr
    p = subprocess.run([sys.executable, "-m", "relayscope", "redact", "--redact-word", "x", str(f)],
                       capture_output=True, check=False)
    assert p.returncode == 2 and b"--redact-word" in p.stderr
