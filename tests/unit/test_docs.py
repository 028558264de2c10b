"""docs/relay-events.md: every example decodes as the relay it claims to be, and every
relay type has one."""

from __future__ import annotations

import json
import re

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
