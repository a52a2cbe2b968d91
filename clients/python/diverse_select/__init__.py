"""diverse-select for the Weaviate Python client v4.

Per-query settings as typed classes, one per strategy, made by the factories
of ``Select`` (``Select.mmr(lambda_=0.7, token_budget=300)``, generated from
the server's key table, ``_generated.py``), checked against the server's
ranges on construction and sent in the rerank property, where only the
application writes; the rerank query stays plain text, so an end user's
question cannot set them. ``explain`` reads each selected object's
explanation from its explain score. Pure Python, standard library only;
``rerank`` needs the weaviate-client package, ``rerank_fields`` does not.
"""

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, Optional, Sequence, Union

from . import _check, _generated
from ._check import SettingsError, _show
from ._generated import *  # noqa: F401,F403  (Select, Selection and the strategies' classes: MMRSelection, ...)
from ._generated import SPEC, Selection

if TYPE_CHECKING:  # the client is needed only by rerank, and only there imported
    from weaviate.classes.query import Rerank

__all__ = ["SettingsError", "Explanation", "rerank", "rerank_fields", "explain", "VERSION", "MAX_SETTINGS_BYTES",
           "segment", "SegmentError", "SEGMENT_PATH"]
__all__ += _generated.__all__
__all__ += ["Document", "ImportDocumentsError", "import_documents", "chunk_uuid"]

VERSION = SPEC["version"]
"""The settings form the server reads."""
MAX_SETTINGS_BYTES = 4096
"""Largest rerank property, settings included, the server accepts."""

_SEPARATOR = "|"
_EXPLAIN_PREFIX = VERSION + " "
_PROPERTY_NAME = re.compile(r"^[_A-Za-z][_0-9A-Za-z]*$")


def _plain(v: Any) -> Any:
    # An integral float as an integer: the same bytes as the TypeScript and Go helpers.
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, tuple):
        return list(v)
    return v


