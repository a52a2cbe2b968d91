"""Segment at import: ``import_documents`` cuts each document's text on the
server's segment endpoint and writes the chunks with the caller's own client,
so the server only reads and the writes carry the caller's credentials.

Each chunk's id is a uuid5 of the collection, the source id and the chunk's
byte range, so a retry writes the same objects again; before writing, a
document's chunks that the new cut does not contain are deleted, so a retry
or a re-import converges to exactly the new cut. If any chunk of a document
is refused, every chunk of that document is deleted (by its source id), so no
document is left half written; the other documents stay.
"""

import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ._check import _show

if TYPE_CHECKING:
    from weaviate.collections import Collection

__all__ = ["Document", "ImportDocumentsError", "import_documents", "chunk_uuid", "MAX_ID_BYTES"]

MAX_ID_BYTES = 1024
"""Longest source id, in UTF-8 bytes: it is a property value and part of every chunk's uuid."""

_NAMESPACE = uuid.UUID("6f1d0c9e-4b7a-5e3f-9a51-2d8c7e0b4f16")
# The segment requests of one call: a few documents each, so a request stays
# well under the endpoint's default limits (64 texts, 1 MiB).
_TEXTS_PER_REQUEST = 16
_BYTES_PER_REQUEST = 512 * 1024


@dataclass(frozen=True)
class Document:
    """One document to import: ``id`` is its source id (stored on each chunk), ``text`` the text to cut,
    ``properties`` copied onto each of its chunks (a title, a URL, ...)."""

    id: str
    text: str
    properties: Mapping[str, Any] = field(default_factory=dict)


class ImportDocumentsError(RuntimeError):
    """Some documents were not imported; none of them has a chunk left in the collection. ``failures`` maps each
    such document's source id to ``(start, end, message)`` of its first refused chunk; ``imported`` maps every
    other document's source id to its chunks' uuids."""

    def __init__(self, failures: Dict[str, Tuple[int, int, str]], imported: Dict[str, List[str]]):
        first = next(iter(failures.items()))
        src, (start, end, msg) = first
        more = "" if len(failures) == 1 else " (and %d more documents)" % (len(failures) - 1)
        super().__init__("diverse-select: import_documents: document %s: chunk [%d, %d) was refused: %s; the document's "
                         "chunks were removed%s" % (_show(src), start, end, msg, more))
        self.failures = failures
        self.imported = imported


def chunk_uuid(collection: str, source_id: str, start: int, end: int) -> str:
    """The uuid of the chunk ``[start, end)`` (UTF-8 bytes) of document ``source_id`` in ``collection``."""
    return str(uuid.uuid5(_NAMESPACE, "%s\x00%s\x00%d\x00%d" % (collection, source_id, start, end)))


# _insert writes one slice of chunk objects and returns the refused ones by index (a test seam: a test wraps it to
# make the server refuse a chunk).
def _insert(collection: "Collection[Any, Any]", objects: List[Any]) -> Dict[int, str]:
    res = collection.data.insert_many(objects)
    return {i: str(e.message) for i, e in res.errors.items()}


def _delete(collection: "Collection[Any, Any]", where: Any, what: str) -> None:
    res = collection.data.delete_many(where=where)
    if res.failed:
        raise RuntimeError("diverse-select: import_documents: %s: %d objects were not deleted" % (what, res.failed))


