// Parts of files read by a pool of reader workers (read-slices.mjs), for the many small reads of
// a listing (a file's first and last 64 KB, thousands of files) and the whole files a search reads.
// readRange(file, start, end) gives a Promise of the bytes (an ArrayBuffer, transferred).
//
// Why a pool: a browser read of a picked file costs about a millisecond whatever its size (the
// file is opened for each read, out of this process), and reads started from one thread do not
// overlap much: 3,700 reads of a 2,000-session library took 3.0 s with 64 promises in flight in
// one worker, 2.2 s spread over 2 reader workers and 1.8 s over 4, each reading synchronously
// (FileReaderSync: it blocks only the reader, which does nothing else). Each request goes to
// the reader with the fewest in flight. Where readers cannot start (no nested workers) or one
// fails, what it had in flight and everything after is read here.
// Must not: keep a file's bytes once handed over.
const READERS = Math.min(4, Math.max(2, globalThis.navigator?.hardwareConcurrency ?? 2));

let pool = null; // [{worker, inFlight}], [] once readers cannot be used: read here
let asked = 0;
const pending = new Map(); // request id -> {resolve, reject, read}

const readHere = (file, start, end) => file.slice(start, end).arrayBuffer();

function fallBack() {
  for (const r of pool ?? []) r.worker.terminate();
  pool = [];
  for (const { resolve, reject, read } of pending.values()) read().then(resolve, reject);
  pending.clear();
}

function startPool() {
  pool = [];
  try {
    for (let k = 0; k < READERS; k++) {
      const worker = new Worker(new URL("./read-slices.mjs", import.meta.url), { type: "module" });
      const reader = { worker, inFlight: 0 };
      worker.onmessage = ({ data }) => {
        const waiter = pending.get(data.id);
        pending.delete(data.id);
        reader.inFlight -= 1;
        if (data.error) waiter?.reject(new Error(data.error));
        else waiter?.resolve(data.buffer);
      };
      worker.onerror = (event) => {
        event.preventDefault();
        fallBack();
      };
      pool.push(reader);
    }
  } catch {
    fallBack(); // no nested workers: read in this thread
  }
}

export function readRange(file, start, end) {
  if (pool === null) startPool();
  if (!pool.length) return readHere(file, start, end);
  const reader = pool.reduce((a, b) => (b.inFlight < a.inFlight ? b : a));
  const id = `range${++asked}`;
  reader.inFlight += 1;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, read: () => readHere(file, start, end) });
    reader.worker.postMessage({ id, file, start, end });
  });
}
