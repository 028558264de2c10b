// Every file under a FileSystemDirectoryHandle: [{path, handle}], paths relative to it, sorted.
// The worker (worker.mjs) hands it to Python, which lists a watched folder on each look.
//
// Why JS: listing a directory handle means async iterators and recursion, which are plain here
// and awkward through Pyodide's proxies.
export async function list(dir, prefix = "") {
  const out = [];
  const entries = [];
  for await (const [name, entry] of dir.entries()) entries.push([name, entry]);
  entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  for (const [name, entry] of entries) {
    const path = prefix + name;
    if (entry.kind === "file") out.push({ path, handle: entry });
    else out.push(...(await list(entry, path + "/")));
  }
  return out;
}
