"""The helper's framework components against the real server (the module's,
or the gateway in front of stock Weaviate): each returns exactly the
selection the raw client gets with the same settings, in the server's order,
with the explanation in each result's metadata; inside a real chain, query
engine or pipeline, the framework's own echoing fake LLM shows the prompt
holds exactly that selection, in order. Started by
integration/frameworks_test.go (see conftest.py), which compares what
selections.json holds with the Go helper's."""

import asyncio
import contextlib
import io
import json
import os
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

import weaviate
from weaviate.classes.query import MetadataQuery

import diverse_select as ds
from conftest import BUDGET, COLLECTION, Demo, out_path

Picks = List[Tuple[str, str, ds.Explanation]]  # (uuid, text, explanation) in the server's order
written: Dict[str, List[str]] = {}


def reference(client: weaviate.WeaviateClient, question: str, settings: ds.Selection,
              vector: Optional[Sequence[float]] = None, collection: str = COLLECTION, pool: int = 40) -> Picks:
    """The selection through the raw client and the helper, as docs/clients.md shows it."""
    coll = client.collections.get(collection)
    kw: Dict[str, Any] = dict(limit=pool, rerank=ds.rerank("text", question, settings),
                              return_metadata=MetadataQuery(explain_score=True))
    res = coll.query.near_vector(list(vector), **kw) if vector is not None else coll.query.near_text(question, **kw)
    out: Picks = []
    for o in res.objects:
        why = ds.explain(o)
        assert why is not None
        out.append((str(o.uuid), str(o.properties["text"]), why))
    assert len(out) >= 2, "the reference selected %d objects" % len(out)
    return out


def check_meta(name: str, demo: Demo, metas: List[Dict[str, Any]], want: Picks, budget: int, strategy: str) -> None:
    """The explanation in each result's metadata is the server's, ranks 1..n, the
    budget kept, and no two results copy one paragraph (the demo's near-copies)."""
    assert [m["rank"] for m in metas] == list(range(1, len(want) + 1)), name
    for m, (_, _, why) in zip(metas, want):
        assert (m["rank"], m["tokens"], m["strategy"], m["stopReason"], m["tokensLeft"]) == \
            (why.rank, why.tokens, why.strategy, why.stop_reason, why.tokens_left), name
        assert m["strategy"] == strategy and m["budget"] == budget, (name, m)
    used = sum(m["tokens"] for m in metas)
    assert used <= budget and metas[-1]["tokensUsed"] == used, (name, used, metas[-1])
    assert metas[-1]["tokensLeft"] == budget - used and metas[-1]["stopReason"], (name, metas[-1])
    groups = [demo.chunks[m["chunkId"]]["dupGroup"] for m in metas]
    groups = [g for g in groups if g]
    assert len(groups) == len(set(groups)), "%s selected near-copies: %s" % (name, groups)


def record(name: str, ids: List[str]) -> None:
    written[name] = ids
    with open(out_path("selections.json"), "w") as f:
        json.dump(written, f)


def expected_prompt(want: Picks, question: str) -> str:
    return "Context:\n" + "".join(text + "\n\n" for _, text, _ in want) + "Question: " + question


# --- LangChain ---------------------------------------------------------------

def test_langchain_retriever(client: weaviate.WeaviateClient, demo: Demo) -> None:
    """invoke, ainvoke and batch return Documents: the selection, in order, explained."""
    from langchain_core.documents import Document

    from diverse_select.langchain import DiverseSelectRetriever

    retriever = DiverseSelectRetriever(client=client, collection=COLLECTION, token_budget=BUDGET,
                                       settings=ds.Select.coverage())
    settings = ds.Select.coverage(token_budget=BUDGET)
    wants = [reference(client, q, settings) for q in demo.queries]
    batched = retriever.batch(demo.queries)
    for q, want, batch_docs in zip(demo.queries, wants, batched):
        docs = retriever.invoke(q)
        assert all(isinstance(d, Document) for d in docs)
        assert [(d.id, d.page_content) for d in docs] == [(u, t) for u, t, _ in want], q
        check_meta("langchain " + q, demo, [{**d.metadata["diverse_select"], "chunkId": d.metadata["chunkId"]}
                                            for d in docs], want, BUDGET, "coverage")
        assert [d.id for d in asyncio.run(retriever.ainvoke(q))] == [d.id for d in docs], q
        assert [d.id for d in batch_docs] == [d.id for d in docs], q
        record("langchain/" + q, [str(d.id) for d in docs])


