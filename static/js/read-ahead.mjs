// A file read a slice at a time, ahead of the one who reads it (the worker translating it).
// readAhead(file, sliceBytes).next() gives the slices in order (ArrayBuffers; the last may be
// shorter, an empty file gives one empty slice), while the slices after it are already being read.
//
// Why a worker of its own: the browser hands a worker a file's data only between the worker's
// tasks, and the worker that translates runs Python for 35 ms between two of them: a read it
// starts before translating a slice has made no progress when it is done (measured: the waits
// added up to reading the whole file). A worker that does nothing else reads at full speed and
// hands each slice over (transferred, not copied). One such reader serves every file of the
// visit: startReader() starts it while Python boots (a module worker takes 10-40 ms to start,
// which a reader made per file cost each load at its second slice); each file's requests carry
// its own number, so what a reader closed meanwhile still had in flight is dropped when it comes.
// Where a worker cannot start one (an older browser without nested workers) or the reader fails,
// the slices are read here, one after another; so is the first (it is awaited at once).
// Must not: read more than AHEAD slices beyond the one asked for (a file may be gigabytes).
const AHEAD = 2;

let reader = null; // the reader worker, shared by every file; null: read here
let started = false;
let files = 0; // numbers each readAhead's requests
const pending = new Map(); // "file:start" -> {resolve, reject, read}: read it here instead

// The reader failed (its script could not load, say): what it was asked for is read here, and so
// is everything after.
function fallBack() {
  reader?.terminate();
  reader = null;
  for (const { resolve, reject, read } of pending.values()) read().then(resolve, reject);
  pending.clear();
}

// (Re)start the shared reader; readAhead starts it on first use when nobody did.
export function startReader() {
  reader?.terminate();
  reader = null;
  started = true;
  try {
    reader = new Worker(new URL("./read-slices.mjs", import.meta.url), { type: "module" });
  } catch {
    return; // no nested workers: read in this thread
  }
  reader.onmessage = ({ data }) => {
    const key = `${data.id}:${data.start}`;
    const waiter = pending.get(key);
    pending.delete(key);
    if (data.error) waiter?.reject(new Error(data.error));
    else waiter?.resolve(data.buffer);
  };
  reader.onerror = (event) => {
    event.preventDefault();
    fallBack();
  };
}

export function readAhead(file, sliceBytes) {
  if (!started) startReader();
  const id = ++files;
  const size = Math.max(file.size, 1);
  const slices = new Map(); // start -> Promise<ArrayBuffer>
  const mine = new Set(); // this file's keys in pending
  let asked = 0;
  let given = 0;
  const readHere = (start) => file.slice(start, start + sliceBytes).arrayBuffer();
  const ask = () => {
    const start = asked;
    asked += sliceBytes;
    // The first slice is read here: it is awaited at once, and a hop to the reader costs a task.
    if (!reader || start === 0) {
      slices.set(start, readHere(start));
      return;
    }
    const key = `${id}:${start}`;
    mine.add(key);
    slices.set(start, new Promise((resolve, reject) => pending.set(key, { resolve, reject, read: () => readHere(start) })));
    reader.postMessage({ id, file, start, end: start + sliceBytes });
  };
  return {
    next() {
      if (given >= size) return Promise.resolve(new ArrayBuffer(0));
      while (asked < size && asked <= given + AHEAD * sliceBytes) ask();
      const slice = slices.get(given);
      slices.delete(given);
      mine.delete(`${id}:${given}`);
      given += sliceBytes;
      return slice;
    },
    close() {
      for (const key of mine) pending.delete(key); // nobody waits for these any more
      mine.clear();
      slices.clear();
    },
  };
}
