"""sharefile: an input as one file anyone can pass on, and as a link's fragment.

A shareable file holds every file of an input (a session's main transcript, its sub-agent files
and their meta files, under their paths relative to one another, so the session's folder layout
survives), redacted when asked, compressed, with the view it was shared at. It is a plain zip
(DEFLATE), so any zip tool lists and extracts it; docs/share-format.md describes it:

* ``relayscope.json`` (the first member): the manifest. ``format`` (``relayscope-share``),
  ``version`` (:data:`VERSION`), ``generator``, ``files`` (each one's ``path``, ``size`` and
  ``sha256``), ``view`` (the page's URL query as an object of strings: strategy, step, row,
  filters; open, so keys this version does not know travel on), ``redacted`` (what was replaced,
  counted by kind; null when the input was not redacted).
* ``files/<path>``: each file's bytes.

Reading (:func:`unpack`) never raises on bad bytes and loses nothing it can keep: a member that
cannot be read, a hash that does not match, a file cut short, a name that would climb out of a
folder, a zip that is not ours, a zip that would unpack to more than :data:`MAX_BYTES`, a member
that inflates past its declared size (stopped there: a member is inflated in pieces, each to at
most what is left of its size), a compression method's own error, a member not where the directory
says, each becomes an :class:`Issue`, and every file that can be read is returned. A directory a
few bytes off is recovered as ``unzip`` recovers it (each member's local header found by its name).
A zip cut short (a download that stopped) has no central directory: its members are read from
their local headers, in order, up to where the bytes end. zipfile reads the directory only; the
members' bytes are read here (zipfile inflates bzip2 and LZMA without a bound, and seeks to any
offset a zip64 extra gives).

A link (:func:`encode_link`, :func:`decode_link`) carries the same files and view in its
fragment (``#v2.<base64url of the deflated payload>``) when that fits :data:`LINK_LIMIT`
characters; the fragment never reaches a server.

Pure: no I/O (the CLI's ``inputs`` and the page's worker pass bytes). Must not: import the web
layer, or write a name it would refuse to read.
"""

from __future__ import annotations

from .links import damaged_link, decode_link, encode_link, inflate_link, link
from .names import (
    _ZIP_MAGIC,
    FILES,
    FORMAT,
    LEVEL,
    LINK_LIMIT,
    LINK_MAX_BYTES,
    LINK_PREFIX,
    MANIFEST,
    MAX_BYTES,
    MAX_FILES,
    MAX_MANIFEST,
    MAX_PATH,
    MEDIA_TYPE,
    SUFFIX,
    TRANSCRIPTS,
    VERSION,
    Issue,
    Opened,
    check_path,
    is_sharefile,
)
from .reading import unpack
from .writing import Shared, manifest, pack, prepare, write

__all__ = [
    "FILES",
    "FORMAT",
    "LEVEL",
    "LINK_LIMIT",
    "LINK_MAX_BYTES",
    "LINK_PREFIX",
    "MANIFEST",
    "MAX_BYTES",
    "MAX_FILES",
    "MAX_MANIFEST",
    "MAX_PATH",
    "MEDIA_TYPE",
    "SUFFIX",
    "TRANSCRIPTS",
    "VERSION",
    "_ZIP_MAGIC",
    "Issue",
    "Opened",
    "Shared",
    "check_path",
    "damaged_link",
    "decode_link",
    "encode_link",
    "inflate_link",
    "is_sharefile",
    "link",
    "manifest",
    "pack",
    "prepare",
    "unpack",
    "write",
]
