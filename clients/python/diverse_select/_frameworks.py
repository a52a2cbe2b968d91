"""The one search the framework components (langchain.py, llamaindex.py,
haystack.py) share: a weaviate-client v4 query whose rerank carries the
settings, read back as picks in the server's order with their explanation.
Each framework module only turns picks into its own result type."""

import dataclasses
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence

from . import Explanation, Select, Selection, explain, rerank

__all__ = ["Pick", "search", "with_budget", "explanation_meta", "META_KEY"]

META_KEY = "diverse_select"
"""The metadata key under which each result carries its explanation."""


@dataclass(frozen=True)
class Pick:
    """One selected object: its id, its text, its other properties and why it was picked."""

    uuid: str
    text: str
    properties: Dict[str, Any]
    explanation: Explanation


def with_budget(settings: Optional[Selection], token_budget: Optional[int]) -> Optional[Selection]:
    """The settings with token_budget set, when given: the budget is each
    component's own argument, the rest goes through the helper's Select
    (without one, the collection's strategy)."""
    if settings is not None and not isinstance(settings, Selection):
        raise TypeError("settings is %s; allowed: what Select makes (Select.mmr(...), ...) or None"
                        % type(settings).__name__)
    if token_budget is None:
        return settings
    if settings is None:
        return Select.configured(token_budget=token_budget)
    return dataclasses.replace(settings, token_budget=token_budget)


def explanation_meta(why: Explanation) -> Dict[str, Any]:
    """The explanation with the server's field names (rank, tokens, strategy, stopReason, tokensLeft, ...)."""
    return {"rank": why.rank, "tokens": why.tokens, "strategy": why.strategy, "stopReason": why.stop_reason,
            "tokensLeft": why.tokens_left, "tokensUsed": why.tokens_used, "budget": why.budget, "gain": why.gain,
            "relevance": why.relevance, "relevanceSource": why.relevance_source, "redundancy": why.redundancy,
            "candidates": why.candidates, "selected": why.selected}


def search(client: Any, collection: str, text_key: str, question: str, *, settings: Optional[Selection] = None,
           vector: Optional[Sequence[float]] = None, pool: int = 40,
           return_properties: Optional[List[str]] = None, target_vector: Optional[str] = None) -> List[Pick]:
    """Selects from the pool of ``pool`` objects nearest the question (near_vector with ``vector``, else
    near_text: the collection's vectorizer), with the settings; the question is also the rerank query."""
    from weaviate.classes.query import MetadataQuery

    if not isinstance(pool, int) or isinstance(pool, bool) or pool < 1:
        raise ValueError("diverse-select: pool is %r; allowed: an integer >= 1 (the candidates the selection reads)" % (pool,))
    if not isinstance(question, str) or not question.strip():
        raise ValueError("diverse-select: the question is %r; allowed: a non-empty string" % (question,))
    kwargs: Dict[str, Any] = dict(limit=pool, rerank=rerank(text_key, question, settings),
                                  return_metadata=MetadataQuery(explain_score=True))
    coll = client.collections.get(collection)
    if return_properties is not None:
        kwargs["return_properties"] = list(dict.fromkeys([text_key, *return_properties]))
    if target_vector is not None:
        kwargs["target_vector"] = target_vector
    if vector is not None:
        res = coll.query.near_vector(near_vector=list(vector), **kwargs)
    else:
        res = coll.query.near_text(query=question, **kwargs)
    picks = []
    for i, o in enumerate(res.objects):
        why = explain(o)
        if why is None:
            raise RuntimeError("diverse-select: object %d of %s carries no explanation: is the collection's "
                               "reranker reranker-diverse-select, or the gateway in front?" % (i, collection))
        props = dict(o.properties)
        text = props.pop(text_key, None)
        if not isinstance(text, str):
            raise RuntimeError("diverse-select: object %s of %s has no text in %r" % (o.uuid, collection, text_key))
        picks.append(Pick(uuid=str(o.uuid), text=text, properties=props, explanation=why))
    return picks