def _documents(documents: Sequence[Union[Document, Mapping[str, Any]]], reserved: Sequence[str]) -> List[Document]:
    out: List[Document] = []
    seen: Dict[str, int] = {}
    for i, d in enumerate(documents):
        if isinstance(d, Mapping):
            unknown = set(d) - {"id", "text", "properties"}
            if unknown:
                raise ValueError("import_documents: documents[%d] has key(s) %s; allowed: id, text, properties"
                                 % (i, ", ".join(sorted(_show(k) for k in unknown))))
            d = Document(id=d.get("id"), text=d.get("text"), properties=d.get("properties") or {})  # type: ignore[arg-type]
        if not isinstance(d, Document):
            raise TypeError("import_documents: documents[%d] is a %s; allowed: Document or a mapping with id, text and "
                            "properties" % (i, type(d).__name__))
        if not isinstance(d.id, str) or not d.id or len(d.id.encode("utf-8")) > MAX_ID_BYTES:
            raise ValueError("import_documents: documents[%d].id %s must be a non-empty string of at most %d UTF-8 "
                             "bytes" % (i, _show(d.id), MAX_ID_BYTES))
        if not isinstance(d.text, str) or not d.text.strip():
            raise ValueError("import_documents: documents[%d].text must be a string with text in it, not %s"
                             % (i, _show(d.text)))
        if not isinstance(d.properties, Mapping):
            raise TypeError("import_documents: documents[%d].properties must be a mapping" % i)
        clash = [k for k in d.properties if k in reserved]
        if clash:
            raise ValueError("import_documents: documents[%d].properties sets %s, which the import writes itself (%s)"
                             % (i, _show(clash[0]), ", ".join(reserved)))
        if d.id in seen:
            raise ValueError("import_documents: documents[%d] and documents[%d] have the same id %s"
                             % (seen[d.id], i, _show(d.id)))
        seen[d.id] = i
        out.append(d)
    return out


def _check_source(collection: "Collection[Any, Any]", name: str) -> None:
    """The source property must be text with field tokenization: the import finds a document's chunks by equality
    on it, and word tokenization makes "doc 1" equal to "doc 1 2" (and "a" a stopword no filter may hold)."""
    from weaviate.classes.config import DataType, Tokenization

    prop = next((p for p in collection.config.get().properties if p.name == name), None)
    if prop is None or prop.data_type != DataType.TEXT or prop.tokenization != Tokenization.FIELD:
        found = "missing" if prop is None else "%s with tokenization %s" % (
            prop.data_type.value, prop.tokenization.value if prop.tokenization else "none")
        raise ValueError("import_documents: the property %s of collection %s must be text with tokenization field "
                         "(it is %s): the import finds a document's chunks by equality on it"
                         % (_show(name), _show(collection.name), found))


