// The worker read-ahead.mjs starts: reads the slices of a file it is asked for and hands each
// back transferred. Must not: do anything else (its event loop must stay free for the reads).
self.onmessage = async ({ data: { file, start, end } }) => {
  try {
    const buffer = await file.slice(start, end).arrayBuffer();
    postMessage({ start, buffer }, [buffer]);
  } catch (error) {
    postMessage({ start, error: String(error?.message ?? error) });
  }
};
