// A file read a slice at a time, ahead of the one who reads it (the worker translating it).
// readAhead(file, sliceBytes).next() gives the slices in order (ArrayBuffers; the last may be
// shorter, an empty file gives one empty slice), while the slices after it are already being read.
//
// Why a worker of its own: the browser hands a worker a file's data only between the worker's
// tasks, and the worker that translates runs Python for 35 ms between two of them: a read it
// starts before translating a slice has made no progress when it is done (measured: the waits
// added up to reading the whole file). A worker that does nothing else reads at full speed and
// hands each slice over (transferred, not copied). Where a worker cannot start one (an older
// browser without nested workers) or the reader fails, the slices are read here, one after
// another; so is the first (it is awaited at once, while the reader starts).
// Must not: read more than AHEAD slices beyond the one asked for (a file may be gigabytes).
const AHEAD = 2;

export function readAhead(file, sliceBytes) {
  const size = Math.max(file.size, 1);
  let worker = null;
  try {
    worker = new Worker(new URL("./read-slices.mjs", import.meta.url), { type: "module" });
  } catch {
    // no nested workers: read in this thread below
  }
  const pending = new Map(); // start -> {resolve, reject}
  const slices = new Map(); // start -> Promise<ArrayBuffer>
  let asked = 0;
  let given = 0;
  const readHere = (start) => file.slice(start, start + sliceBytes).arrayBuffer();
  // The reader failed (its script could not load, say): what it was asked for is read here.
  const fallBack = () => {
    worker?.terminate();
    worker = null;
    for (const [start, { resolve, reject }] of pending) readHere(start).then(resolve, reject);
    pending.clear();
  };
  if (worker) {
    worker.onmessage = ({ data }) => {
      const waiter = pending.get(data.start);
      pending.delete(data.start);
      if (data.error) waiter?.reject(new Error(data.error));
      else waiter?.resolve(data.buffer);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      fallBack();
    };
  }
  const ask = () => {
    const start = asked;
    asked += sliceBytes;
    // The first slice is read here: it is awaited at once, while the worker is still starting.
    if (!worker || start === 0) {
      slices.set(start, readHere(start));
      return;
    }
    slices.set(start, new Promise((resolve, reject) => pending.set(start, { resolve, reject })));
    worker.postMessage({ file, start, end: start + sliceBytes });
  };
  return {
    next() {
      if (given >= size) return Promise.resolve(new ArrayBuffer(0));
      while (asked < size && asked <= given + AHEAD * sliceBytes) ask();
      const slice = slices.get(given);
      slices.delete(given);
      given += sliceBytes;
      return slice;
    },
    close() {
      worker?.terminate();
      pending.clear(); // nobody waits for these any more (a newer input took over)
      slices.clear();
    },
  };
}
