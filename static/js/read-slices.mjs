// The reader worker read-ahead.mjs and read-pool.mjs start: reads the part of a file it is asked
// for and hands it back transferred, with the number it was asked under. It reads synchronously
// (FileReaderSync: this worker does nothing else, so blocking it costs nothing, and a read done
// at once skips a round of the event loop each). Must not: do anything else.
const sync = typeof FileReaderSync === "function" ? new FileReaderSync() : null;

self.onmessage = async ({ data: { id, file, start, end } }) => {
  try {
    const part = file.slice(start, end);
    const buffer = sync ? sync.readAsArrayBuffer(part) : await part.arrayBuffer();
    postMessage({ id, start, buffer }, [buffer]);
  } catch (error) {
    postMessage({ id, start, error: String(error?.message ?? error) });
  }
};