def rerank_fields(prop: str, query: str, settings: Optional[Selection] = None) -> Dict[str, str]:
    """The rerank request's fields: {"prop": ..., "query": ...}; query is plain
    text (never parsed for settings), the settings (made by Select, checked
    then) ride in the property."""
    if not isinstance(prop, str) or not _PROPERTY_NAME.match(prop):
        raise SettingsError("property", "is %s; allowed: a property name (letters, digits, _)" % _show(prop))
    if settings is not None and not isinstance(settings, Selection):
        raise TypeError("diverse-select: settings is a %s; allowed: None or the settings Select's factories make "
                        "(Select.mmr(...), Select.from_wire({...}))" % type(settings).__name__)
    if settings is not None:  # again: a list or dict it holds may have changed since it was made
        _check.validate(SPEC, _generated.FIELDS, settings)
    wire = {k: _plain(v) for k, v in settings.wire().items()} if settings else {}
    if not wire:
        return {"prop": prop, "query": query}
    carried = prop + _SEPARATOR + VERSION + _SEPARATOR + json.dumps(
        wire, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    size = len(carried.encode("utf-8"))
    if size > MAX_SETTINGS_BYTES:
        raise SettingsError("property", "with its settings is %d bytes; allowed: at most %d" % (size, MAX_SETTINGS_BYTES))
    return {"prop": carried, "query": query}


def rerank(prop: str, query: str, settings: Optional[Selection] = None) -> "Rerank":
    """The ``rerank=`` argument of a weaviate-client v4 query (weaviate.classes.query.Rerank)."""
    from weaviate.classes.query import Rerank

    return Rerank(**rerank_fields(prop, query, settings))


@dataclass(frozen=True)
class Explanation:
    """Why an object was selected: the fields of GraphQL's _additional { diverseSelect { ... } }."""

    rank: int
    gain: float
    relevance: float
    relevance_source: str
    redundancy: float
    tokens: int
    tokens_used: int
    budget: int
    stop_reason: str  # budget, price, maxResults or pool ("" from a server before it said)
    tokens_left: int  # budget left unused (0 without a budget)
    strategy: str
    candidates: int
    selected: int
    offset: int
    exhausted: Optional[bool]


def explain(obj: Any) -> Optional[Explanation]:
    """The explanation of a returned object (ask for it with
    return_metadata=MetadataQuery(explain_score=True)), or its explain score
    as a string; None when it carries none."""
    text = obj if isinstance(obj, str) else getattr(getattr(obj, "metadata", None), "explain_score", None)
    if not text:
        return None
    for line in text.split("\n"):
        if line.startswith(_EXPLAIN_PREFIX):
            e = json.loads(line[len(_EXPLAIN_PREFIX):])
            # float(): JSON writes a whole float as an integer (a redundancy of 0 comes as 0).
            return Explanation(rank=int(e["rank"]), gain=float(e["gain"]), relevance=float(e["relevance"]),
                               relevance_source=str(e["relevanceSource"]), redundancy=float(e["redundancy"]),
                               tokens=int(e["tokens"]), tokens_used=int(e["tokensUsed"]), budget=int(e["budget"]),
                               stop_reason=str(e.get("stopReason", "")), tokens_left=int(e.get("tokensLeft", 0)),
                               strategy=str(e["strategy"]), candidates=int(e["candidates"]),
                               selected=int(e["selected"]), offset=int(e["offset"]), exhausted=e.get("exhausted"))
    return None


# --- segmentation -----------------------------------------------------------

SEGMENT_PATH = "/v1/modules/diverse-select/segment"
"""The module's segmentation endpoint (docs/segmentation.md)."""


class SegmentError(RuntimeError):
    """The server refused a segment request; ``status`` is the HTTP status."""

    def __init__(self, status: int, message: str):
        super().__init__("diverse-select: segment: status %d: %s" % (status, message))
        self.status = status


def segment(url: str, texts: Union[str, Sequence[str]], *, api_key: Optional[str] = None, method: Optional[str] = None,
            encoder: Optional[str] = None, max_tokens: Optional[int] = None, min_tokens: Optional[int] = None,
            threshold: Optional[float] = None, percentile: Optional[float] = None, tokenizer: Optional[str] = None, collection: Optional[str] = None,
            timeout: float = 120.0) -> Dict[str, Any]:
    """Cuts ``texts`` (a string or a list of strings) into chunks on the server at ``url``
    ("http://localhost:8080"). Returns the response: ``results`` holds, per text, its ``chunks``, each
    with ``text``, ``start`` and ``end`` (UTF-8 byte offsets), ``tokens``, ``sentences`` and ``cut`` (a piece of a sentence over ``max_tokens``). The other
    arguments are the request's keys (None: the server's default); ``api_key`` is sent as a bearer
    token. Standard library only."""
    import urllib.error
    import urllib.request

    body: Dict[str, Any] = {"texts": [texts] if isinstance(texts, str) else list(texts)}
    for key, value in (("method", method), ("encoder", encoder), ("maxTokens", max_tokens), ("minTokens", min_tokens),
                       ("threshold", threshold), ("percentile", percentile), ("tokenizer", tokenizer), ("collection", collection)):
        if value is not None:
            body[key] = value
    req = urllib.request.Request(url.rstrip("/") + SEGMENT_PATH, data=json.dumps(body).encode("utf-8"), method="POST",
                                 headers={"Content-Type": "application/json"})
    if api_key:
        req.add_header("Authorization", "Bearer " + api_key)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as res:
            out: Dict[str, Any] = json.loads(res.read().decode("utf-8"))
            return out
    except urllib.error.HTTPError as e:
        raw = e.read().decode("utf-8", "replace")
        try:
            doc = json.loads(raw)
            msg = doc["error"][0]["message"] if doc.get("error") else doc.get("message", raw)
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            msg = raw
        raise SegmentError(e.code, msg) from None


# Segment at import (_import.py); last, since it imports segment from here.
from ._import import Document, ImportDocumentsError, chunk_uuid, import_documents  # noqa: E402
