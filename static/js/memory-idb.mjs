// An in-memory stand-in for IndexedDB, installed before PyScript loads (index.html).
//
// Why: PyScript opens IndexedDB while it boots, whatever the config: polyscript keeps a package
// cache per interpreter (`await storage.sync()` before Pyodide loads; with packages_cache
// "passthrough", which we use, it only clears it) and core.js opens "@pyscript.fs" at import.
// Where storage is denied - a frame on another site in browsers that block third-party storage,
// private modes, storage switched off - the open fails, the awaited sync rejects and PyScript
// never starts; its IDBMap's error handler also re-dispatches the event it is handling, which
// throws "Failed to execute 'dispatchEvent' on 'EventTarget': The event is already being
// dispatched". Nothing of ours needs to outlive the page, so the page never uses real IndexedDB:
// it behaves the same in any frame and leaves nothing behind in the reader's browser.
//
// Scope: what IDBMap (@webreflection/idb-map, bundled in PyScript) and Pyodide's IDBFS call:
// open / deleteDatabase / databases, objectStoreNames, createObjectStore, transaction,
// objectStore and its get / getAll / getAllKeys / put / add / delete / clear / count, each a
// request that fires success (or error) asynchronously, as IndexedDB's do. Values are
// structured-cloned on the way in and out, as IndexedDB does. Must not: touch real storage.

const later = (fn) => setTimeout(fn, 0);

class Request extends EventTarget {
  constructor(source = null, transaction = null) {
    super();
    this.source = source;
    this.transaction = transaction;
    this.result = undefined;
    this.error = null;
    this.readyState = "pending";
    for (const type of ["success", "error", "upgradeneeded", "blocked", "complete"]) {
      this.addEventListener(type, (event) => this[`on${type}`]?.call(this, event));
    }
    this.onsuccess = this.onerror = this.onupgradeneeded = this.onblocked = this.oncomplete = null;
  }

  fire(type) {
    this.readyState = "done";
    this.dispatchEvent(new Event(type));
  }
}

class Transaction extends Request {
  constructor(db, names, mode) {
    super();
    this.db = db;
    this.mode = mode;
    this.objectStoreNames = names;
    this.onabort = null;
    this.pending = 0;
    later(() => this.settle());
  }

  objectStore(name) {
    if (!this.db.stores.has(name)) throw new DOMException(`no object store ${name}`, "NotFoundError");
    return new ObjectStore(this, name, this.db.stores.get(name));
  }

  commit() {}
  abort() {}

  // "complete" once the requests made in it have fired (and those they made in turn).
  settle() {
    if (this.pending === 0 && this.readyState !== "done") this.fire("complete");
  }
}

const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

class ObjectStore {
  constructor(transaction, name, map) {
    this.transaction = transaction;
    this.name = name;
    this.map = map;
    this.keyPath = null;
    this.autoIncrement = false;
  }

  request(work) {
    const request = new Request(this, this.transaction);
    const tx = this.transaction ?? { pending: 0, settle() {} }; // a store made in an upgrade
    tx.pending++;
    later(() => {
      try {
        request.result = work();
        request.fire("success");
      } catch (error) {
        request.error = error;
        request.fire("error");
      }
      tx.pending--;
      later(() => tx.settle());
    });
    return request;
  }

  keys() {
    return [...this.map.keys()].sort(cmp);
  }

  get(key) { return this.request(() => structuredClone(this.map.get(key))); }
  getKey(key) { return this.request(() => (this.map.has(key) ? key : undefined)); }
  getAll() { return this.request(() => this.keys().map((k) => structuredClone(this.map.get(k)))); }
  getAllKeys() { return this.request(() => this.keys()); }
  count() { return this.request(() => this.map.size); }
  put(value, key) { return this.request(() => (this.map.set(key, structuredClone(value)), key)); }
  add(value, key) {
    return this.request(() => {
      if (this.map.has(key)) throw new DOMException("key exists", "ConstraintError");
      this.map.set(key, structuredClone(value));
      return key;
    });
  }
  delete(key) { return this.request(() => void this.map.delete(key)); }
  clear() { return this.request(() => void this.map.clear()); }
  createIndex() { return {}; }
  index() { throw new DOMException("indexes are not kept in memory", "NotFoundError"); }
}

class Database extends EventTarget {
  constructor(name, version) {
    super();
    this.name = name;
    this.version = version;
    this.stores = new Map();
    this.onabort = this.onclose = this.onerror = this.onversionchange = null;
  }

  get objectStoreNames() {
    const names = [...this.stores.keys()].sort();
    return Object.assign(names, { contains: (n) => this.stores.has(n), item: (i) => names[i] ?? null });
  }

  createObjectStore(name) {
    if (!this.stores.has(name)) this.stores.set(name, new Map());
    return new ObjectStore(null, name, this.stores.get(name));
  }

  deleteObjectStore(name) {
    this.stores.delete(name);
  }

  transaction(names, mode = "readonly") {
    const list = typeof names === "string" ? [names] : [...names];
    return new Transaction(this, list, mode);
  }

  close() {}
}

const databases = new Map();

export const memoryIndexedDB = {
  open(name, version) {
    const request = new Request();
    later(() => {
      let db = databases.get(name);
      const upgrade = !db || (version !== undefined && version > db.version);
      if (!db) databases.set(name, (db = new Database(name, version ?? 1)));
      request.result = db;
      if (upgrade) {
        db.version = version ?? db.version;
        const tx = new Transaction(db, [...db.stores.keys()], "versionchange");
        request.transaction = tx;
        tx.pending++; // complete comes after upgradeneeded's handler has run
        request.fire("upgradeneeded");
        tx.pending--;
        request.transaction = null;
        tx.addEventListener("complete", () => request.fire("success"));
      } else {
        request.fire("success");
      }
    });
    return request;
  },
  deleteDatabase(name) {
    const request = new Request();
    later(() => {
      databases.delete(name);
      request.fire("success");
    });
    return request;
  },
  databases: async () => [...databases.values()].map(({ name, version }) => ({ name, version })),
  cmp,
};

Object.defineProperty(globalThis, "indexedDB", {
  value: memoryIndexedDB,
  configurable: true,
  enumerable: true,
  writable: true,
});
