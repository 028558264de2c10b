"""The step-through's content array as web/panels.py draws it (on remote.py's mirror of the DOM)."""

from __future__ import annotations

from relayscope.web import panels
from relayscope.web.dom import h
from relayscope.web.model import StepView


def step(content: list[str], before: int | None, after: int | None) -> StepView:
    return StepView(index=0, file=None, line=1, kind="assistant", lane="main", decision="skip", reason="",
                    reset=None, fp=None, prev_fp=None, fp_changed=False, before=None, after=None, seqs=[],
                    raw="{}", content=content, pointer_before=before, pointer_after=after, blocks=[], note=None,
                    fates=[], fp_mark=None, prev_fp_mark=None)


def items(s: StepView) -> list[str]:
    ol = h("ol")
    panels._content(ol, s)
    return [" ".join(str(c.textContent) for c in li.children) or str(li.textContent) for li in ol.children]


def test_places_past_the_arrays_end_are_one_item_with_their_count() -> None:
    drawn = items(step(["text:a", "text:b"], before=60, after=60))
    ends = [t for t in drawn if "end of the array" in t]
    assert ends[0] == "(end of the array) × 58"  # places 2 to 59, once
    assert len(drawn) == 2 + 1 + 1  # the two blocks, the run of 58, the place the index points at
    assert "index before" in drawn[-1] and "index after" in drawn[-1]


def test_a_single_place_past_the_end_is_listed_as_it_was() -> None:
    drawn = items(step(["text:a"], before=1, after=None))
    assert drawn[-1].startswith("(end of the array)") and "×" not in drawn[-1]
