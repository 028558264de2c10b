// The worker read-ahead.mjs starts: reads the slices of a file it is asked for and hands each
// back transferred, with the number of the file it was asked for. Must not: do anything else
// (its event loop must stay free for the reads).
self.onmessage = async ({ data: { id, file, start, end } }) => {
  try {
    const buffer = await file.slice(start, end).arrayBuffer();
    postMessage({ id, start, buffer }, [buffer]);
  } catch (error) {
    postMessage({ id, start, error: String(error?.message ?? error) });
  }
};