def test_langchain_from_vector_store(client: weaviate.WeaviateClient, demo: Demo) -> None:
    """One line from a langchain-weaviate WeaviateVectorStore: its client, collection, text key and
    embeddings; the pool is nearest the store's query embedding."""
    from langchain_core.embeddings import Embeddings
    from langchain_weaviate import WeaviateVectorStore

    from diverse_select.langchain import DiverseSelectRetriever

    class DemoEmbeddings(Embeddings):
        def embed_query(self, text: str) -> List[float]:
            return demo.embed(text)

        def embed_documents(self, texts: List[str]) -> List[List[float]]:
            return [demo.embed(t) for t in texts]

    db = WeaviateVectorStore(client=client, index_name=COLLECTION, text_key="text", embedding=DemoEmbeddings())
    mmr = db.as_retriever(search_type="mmr", search_kwargs={"k": 4})  # what a user has before
    assert len(mmr.invoke(demo.queries[0])) == 4
    retriever = DiverseSelectRetriever.from_vector_store(db, token_budget=200, settings=ds.Select.mmr(lambda_=0.7))
    for q in demo.queries:
        want = reference(client, q, ds.Select.mmr(lambda_=0.7, token_budget=200), vector=demo.embed(q))
        docs = retriever.invoke(q)
        assert [d.id for d in docs] == [u for u, _, _ in want], q
        check_meta("from_vector_store " + q, demo, [{**d.metadata["diverse_select"], "chunkId": d.metadata["chunkId"]}
                                                    for d in docs], want, 200, "mmr")


def test_langchain_chain_prompt(client: weaviate.WeaviateClient, demo: Demo) -> None:
    """In an LCEL chain, LangChain's echoing fake chat model gets exactly the selection, in order."""
    from langchain_core.documents import Document
    from langchain_core.language_models.fake_chat_models import ParrotFakeChatModel
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.runnables import RunnableLambda, RunnablePassthrough

    from diverse_select.langchain import DiverseSelectRetriever

    def context(docs: List[Document]) -> str:
        return "".join(d.page_content + "\n\n" for d in docs)

    retriever = DiverseSelectRetriever(client=client, collection=COLLECTION, token_budget=BUDGET)
    prompt = ChatPromptTemplate.from_messages([("human", "Context:\n{context}Question: {question}")])
    chain = {"context": retriever | RunnableLambda(context), "question": RunnablePassthrough()} | prompt | ParrotFakeChatModel()
    for q in demo.queries:
        want = reference(client, q, ds.Select.configured(token_budget=BUDGET))
        assert chain.invoke(q).content == expected_prompt(want, q), q


# --- LlamaIndex --------------------------------------------------------------

