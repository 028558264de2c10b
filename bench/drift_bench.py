"""What the drift report costs: ``relayscope translate`` on the real stream-json corpus repeated to
about N MB (each copy of a capture its own file, named on the command line), three ways in the same
run, best of R each, interleaved, in CPU seconds of this process (the machine is shared):

* ``without``: no drift report (the translators get no ``Drift``);
* ``counted``: as shipped: the translator decodes each line through ``Drift.decode`` (one decode
  for a line with nothing new; a line with a rarer or new field is read again by ``Drift.add``);
* ``second pass``: the first way drift was made: each line decoded again for its top-level keys
  (``Drift.add``) after the translator has decoded it (``_stream``; ``report_drift_files`` for
  files translated together), kept here as the reference to compare with.

Prints each time and its ratio to ``without``; then the same three ways for the page's model
(``Workspace.load`` of the captures joined into one text; ``second pass`` is the pass the page's
notice made after the load, in one go: ``Drift.add`` over every line, with the longest slice of
the load beside it).

    python bench/drift_bench.py [--mb 25] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))

from _inputs import stream_json_dir

from relayscope import analysis, cli, drift, multifile
from relayscope.web import model

MODES = ("without", "counted", "second pass")


def _patch(mode: str, real: dict[str, Any]) -> None:
    """Set the package up for ``mode`` (and back, with ``counted``)."""
    analysis.Analyzer._start = real["start"]  # type: ignore[method-assign]
    analysis.Analyzer.feed_line = real["feed_line"]  # type: ignore[method-assign]
    cli.report_drift_files = real["files"]
    if mode == "counted":
        return

    def start(self: analysis.Analyzer, fmt: str) -> None:
        real["start"](self, fmt)
        assert self.translator is not None
        self.translator.drift = None

    analysis.Analyzer._start = start  # type: ignore[method-assign]
    if mode == "second pass":  # as cli._stream did: a.feed_line(line), then drift.add(n, line)
        def feed_line(self: analysis.Analyzer, line: str | bytes) -> list[Any]:
            out = real["feed_line"](self, line)
            d = self.__dict__.setdefault("_second", drift.Drift())
            d.add(self.lines, line)
            return out  # type: ignore[no-any-return]

        analysis.Analyzer.feed_line = feed_line  # type: ignore[method-assign]

    def files(data: dict[str, bytes], results: list[multifile.SessionResult]) -> None:
        if mode == "second pass":
            for content in data.values():
                d = drift.Drift()
                for number, line in enumerate(content.split(b"\n"), 1):
                    d.add(number, line)
                cli.report_drift("", d)

    cli.report_drift_files = files


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=25)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    captures = [p.read_bytes() for p in sorted(stream_json_dir().glob("*.jsonl"))]
    copies = max(1, round(args.mb * 1e6 / sum(map(len, captures))))
    real = {"start": analysis.Analyzer._start, "feed_line": analysis.Analyzer.feed_line,
            "files": cli.report_drift_files}
    with tempfile.TemporaryDirectory() as tmp:
        names = []  # each copy of a capture its own file: its own stream, as a new run would be
        for k in range(copies):
            for i, capture in enumerate(captures):
                names.append(str(Path(tmp) / f"{k}-{i}.jsonl"))
                Path(names[-1]).write_bytes(capture)
        size = copies * sum(map(len, captures))
        best: dict[str, float] = {}
        for _ in range(args.runs):
            for mode in MODES:
                _patch(mode, real)
                saved_out, saved_err = os.dup(1), os.dup(2)
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, 1)
                os.dup2(null, 2)
                try:
                    start = time.process_time()
                    cli.main(["translate", *names])
                    took = time.process_time() - start
                finally:
                    os.dup2(saved_out, 1)
                    os.dup2(saved_err, 2)
                    os.close(null)
                best[mode] = min(best.get(mode, took), took)
        _patch("counted", real)
    page = _page(b"".join(c if c.endswith(b"\n") else c + b"\n" for c in captures) * copies, args.runs, real)
    base = best["without"]
    print(f"{size / 1e6:.1f} MB, {len(names)} files, best of {args.runs}: "
          + ", ".join(f"{m} {best[m]:.3f} s ({best[m] / base:.2f}x)" for m in MODES))
    base = page["without"][0]
    print("page load: " + ", ".join(f"{m} {page[m][0]:.3f} s ({page[m][0] / base:.2f}x; longest slice "
                                     f"{page[m][1] * 1e3:.0f} ms)" for m in MODES))
    return 0


def _page(data: bytes, runs: int, real: dict[str, Any]) -> dict[str, tuple[float, float]]:
    """Best load time and its longest slice (both CPU seconds) for each way, in the model."""
    best: dict[str, tuple[float, float]] = {}
    for _ in range(runs):
        for mode in MODES:
            _patch(mode if mode != "second pass" else "without", real)
            ws = model.Workspace()
            start = last = time.process_time()
            longest = 0.0
            for _p in ws.load(data):
                now = time.process_time()
                longest, last = max(longest, now - last), now
            if mode == "second pass":  # as newest.drift_view did after the load: one go
                now = time.process_time()
                d = drift.Drift()
                for number, line in enumerate(ws._input.lines if ws._input else [], 1):
                    d.add(number, line)
                longest = max(longest, time.process_time() - now)
            took = time.process_time() - start
            if mode not in best or took < best[mode][0]:
                best[mode] = (took, longest)
    _patch("counted", real)
    return best


if __name__ == "__main__":
    sys.exit(main())