def import_documents(collection: "Collection[Any, Any]", documents: Sequence[Union[Document, Mapping[str, Any]]], *,
                     url: Optional[str] = None, api_key: Optional[str] = None, method: Optional[str] = None,
                     encoder: Optional[str] = None, max_tokens: Optional[int] = None, min_tokens: Optional[int] = None,
                     tokenizer: Optional[str] = None,
                     text_property: str = "text", source_property: str = "source_id", start_property: str = "start",
                     end_property: str = "end", batch_size: int = 100,
                     timeout: float = 120.0) -> Dict[str, List[str]]:
    """Cuts each document's text on the server's segment endpoint (docs/segmentation.md) and writes each chunk to
    ``collection`` (a weaviate-client v4 collection, tenant included) as one object: the chunk's text in
    ``text_property``, the document's id in ``source_property``, the chunk's UTF-8 byte offsets in the document's
    text in ``start_property`` and ``end_property`` (``text.encode()[start:end]`` is the chunk), and the
    document's ``properties``. Returns each document's chunk uuids, in text order.

    ``url`` is the server that segments (the module's Weaviate or the gateway; default the collection's own
    connection) and ``api_key`` its bearer token (default the connection's); ``method``, ``encoder``,
    ``max_tokens``, ``min_tokens`` and ``tokenizer`` are the segment request's keys (None: the server's default). The chunks are
    written ``batch_size`` at a time. Idempotent: importing the same documents again leaves the same objects; a
    document imported again with another text keeps only its new chunks. A document with a refused chunk is left
    with no chunk at all, and ``ImportDocumentsError`` names it and the chunk after the others are written."""
    from weaviate.classes.query import Filter

    from . import segment

    names = {"text_property": text_property, "source_property": source_property,
             "start_property": start_property, "end_property": end_property}
    for arg, name in names.items():
        if not isinstance(name, str) or not name:
            raise ValueError("import_documents: %s must be a property name, not %s" % (arg, _show(name)))
    if len(set(names.values())) != len(names):
        raise ValueError("import_documents: text_property, source_property, start_property and end_property must "
                         "be four different names, not %s" % ", ".join(names.values()))
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or not 1 <= batch_size <= 1000:
        raise ValueError("import_documents: batch_size %s is outside [1, 1000]" % _show(batch_size))
    if isinstance(documents, (str, bytes, Mapping)):
        raise TypeError("import_documents: documents must be a list of documents, not a %s" % type(documents).__name__)
    docs = _documents(documents, list(names.values()))
    if not docs:
        return {}
    _check_source(collection, source_property)
    conn = collection._connection
    if url is None:
        url = str(conn.url)
    if api_key is None:  # the connection's own token: an API key, or OIDC's current one
        token = str(conn.get_current_bearer_token())
        if token.startswith("Bearer "):
            api_key = token[len("Bearer "):]

    # Cut every text first: a refused segment request writes nothing.
    cuts: List[List[Tuple[int, int, str]]] = []
    i = 0
    while i < len(docs):
        j, size = i, 0
        while j < len(docs) and j - i < _TEXTS_PER_REQUEST and (j == i or size + len(docs[j].text) <= _BYTES_PER_REQUEST):
            size += len(docs[j].text)
            j += 1
        res = segment(url, [d.text for d in docs[i:j]], api_key=api_key, method=method, encoder=encoder,
                      max_tokens=max_tokens, min_tokens=min_tokens, tokenizer=tokenizer, collection=collection.name, timeout=timeout)
        for r in res["results"]:
            cuts.append([(int(c["start"]), int(c["end"]), str(c["text"])) for c in r["chunks"]])
        i = j
    if len(cuts) != len(docs):
        raise RuntimeError("import_documents: the server cut %d texts, %d were sent" % (len(cuts), len(docs)))

    from weaviate.classes.data import DataObject

    ids: Dict[str, List[str]] = {}
    objects: List[Tuple[str, int, int, Any]] = []
    for d, chunks in zip(docs, cuts):
        ids[d.id] = [chunk_uuid(collection.name, d.id, s, e) for s, e, _ in chunks]
        # A re-import converges: the document's chunks the new cut does not hold go first.
        stale = Filter.by_property(source_property).equal(d.id)
        if ids[d.id]:
            stale = stale & Filter.by_id().contains_none(ids[d.id])
        _delete(collection, stale, "document %s: delete the chunks of its previous cut" % _show(d.id))
        for (s, e, text), u in zip(chunks, ids[d.id]):
            props = dict(d.properties)
            props.update({text_property: text, source_property: d.id, start_property: s, end_property: e})
            objects.append((d.id, s, e, DataObject(properties=props, uuid=u)))

    failures: Dict[str, Tuple[int, int, str]] = {}
    for k in range(0, len(objects), batch_size):
        part = objects[k:k + batch_size]
        try:
            refused = _insert(collection, [o for _, _, _, o in part])
        except Exception as err:  # every object of the slice refused (insert_many raises), or the call failed
            refused = {n: "%s: %s" % (type(err).__name__, err) for n in range(len(part))}
        for n in sorted(refused):
            src, s, e, _ = part[n]
            failures.setdefault(src, (s, e, refused[n]))
    if not failures:
        return ids
    # No partial document: a document with a refused chunk loses all of them.
    for src in failures:
        _delete(collection, Filter.by_property(source_property).equal(src),
                "document %s: chunk [%d, %d) was refused (%s), and removing its chunks" % ((_show(src),) + failures[src]))
        del ids[src]
    raise ImportDocumentsError(failures, ids)
