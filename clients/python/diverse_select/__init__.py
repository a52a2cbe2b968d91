"""diverse-select for the Weaviate Python client v4.

Per-query settings as a typed ``Settings`` dataclass (generated from the
server's key table, ``_generated.py``), validated against the server's ranges
and sent in the rerank property, where only the application writes; the
rerank query stays plain text, so an end user's question cannot set them.
``explain`` reads each selected object's explanation from its explain score.
Pure Python, standard library only; ``rerank`` needs the weaviate-client
package, ``rerank_fields`` does not.
"""

import json
import math
import re
from dataclasses import dataclass, fields as dc_fields
from typing import TYPE_CHECKING, Any, Dict, Optional, Sequence, Union

from ._generated import FIELDS, SPEC, Settings

if TYPE_CHECKING:  # the client is needed only by rerank, and only there imported
    from weaviate.classes.query import Rerank

__all__ = ["Settings", "SettingsError", "Explanation", "rerank", "rerank_fields", "validate", "explain",
           "from_wire", "VERSION", "MAX_SETTINGS_BYTES", "segment", "SegmentError", "SEGMENT_PATH"]

VERSION = SPEC["version"]
"""The settings form the server reads."""
MAX_SETTINGS_BYTES = 4096
"""Largest rerank property, settings included, the server accepts."""

_SEPARATOR = "|"
_EXPLAIN_PREFIX = VERSION + " "
_PROPERTY_NAME = re.compile(r"^[_A-Za-z][_0-9A-Za-z]*$")
_KEYS = {k["name"]: k for k in SPEC["keys"]}
_PARAMS = {p["name"]: p for p in SPEC["params"]}
_WIRE_TO_PY = {wire: py for py, wire in FIELDS.items()}


class SettingsError(ValueError):
    """An option the server would refuse; ``key`` is its wire name."""

    def __init__(self, key: str, message: str):
        super().__init__('diverse-select: "%s" %s' % (key, message))
        self.key = key


def _allowed(o: Dict[str, Any]) -> str:
    if o.get("enum"):
        return "one of " + ", ".join(o["enum"])
    kind = o["kind"]
    if kind == "bool":
        return "true or false"
    if kind == "strings":
        return "a list of strings"
    if kind not in ("int", "float"):
        return "a string"
    lo = "(-inf" if o.get("min") is None else ("(" if o.get("minOpen") else "[") + _num(o["min"])
    hi = "inf)" if o.get("max") is None else _num(o["max"]) + (")" if o.get("maxOpen") else "]")
    return "%s in %s, %s" % ("an integer" if kind == "int" else "a number", lo, hi)


def _num(f: float) -> str:
    return str(int(f)) if float(f).is_integer() else repr(f)


def _check(o: Dict[str, Any], v: Any) -> str:
    """Why v is not a value of o, or ''."""
    kind, ok = o["kind"], True
    if kind in ("int", "float"):
        ok = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
        if ok and kind == "int":
            ok = float(v).is_integer()
        if ok and o.get("min") is not None:
            ok = v > o["min"] if o.get("minOpen") else v >= o["min"]
        if ok and o.get("max") is not None:
            ok = v < o["max"] if o.get("maxOpen") else v <= o["max"]
    elif kind == "bool":
        ok = isinstance(v, bool)
    elif kind == "strings":
        ok = isinstance(v, (list, tuple)) and all(isinstance(s, str) for s in v)
    else:
        ok = isinstance(v, str) and (not o.get("enum") or v in o["enum"])
    return "" if ok else "is %s; allowed: %s" % (json.dumps(v, ensure_ascii=False), _allowed(o))


def _wire(settings: Settings) -> Dict[str, Any]:
    return {FIELDS[f.name]: getattr(settings, f.name) for f in dc_fields(settings) if getattr(settings, f.name) is not None}


def validate(settings: Settings) -> None:
    """Raise SettingsError for an option the server would refuse: a value out of
    the server's range, a parameter the strategy does not take (without a
    strategy: one no strategy takes with that value; the server checks it
    against the collection's strategy)."""
    wire = _wire(settings)
    strategy = wire.get("strategy")
    for name, v in wire.items():
        if name in _KEYS:
            why = _check(_KEYS[name], v)
            if why:
                raise SettingsError(name, why)
            continue
        strategies = [strategy] if strategy else _PARAMS[name]["strategies"]
        own = [p for s in strategies for p in SPEC["strategies"].get(s, []) if p["name"] == name]
        if not own:
            theirs = [p["name"] for p in SPEC["strategies"].get(strategy, [])]
            raise SettingsError(name, 'is not a parameter of strategy "%s"; its parameters: %s'
                                % (strategy, ", ".join(theirs) or "(none)"))
        whys = [_check(p, v) for p in own]
        if all(whys):
            raise SettingsError(name, "for strategy %s %s" % (" or ".join(strategies), whys[0]))


def from_wire(options: Dict[str, Any]) -> Settings:
    """Settings from a dict with the server's key names (tokenBudget, ...)."""
    kwargs = {}
    for wire, v in options.items():
        if wire not in _WIRE_TO_PY:
            raise SettingsError(wire, "is not a per-query setting; allowed: " + ", ".join(sorted(_WIRE_TO_PY)))
        kwargs[_WIRE_TO_PY[wire]] = v
    return Settings(**kwargs)


def _plain(v: Any) -> Any:
    # An integral float as an integer: the same bytes as the TypeScript and Go helpers.
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, tuple):
        return list(v)
    return v


def rerank_fields(prop: str, query: str, settings: Optional[Settings] = None) -> Dict[str, str]:
    """The rerank request's fields: {"prop": ..., "query": ...}; query is plain
    text (never parsed for settings), the settings ride in the property."""
    if not isinstance(prop, str) or not _PROPERTY_NAME.match(prop):
        raise SettingsError("property", "is %s; allowed: a property name (letters, digits, _)" % json.dumps(prop))
    settings = settings or Settings()
    validate(settings)
    wire = {k: _plain(v) for k, v in _wire(settings).items()}
    if not wire:
        return {"prop": prop, "query": query}
    carried = prop + _SEPARATOR + VERSION + _SEPARATOR + json.dumps(
        wire, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    size = len(carried.encode("utf-8"))
    if size > MAX_SETTINGS_BYTES:
        raise SettingsError("property", "with its settings is %d bytes; allowed: at most %d" % (size, MAX_SETTINGS_BYTES))
    return {"prop": carried, "query": query}


def rerank(prop: str, query: str, settings: Optional[Settings] = None) -> "Rerank":
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
            encoder: Optional[str] = None, max_tokens: Optional[int] = None, threshold: Optional[float] = None,
            percentile: Optional[float] = None, tokenizer: Optional[str] = None, collection: Optional[str] = None,
            timeout: float = 120.0) -> Dict[str, Any]:
    """Cuts ``texts`` (a string or a list of strings) into chunks on the server at ``url``
    ("http://localhost:8080"). Returns the response: ``results`` holds, per text, its ``chunks``, each
    with ``text``, ``start`` and ``end`` (UTF-8 byte offsets), ``tokens`` and ``sentences``. The other
    arguments are the request's keys (None: the server's default); ``api_key`` is sent as a bearer
    token. Standard library only."""
    import urllib.error
    import urllib.request

    body: Dict[str, Any] = {"texts": [texts] if isinstance(texts, str) else list(texts)}
    for key, value in (("method", method), ("encoder", encoder), ("maxTokens", max_tokens), ("threshold", threshold),
                       ("percentile", percentile), ("tokenizer", tokenizer), ("collection", collection)):
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
