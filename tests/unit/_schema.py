"""A schema check for relays, read from docs/relay-events.md (the contract), used over every
relay the tests produce.

The page documents each relay type in a ``## type`` section (Arbiter's three share one) and
the common fields in a table. A relay matches when:

* its type has a section;
* every field it writes is the name of a common field or is named (in backticks) in its
  type's section: a field the code adds without documenting it fails here;
* its JSON decodes back strictly as the relay type (``relay.decode_relay``): every field has
  the documented type (``duration_ms: "slow"`` fails, as a relay built without validation
  would otherwise let through);
* ``seq`` is a non-negative int, ``line`` a positive int (0 only for a relay of an empty
  input's end), ``lane`` a non-empty string.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import msgspec
from _corpus import ROOT

from relayscope import relay as R

DOC = (ROOT / "docs" / "relay-events.md").read_text()


def _sections() -> tuple[set[str], dict[str, set[str]]]:
    common_table = DOC.split("## Common fields", 1)[1].split("\n## ", 1)[0]
    common = set(re.findall(r"^\| `(\w+)`", common_table, re.MULTILINE))
    fields: dict[str, set[str]] = {}
    like: dict[str, str] = {}  # "Fields as `text_delta`, plus ...": a section that extends another
    for chunk in DOC.split("\n## ")[1:]:
        title, _, body = chunk.partition("\n")
        prose = re.sub(r"```.*?```", "", body, flags=re.DOTALL)  # the examples do not count
        named = set(re.findall(r"`(\w+)", prose))
        base = re.search(r"Fields as `(\w+)`", prose)
        for name in re.findall(r"[a-z_]+", title.split("(")[0]):
            if name in R.RELAY_TYPES:
                fields[name] = named
                if base:
                    like[name] = base.group(1)
    for name, base_name in like.items():
        fields[name] |= fields.get(base_name, set())
    return common, fields


COMMON, FIELDS = _sections()


def problems(relay: R.Relay) -> list[str]:
    """What is wrong with one relay, against the documented schema (empty: nothing)."""
    out: list[str] = []
    try:
        data = msgspec.json.encode(relay)
    except (TypeError, ValueError, msgspec.EncodeError) as exc:
        return [f"cannot be encoded: {exc}"]
    obj: dict[str, Any] = msgspec.json.decode(data)
    kind = obj.get("type")
    if kind not in FIELDS or kind not in R.RELAY_TYPES:
        return [f"undocumented relay type {kind!r}"]
    for key in obj:
        if key not in COMMON and key not in FIELDS[kind]:
            out.append(f"{kind}: field {key!r} is not documented")
    try:
        back = R.decode_relay(data)
    except msgspec.ValidationError as exc:
        out.append(f"{kind}: does not match its documented types: {exc}")
    else:
        if back != relay and msgspec.json.encode(back) != data:
            out.append(f"{kind}: does not survive a round trip")
    if not isinstance(obj.get("seq"), int) or obj["seq"] < 0:
        out.append(f"{kind}: bad seq {obj.get('seq')!r}")
    if not isinstance(obj.get("line"), int) or obj["line"] < 0:
        out.append(f"{kind}: bad line {obj.get('line')!r}")
    if not isinstance(obj.get("lane"), str) or not obj["lane"]:
        out.append(f"{kind}: bad lane {obj.get('lane')!r}")
    return out


def check_relays(relays: Iterable[R.Relay], *, contiguous: bool = True) -> None:
    """Assert every relay matches the documented schema (and seqs run 0, 1, 2 ... when
    ``contiguous``), naming the first relays that do not."""
    relays = list(relays)
    bad = [(r, p) for r in relays for p in problems(r)]
    assert not bad, "\n".join(f"seq {r.seq}: {p}" for r, p in bad[:10])
    if contiguous:
        assert [r.seq for r in relays] == list(range(len(relays))), "seqs are not 0, 1, 2 ..."
    internal = [r for r in relays if isinstance(r, R.Error) and r.message.startswith("internal error")]
    assert not internal, f"a bug was caught and reported: {internal[0].message}"
