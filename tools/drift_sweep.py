"""How much of a corpus is drift (record types, system subtypes, top-level fields relayscope does
not know): with this version's meaning table, and with what relayscope knew before it (``--before``:
the types and subtypes the translator acted on or the page hid as bookkeeping, the fields its wire
Structs read).

    python tools/drift_sweep.py ../shared/corpus/real            # now
    python tools/drift_sweep.py ../shared/corpus/real --before   # before the newest shapes were known
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))

from relayscope import drift, meaning  # noqa: E402

# What relayscope 0.1.0 knew before the meaning table: the five types the translator acts on, the
# session types its session translator names, the page's bookkeeping set, system init/result.
BEFORE_RECORDS = {"assistant", "user", "result", "system", "stream_event", "summary", "progress", "queue-operation",
                  "file-history-snapshot", "attachment", "mode", "last-prompt", "ai-title"}
BEFORE_SYSTEM = {"init", "result", "hook_progress", "hook_started", "hook_response"}
NEW_EVENT_FIELDS = {"thinking_display", "thinking_duration_ms", "estimated_tokens"}  # added to wire.Event now


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("root", type=Path)
    ap.add_argument("--before", action="store_true")
    args = ap.parse_args()
    if args.before:
        drift.RECORDS = {k: v for k, v in meaning.RECORDS.items() if k in BEFORE_RECORDS}  # type: ignore[misc]
        drift.SYSTEM = {k: v for k, v in meaning.SYSTEM.items() if k in BEFORE_SYSTEM}  # type: ignore[misc]
        drift.FIELDS = frozenset(f for f in drift.Event.__struct_fields__ if f not in NEW_EVENT_FIELDS)  # type: ignore[misc]
    files = sorted(p for p in args.root.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".log", ".ndjson"))
    types: Counter[str] = Counter()
    fields: Counter[str] = Counter()
    records = inputs = 0
    for path in files:
        report = drift.drift_of(path.read_bytes().split(b"\n"))
        records += report.records
        inputs += bool(report.records)
        types.update(report.types)
        fields.update(report.fields)
    print(f"{len(files)} inputs, {inputs} with drift, {records} records with something new")
    print("types:", ", ".join(f"{k} ({v})" for k, v in types.most_common()) or "none")
    print("fields:", ", ".join(f"{k} ({v})" for k, v in fields.most_common()) or "none")
    return 0


if __name__ == "__main__":
    sys.exit(main())
