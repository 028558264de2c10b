"""Unit-test set-up: every relay any unit test makes a translator produce is checked against
docs/relay-events.md (``_schema``), not only in the tests that look at relays."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from _schema import problems

from relayscope.formats.sse import FleetTranslator
from relayscope.translator import Translator

# Every relay leaves through one of these (the session translator feeds through Translator.feed
# and finishes through Translator.finish).
_EXITS = [(Translator, "feed"), (Translator, "finish"), (FleetTranslator, "feed_line"), (FleetTranslator, "finish")]


def _checked(original: Callable[..., Any]) -> Callable[..., Any]:
    def exit_(self: Any, *args: Any, **kwargs: Any) -> Any:
        out = original(self, *args, **kwargs)
        for relay in out:
            found = problems(relay)
            assert not found, f"relay {relay!r} does not match docs/relay-events.md: {found}"
        return out

    return exit_


@pytest.fixture(autouse=True)
def every_relay_matches_the_documented_schema(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for cls, name in _EXITS:
        monkeypatch.setattr(cls, name, _checked(cls.__dict__[name]))
    yield
