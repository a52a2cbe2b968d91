"""diverse-select as a LlamaIndex retriever (``pip install diverse-select-weaviate[llamaindex]``).

``DiverseSelectRetriever`` is a ``llama_index.core`` ``BaseRetriever``: ``retrieve`` (and
``RetrieverQueryEngine`` around it) gets the server's selection as ``NodeWithScore``s in the server's order,
each node's ``metadata["diverse_select"]`` holding its explanation and its score the selection's relevance.
"""

from typing import Any, List, Optional

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.callbacks import CallbackManager
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from . import Selection
from ._frameworks import META_KEY, Pick, explanation_meta, search, with_budget

__all__ = ["DiverseSelectRetriever"]


class DiverseSelectRetriever(BaseRetriever):
    """The diverse selection of a Weaviate collection under a token budget.

    ``client`` is a connected ``weaviate.WeaviateClient`` (the server with the module, or the gateway);
    ``collection`` the collection; ``text_key`` the property holding the text (LlamaIndex's Weaviate store
    writes ``text``); ``token_budget`` the most tokens selected; ``settings`` the helper's ``Select`` for
    everything else; ``pool`` the candidates the selection reads. The pool is nearest the query bundle's
    embedding when it has one, else ``embed_model``'s embedding of the question when given, else nearest by
    the collection's vectorizer.
    """

    def __init__(self, client: Any, collection: str, *, text_key: str = "text", token_budget: Optional[int] = None,
                 settings: Optional[Selection] = None, pool: int = 40, embed_model: Optional[BaseEmbedding] = None,
                 properties: Optional[List[str]] = None, callback_manager: Optional[CallbackManager] = None,
                 verbose: bool = False) -> None:
        super().__init__(callback_manager=callback_manager, verbose=verbose)
        self._client, self._collection, self._text_key = client, collection, text_key
        self._settings = with_budget(settings, token_budget)
        self._pool, self._embed_model, self._properties = pool, embed_model, properties

    def _retrieve(self, query_bundle: QueryBundle) -> List[NodeWithScore]:
        vector = query_bundle.embedding
        if vector is None and self._embed_model is not None:
            vector = self._embed_model.get_query_embedding(query_bundle.query_str)
        picks = search(self._client, self._collection, self._text_key, query_bundle.query_str, vector=vector,
                       pool=self._pool, settings=self._settings, return_properties=self._properties)
        return [_node(p) for p in picks]


def _node(p: Pick) -> NodeWithScore:
    meta = {**p.properties, META_KEY: explanation_meta(p.explanation)}
    # The explanation is for the application: LlamaIndex puts a node's metadata into the LLM's text and the
    # embedding's unless told not to, and the prompt should hold the selected text only.
    hidden = list(meta)
    node = TextNode(id_=p.uuid, text=p.text, metadata=meta, excluded_llm_metadata_keys=hidden,
                    excluded_embed_metadata_keys=hidden)
    return NodeWithScore(node=node, score=p.explanation.relevance)
