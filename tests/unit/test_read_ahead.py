"""static/js/read-ahead.mjs under Node: the slices come back whole and in order, at most AHEAD
read ahead, with a reader worker, without one (no nested workers), and when the reader fails
(then what it was asked for is read in place); one reader worker serves every file, and what a
file closed early still had in flight goes to nobody else. The page's own use of it (a big file cut inside
a character at every slice boundary) is proven in tests/browser/test_app_input.py."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from _corpus import ROOT

SCRIPT = r"""
const { readAhead, startReader } = await import(process.argv[1]);
const AHEAD = 2;

// A reader worker as read-slices.mjs is: reads what it is asked for and posts it back.
let asked = 0, maxOut = 0, out = 0, made = 0;
class Reader {
  constructor() { asked = 0; out = 0; made++; }
  postMessage({ id, file, start, end }) {
    asked++; out++; maxOut = Math.max(maxOut, out);
    file.slice(start, end).arrayBuffer().then((buffer) => { out--; this.onmessage({ data: { id, start, buffer } }); });
  }
  terminate() {}
}
// A reader whose script cannot load: fails after it is first asked.
class Broken {
  postMessage() { setTimeout(() => this.onerror({ preventDefault() {} }), 0); }
  terminate() {}
}

async function readAll(blob, slice) {
  const reader = readAhead(blob, slice);
  const parts = [];
  for (let at = 0; at < Math.max(blob.size, 1); at += slice) parts.push(new Uint8Array(await reader.next()));
  const after = await reader.next();
  reader.close();
  if (after.byteLength !== 0) throw new Error("a slice after the end");
  return Buffer.concat(parts);
}

const bytes = new Uint8Array(10_007).map((_, i) => (i * 7919) % 251);
for (const [name, Worker] of [["no worker", undefined], ["reader", Reader], ["broken reader", Broken]]) {
  globalThis.Worker = Worker;
  startReader();
  for (const size of [0, 1, 999, 1000, 1001, 10_007]) {
    maxOut = 0;
    const got = await readAll(new Blob([bytes.subarray(0, size)]), 1000);
    if (!got.equals(Buffer.from(bytes.subarray(0, size)))) throw new Error(`${name}, ${size} bytes: wrong bytes`);
    if (maxOut > AHEAD + 1) throw new Error(`${name}: ${maxOut} slices read at once`);
  }
}

// One reader for every file of the visit; a file closed with slices in flight, then another file
// of the same size read whole: its slices are its own.
globalThis.Worker = Reader;
made = 0;
startReader();
const other = new Uint8Array(10_007).fill(7);
const early = readAhead(new Blob([bytes]), 1000);
await early.next();
early.next(); // asked for, never awaited
early.close();
const got = await readAll(new Blob([other]), 1000);
if (!got.equals(Buffer.from(other))) throw new Error("a closed file's slice went to the next file");
await readAll(new Blob([bytes]), 1000);
if (made !== 1) throw new Error(`${made} reader workers for three files`);
console.log("ok");
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed (make site needs it)")
def test_slices_come_back_whole_and_in_order_with_or_without_a_reader() -> None:
    module = (ROOT / "static" / "js" / "read-ahead.mjs").as_uri()
    run = subprocess.run(["node", "--input-type=module", "-e", SCRIPT, module], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr or run.stdout