def test_llamaindex_query_engine(client: weaviate.WeaviateClient, demo: Demo) -> None:
    """retrieve returns NodeWithScore: the selection, in order, explained, scored by relevance; in a
    RetrieverQueryEngine, LlamaIndex's MockLLM (which answers with its prompt) got exactly the selection."""
    from llama_index.core import PromptTemplate
    from llama_index.core.llms import MockLLM
    from llama_index.core.query_engine import RetrieverQueryEngine
    from llama_index.core.schema import NodeWithScore

    from diverse_select.llamaindex import DiverseSelectRetriever

    settings = ds.Select.dpp()
    retriever = DiverseSelectRetriever(client, COLLECTION, token_budget=BUDGET, settings=settings)
    engine = RetrieverQueryEngine.from_args(retriever, llm=MockLLM(),
                                            text_qa_template=PromptTemplate("Context:\n{context_str}\n\nQuestion: {query_str}"))
    for q in demo.queries:
        want = reference(client, q, ds.Select.dpp(token_budget=BUDGET))
        nodes = retriever.retrieve(q)
        assert all(isinstance(n, NodeWithScore) for n in nodes)
        assert [(n.node.node_id, n.node.get_content()) for n in nodes] == [(u, t) for u, t, _ in want], q
        assert [n.score for n in nodes] == [why.relevance for _, _, why in want], q
        check_meta("llamaindex " + q, demo, [{**n.node.metadata["diverse_select"], "chunkId": n.node.metadata["chunkId"]}
                                             for n in nodes], want, BUDGET, "dpp")
        response = engine.query(q)
        # LlamaIndex joins the chunks with a blank line; the explanation stays out of the prompt.
        assert str(response) == "Context:\n" + "\n\n".join(t for _, t, _ in want) + "\n\nQuestion: " + q, q
        assert [n.node.node_id for n in response.source_nodes] == [u for u, _, _ in want], q
        record("llamaindex/" + q, [n.node.node_id for n in nodes])


def test_llamaindex_next_to_vector_store(client: weaviate.WeaviateClient, demo: Demo) -> None:
    """Next to llama-index-vector-stores-weaviate's WeaviateVectorStore on the same collection with the same
    embed model (make frameworks' LlamaIndex rows): the store's retriever returns the k nearest, and the
    component with embed_model= selects from the pool nearest that model's query embedding."""
    from llama_index.core import VectorStoreIndex
    from llama_index.core.base.embeddings.base import BaseEmbedding
    from llama_index.vector_stores.weaviate import WeaviateVectorStore

    from diverse_select.llamaindex import DiverseSelectRetriever

    class DemoEmbedding(BaseEmbedding):
        def _get_query_embedding(self, query: str) -> List[float]:
            return demo.embed(query)

        async def _aget_query_embedding(self, query: str) -> List[float]:
            return demo.embed(query)

        def _get_text_embedding(self, text: str) -> List[float]:
            return demo.embed(text)

    store = WeaviateVectorStore(weaviate_client=client, index_name=COLLECTION, text_key="text")
    topk = VectorStoreIndex.from_vector_store(store, embed_model=DemoEmbedding()).as_retriever(similarity_top_k=4)
    retriever = DiverseSelectRetriever(client, COLLECTION, token_budget=200, settings=ds.Select.mmr(lambda_=0.7),
                                       embed_model=DemoEmbedding())
    for q in demo.queries:
        vector = demo.embed(q)
        # The k nearest up to ties: the demo's near-copies can lie at one distance, in either order.
        near = client.collections.get(COLLECTION).query.near_vector(vector, limit=12, return_metadata=MetadataQuery(distance=True))
        dist = {str(o.uuid): float(o.metadata.distance or 0) for o in near.objects}
        kth = sorted(dist.values())[3]
        got = [n.node.node_id for n in topk.retrieve(q)]
        assert len(got) == 4 and all(dist.get(u, 2.0) <= kth + 1e-6 for u in got), (q, got, kth)
        want = reference(client, q, ds.Select.mmr(lambda_=0.7, token_budget=200), vector=vector)
        nodes = retriever.retrieve(q)
        assert [n.node.node_id for n in nodes] == [u for u, _, _ in want], q
        check_meta("llamaindex embed_model " + q, demo, [{**n.node.metadata["diverse_select"], "chunkId": n.node.metadata["chunkId"]}
                                                         for n in nodes], want, 200, "mmr")


# --- Haystack ----------------------------------------------------------------

