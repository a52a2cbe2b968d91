"""diverse-select as a Haystack component (``pip install diverse-select-weaviate[haystack]``).

``DiverseSelectRetriever`` is a ``@component`` whose ``run(query, query_embedding=None, token_budget=None)``
returns ``{"documents": [...]}``: the server's selection in the server's order, each ``Document``'s
``meta["diverse_select"]`` holding its explanation and its score the selection's relevance. In a
``Pipeline`` it sits after a text embedder, where a Weaviate retriever and a ``PyversityRanker`` sat.
"""

from typing import Any, Dict, List, Optional

from haystack import Document, component

from . import Selection
from ._frameworks import META_KEY, explanation_meta, search, with_budget

__all__ = ["DiverseSelectRetriever"]


@component
class DiverseSelectRetriever:
    """The diverse selection of a Weaviate collection under a token budget.

    ``client`` is a connected ``weaviate.WeaviateClient`` (the server with the module, or the gateway);
    ``collection`` the collection; ``text_key`` the property holding the text (weaviate-haystack writes
    ``content``); ``token_budget`` the most tokens selected (``run`` may override it); ``settings`` the
    helper's ``Select`` for everything else; ``pool`` the candidates the selection reads. ``run`` with a
    ``query_embedding`` (from an embedder) reads the pool nearest it, without one nearest by the
    collection's vectorizer.
    """

    def __init__(self, client: Any, collection: str, *, text_key: str = "content", token_budget: Optional[int] = None,
                 settings: Optional[Selection] = None, pool: int = 40, properties: Optional[List[str]] = None) -> None:
        with_budget(settings, token_budget)  # a bad settings object fails here, not at the first query
        self.client, self.collection, self.text_key = client, collection, text_key
        self.token_budget, self.settings, self.pool, self.properties = token_budget, settings, pool, properties

    @component.output_types(documents=List[Document])
    def run(self, query: str, query_embedding: Optional[List[float]] = None,
            token_budget: Optional[int] = None) -> Dict[str, List[Document]]:
        budget = self.token_budget if token_budget is None else token_budget
        picks = search(self.client, self.collection, self.text_key, query, vector=query_embedding, pool=self.pool,
                       settings=with_budget(self.settings, budget), return_properties=self.properties)
        return {"documents": [Document(id=p.uuid, content=p.text, score=p.explanation.relevance,
                                       meta={**p.properties, META_KEY: explanation_meta(p.explanation)})
                              for p in picks]}
