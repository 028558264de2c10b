// The page <-> worker protocol, declared once on the page's side. The worker's side declares the
// same names in py/relayscope/web/protocol.py (which says what each message and op carries); a
// unit test holds the two together, and every kind either side uses to these declarations.
// As in Pyodide's console web-worker example: a few named messages each way, one switch that
// handles them (ui.mjs's apply, remote.py's receive).
// Must not: hold behaviour (names only).

// page -> worker: {kind, ...}
export const MSG = Object.freeze({
  START: "start",
  SYNC: "sync",
  EVENT: "event",
  MEASURED: "measured",
  REPLY: "reply",
  DROP: "drop",
  WATCH: "watch",
  PICK: "pick",
  RANGE: "range",
  SIZE: "size",
});

// worker -> page: a JSON list of [op, ...args] per turn of the worker's event loop
export const OP = Object.freeze({
  SET: "set",
  ATTR: "attr",
  STYLE: "style",
  CLASS: "class",
  APPEND: "append",
  BEFORE: "before",
  AFTER: "after",
  REPLACE: "replace",
  REMOVE: "remove",
  CALL: "call",
  LISTEN: "listen",
  UNLISTEN: "unlisten",
  MEASURE: "measure",
  HISTORY: "history",
  STORE: "store",
  COPY: "copy",
  ACK: "ack",
  LANES: "lanes",
  LANE_META: "lane-meta",
  LANE_PART: "lane-part",
  LANES_READY: "lanes-ready",
  LANE_SELECT: "lane-select",
});

// worker -> page messages that are no op list (objects; the op list comes as a string)
export const POST = Object.freeze({
  DOWNLOAD: "download",
  FATAL: "fatal",
});

// op listen's options.work: when an event may start a job (the page shows "analyzing" at once)
export const WORK = Object.freeze({
  ALWAYS: "always",
  VALUE: "value",
  FILES: "files",
});

// the conditions of the key table's rules (keyboard.py's KEYS, sent with the keydown listener)
export const KEY_WHEN = Object.freeze([
  "field",
  "typing-ok",
  "plain",
  "group",
  "view",
  "not-body",
  "not-button",
  "row-selected",
  "row-open",
  "search",
  "searching",
  "shift",
  "menu-open",
]);
