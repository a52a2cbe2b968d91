"""diverse-select as a LangChain retriever (``pip install diverse-select-weaviate[langchain]``).

``DiverseSelectRetriever`` is a ``langchain_core`` ``BaseRetriever``: ``invoke``, ``ainvoke``, ``batch`` and
every chain built on them return the server's selection as ``Document``s, in the server's order, each with
its explanation in ``metadata["diverse_select"]``. ``from_vector_store`` takes a langchain-weaviate
``WeaviateVectorStore`` (read duck-typed, so langchain-weaviate is not a dependency) in place of its
``as_retriever(search_type="mmr")``.
"""

from typing import Any, List, Optional

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, InstanceOf

from . import Selection
from ._frameworks import META_KEY, Pick, explanation_meta, search, with_budget

__all__ = ["DiverseSelectRetriever"]


class DiverseSelectRetriever(BaseRetriever):
    """The diverse selection of a Weaviate collection under a token budget.

    ``client`` is a connected ``weaviate.WeaviateClient`` (the server with the module, or the gateway);
    ``collection`` the collection; ``text_key`` the property holding the text (the selection reads it and
    it becomes ``page_content``); ``token_budget`` the most tokens selected; ``settings`` the rest, made by
    the helper's ``Select`` (``Select.mmr(lambda_=0.7)``; None: the collection's); ``pool`` the candidates
    the selection reads. With ``embedding`` the pool is the collection's nearest to
    ``embedding.embed_query(question)`` (a collection with your own vectors, as langchain-weaviate writes
    it), without it nearest by the collection's vectorizer.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    client: Any
    collection: str
    text_key: str = "text"
    token_budget: Optional[int] = None
    settings: Optional[InstanceOf[Selection]] = None  # kept as given: pydantic would rebuild a subclass
    pool: int = 40
    embedding: Optional[Embeddings] = None
    properties: Optional[List[str]] = None
    """The properties copied into each Document's metadata (None: every property)."""

    def model_post_init(self, context: Any, /) -> None:
        with_budget(self.settings, self.token_budget)  # a bad budget fails here, not at the first query

    @classmethod
    def from_vector_store(cls, store: Any, *, token_budget: Optional[int] = None, settings: Optional[Selection] = None,
                          pool: int = 40, **kwargs: Any) -> "DiverseSelectRetriever":
        """The retriever over a langchain-weaviate ``WeaviateVectorStore``'s collection, with its client,
        text key and embeddings: ``DiverseSelectRetriever.from_vector_store(db, token_budget=600)`` where
        ``db.as_retriever(...)`` was."""
        try:
            client, index, text_key = store._client, store._index_name, store._text_key
        except AttributeError:
            raise TypeError("diverse-select: %s is not a langchain-weaviate WeaviateVectorStore (it needs _client, "
                            "_index_name and _text_key)" % type(store).__name__) from None
        return cls(client=client, collection=index, text_key=text_key, embedding=getattr(store, "_embedding", None),
                   token_budget=token_budget, settings=settings, pool=pool, **kwargs)

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> List[Document]:
        vector = self.embedding.embed_query(query) if self.embedding is not None else None
        picks = search(self.client, self.collection, self.text_key, query, vector=vector, pool=self.pool,
                       settings=with_budget(self.settings, self.token_budget), return_properties=self.properties)
        return [_document(p) for p in picks]


def _document(p: Pick) -> Document:
    return Document(page_content=p.text, id=p.uuid,
                    metadata={**p.properties, "uuid": p.uuid, META_KEY: explanation_meta(p.explanation)})
