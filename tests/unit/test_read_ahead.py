"""static/js/read-ahead.mjs under Node: the slices come back whole and in order, at most AHEAD
read ahead, with a reader worker, without one (no nested workers), and when the reader fails
(then what it was asked for is read in place). The page's own use of it (a big file cut inside
a character at every slice boundary) is proven in tests/browser/test_app_input.py."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from _corpus import ROOT

SCRIPT = r"""
const { readAhead } = await import(process.argv[1]);
const AHEAD = 2;

// A reader worker as read-slices.mjs is: reads what it is asked for and posts it back.
let asked = 0, maxOut = 0, out = 0;
class Reader {
  constructor() { asked = 0; out = 0; }
  postMessage({ file, start, end }) {
    asked++; out++; maxOut = Math.max(maxOut, out);
    file.slice(start, end).arrayBuffer().then((buffer) => { out--; this.onmessage({ data: { start, buffer } }); });
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
  for (const size of [0, 1, 999, 1000, 1001, 10_007]) {
    maxOut = 0;
    const got = await readAll(new Blob([bytes.subarray(0, size)]), 1000);
    if (!got.equals(Buffer.from(bytes.subarray(0, size)))) throw new Error(`${name}, ${size} bytes: wrong bytes`);
    if (maxOut > AHEAD + 1) throw new Error(`${name}: ${maxOut} slices read at once`);
  }
}
console.log("ok");
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed (make site needs it)")
def test_slices_come_back_whole_and_in_order_with_or_without_a_reader() -> None:
    module = (ROOT / "static" / "js" / "read-ahead.mjs").as_uri()
    run = subprocess.run(["node", "--input-type=module", "-e", SCRIPT, module], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr or run.stdout