def test_haystack_pipeline(client: weaviate.WeaviateClient, demo: Demo) -> None:
    """In a Pipeline after a text embedder, run() returns Documents: the selection nearest the
    embedding, in order, explained; Haystack's MockChatGenerator (which echoes) got exactly it."""
    from haystack import Document, Pipeline, component
    from haystack.components.builders import ChatPromptBuilder
    from haystack.components.generators.chat import MockChatGenerator
    from haystack.dataclasses import ChatMessage

    from diverse_select.haystack import DiverseSelectRetriever

    @component
    class DemoTextEmbedder:
        """The collection's embedder as a Haystack text embedder."""

        @component.output_types(embedding=List[float])
        def run(self, text: str) -> Dict[str, List[float]]:
            return {"embedding": demo.embed(text)}

    pipe = Pipeline()
    pipe.add_component("embedder", DemoTextEmbedder())
    pipe.add_component("retriever", DiverseSelectRetriever(client, COLLECTION, text_key="text", token_budget=BUDGET,
                                                           settings=ds.Select.facility()))
    pipe.add_component("prompt", ChatPromptBuilder(template=[ChatMessage.from_user(
        "Context:\n{% for d in documents %}{{ d.content }}\n\n{% endfor %}Question: {{ query }}")],
        required_variables=["documents", "query"]))
    pipe.add_component("llm", MockChatGenerator())
    pipe.connect("embedder.embedding", "retriever.query_embedding")
    pipe.connect("retriever.documents", "prompt.documents")
    pipe.connect("prompt.prompt", "llm.messages")
    for q in demo.queries:
        for budget in (BUDGET, 200):
            want = reference(client, q, ds.Select.facility(token_budget=budget), vector=demo.embed(q))
            out = pipe.run({"embedder": {"text": q}, "retriever": {"query": q, "token_budget": budget},
                            "prompt": {"query": q}}, include_outputs_from={"retriever"})
            docs: List[Document] = out["retriever"]["documents"]
            assert [(d.id, d.content) for d in docs] == [(u, t) for u, t, _ in want], (q, budget)
            assert [d.score for d in docs] == [why.relevance for _, _, why in want], q
            check_meta("haystack " + q, demo, [{**d.meta["diverse_select"], "chunkId": d.meta["chunkId"]} for d in docs],
                       want, budget, "facility")
            assert out["llm"]["replies"][0].text == expected_prompt(want, q), (q, budget)
            if budget == BUDGET:
                record("haystack/" + q, [d.id for d in docs])


# --- docs/frameworks.md ------------------------------------------------------

DOCS = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "frameworks.md")


def test_docs_examples(client: weaviate.WeaviateClient, demo: Demo) -> None:
    """docs/frameworks.md's examples, run as written (connect_to_local pointed at the test's server):
    each prints the selection the raw client gets, ranked, and then a prompt holding it, in order."""
    with open(DOCS, encoding="utf-8") as f:
        blocks = re.findall(r"```python\n(.*?)```", f.read(), re.S)
    assert len(blocks) == 3, "docs/frameworks.md has %d Python examples, want one per framework" % len(blocks)
    # Each example creates the collection itself, through the gateway too (which keeps its reranker_config in
    # the schema, stock Weaviate having no such module); the first creates it, the others reuse it.
    if client.collections.exists("SolarNote"):
        client.collections.delete("SolarNote")
    connect = weaviate.connect_to_local
    ports = dict(port=int(os.environ["WEAVIATE_HTTP_PORT"]), grpc_port=int(os.environ["WEAVIATE_GRPC_PORT"]),
                 skip_init_checks=True)
    question = "How do I look after my solar panels?"
    try:
        weaviate.connect_to_local = lambda **kw: connect(**{**kw, **ports})
        for i, code in enumerate(blocks):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(code, "docs/frameworks.md example %d" % (i + 1), "exec"), {"__name__": "__main__"})
            want = reference(client, question, ds.Select.coverage(token_budget=80),
                             collection="SolarNote", pool=20)
            lines = out.getvalue().split("\n")
            picks = ["%d %d %s %s" % (why.rank, why.tokens, why.stop_reason, text) for _, text, why in want]
            assert lines[:len(picks)] == picks, (i, out.getvalue())
            rinses = [text for _, text, _ in want if text.startswith("Rinse")]
            assert len(picks) >= 3 and len(rinses) == 1, ("the example selected near-copies or too few", picks)
            prompt = "\n".join(lines[len(picks):])
            at = [prompt.find(text) for _, text, _ in want]
            assert -1 not in at and at == sorted(at), (i, prompt)
    finally:
        weaviate.connect_to_local = connect
