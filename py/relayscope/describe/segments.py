"""Assistant text as prose and fenced code blocks, every newline kept."""

from __future__ import annotations

from .base import _FENCE, Segment


def prose(text: str) -> tuple[Segment, ...]:
    """Text split into prose and fenced code blocks (``` or ~~~); every character kept except
    the fence lines themselves. An unclosed fence runs to the end."""
    out: list[Segment] = []
    buf: list[str] = []
    fence: str | None = None
    lang = ""
    for line in text.split("\n"):
        m = _FENCE.match(line)
        if fence is None and m:
            if buf:
                out.append(Segment("text", "\n".join(buf)))
            buf, fence, lang = [], m.group(1), m.group(2)
        elif fence is not None and line.strip().startswith(fence[0] * len(fence)) and not line.strip().strip(fence[0]):
            out.append(Segment("code", "\n".join(buf), lang))
            buf, fence = [], None
        else:
            buf.append(line)
    if fence is not None:
        out.append(Segment("code", "\n".join(buf), lang))
    elif buf and (len(buf) > 1 or buf[0] or not out):
        out.append(Segment("text", "\n".join(buf)))
    return tuple(out)


