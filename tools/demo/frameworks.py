"""make frameworks' side-by-side: each demo query through LangChain, LlamaIndex
and Haystack, each framework's own way of picking context next to the helper's
component, on the demo collection tools/demo imported. Run by tools/demo
(-frameworks), which passes a JSON file of its settings as argv[1] and reads
the JSON this writes to argv[2]: per framework, method and query, the chunk ids
returned in order and the median wall time of the framework's call (the query's
embedding included; every method of a framework embeds the same way)."""

import json
import statistics
import sys
import time
import urllib.request
from typing import Any, Callable, Dict, List, cast

import weaviate


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as f:
        cfg: Dict[str, Any] = json.load(f)
    client = weaviate.connect_to_local(host="127.0.0.1", port=cfg["httpPort"], grpc_port=cfg["grpcPort"],
                                       skip_init_checks=True)
    try:
        rows = run(client, cfg)
    finally:
        client.close()
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        json.dump({"rows": rows}, f)


def embedder(url: str) -> Callable[[str], List[float]]:
    def embed(text: str) -> List[float]:
        body = json.dumps({"text": text, "config": {"task_type": "query"}}).encode()
        req = urllib.request.Request(url + "/vectors", data=body, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as res:
            return [float(x) for x in json.load(res)["vector"]]
    return embed


def run(client: weaviate.WeaviateClient, cfg: Dict[str, Any]) -> List[Dict[str, Any]]:
    from haystack import Document, Pipeline, component
    from haystack_integrations.components.rankers.pyversity import PyversityRanker
    from langchain_core.embeddings import Embeddings
    from langchain_weaviate import WeaviateVectorStore
    from llama_index.core import VectorStoreIndex
    from llama_index.core.base.embeddings.base import BaseEmbedding
    from llama_index.vector_stores.weaviate import WeaviateVectorStore as LlamaWeaviateVectorStore
    from weaviate.classes.query import MetadataQuery

    import diverse_select.haystack as ds_haystack
    import diverse_select.langchain as ds_langchain
    import diverse_select.llamaindex as ds_llamaindex

    cls, text_key, k, pool, budget = cfg["class"], cfg["textKey"], cfg["k"], cfg["pool"], cfg["budget"]
    embed = embedder(cfg["embedder"])

    class DemoEmbeddings(Embeddings):
        def embed_query(self, text: str) -> List[float]:
            return embed(text)

        def embed_documents(self, texts: List[str]) -> List[List[float]]:
            return [embed(t) for t in texts]

    class DemoEmbedding(BaseEmbedding):
        """The demo's embedder as a LlamaIndex embed model."""

        def _get_query_embedding(self, query: str) -> List[float]:
            return embed(query)

        async def _aget_query_embedding(self, query: str) -> List[float]:
            return embed(query)

        def _get_text_embedding(self, text: str) -> List[float]:
            return embed(text)

    @component
    class TextEmbedder:
        """The demo's embedder as a Haystack text embedder."""

        @component.output_types(embedding=List[float])
        def run(self, text: str) -> Dict[str, List[float]]:
            return {"embedding": embed(text)}

    @component
    class VectorRetriever:
        """The top_k nearest objects with their vectors and cosine similarity, as Haystack's
        embedding retrievers return them (PyversityRanker needs both)."""

        def __init__(self, top_k: int) -> None:
            self.top_k = top_k

        @component.output_types(documents=List[Document])
        def run(self, query_embedding: List[float]) -> Dict[str, List[Document]]:
            res = client.collections.get(cls).query.near_vector(
                query_embedding, limit=self.top_k, include_vector=True, return_metadata=MetadataQuery(distance=True))
            return {"documents": [Document(id=str(o.uuid), content=str(o.properties[text_key]),
                                           meta={"chunkId": o.properties["chunkId"]},
                                           embedding=cast(List[float], o.vector["default"]), score=1 - float(o.metadata.distance or 0))
                                  for o in res.objects]}

    def pipeline(*stages: Any) -> Pipeline:
        p = Pipeline()
        p.add_component("embedder", TextEmbedder())
        names = ["embedder"]
        for i, s in enumerate(stages):
            p.add_component("s%d" % i, s)
            names.append("s%d" % i)
        p.connect("embedder.embedding", "s0.query_embedding")
        for a, b in zip(names[1:], names[2:]):
            p.connect(a + ".documents", b + ".documents")
        return p

    def hay(p: Pipeline, last: str, ours: bool) -> Callable[[str], List[str]]:
        def call(q: str) -> List[str]:
            inputs: Dict[str, Any] = {"embedder": {"text": q}}
            if ours:
                inputs["s0"] = {"query": q}
            return [str(d.meta["chunkId"]) for d in p.run(inputs)[last]["documents"]]
        return call

    db = WeaviateVectorStore(client=client, index_name=cls, text_key=text_key, embedding=DemoEmbeddings())
    lc_topk = db.as_retriever(search_kwargs={"k": k, "alpha": 1})
    lc_mmr = db.as_retriever(search_type="mmr", search_kwargs={"k": k, "fetch_k": pool})
    lc_ours = ds_langchain.DiverseSelectRetriever.from_vector_store(db, token_budget=budget, pool=pool)
    # LlamaIndex's Weaviate store has no MMR: it reads only the hybrid mode from the query and sends every
    # other mode, VectorStoreQueryMode.MMR among them, as the same vector-only search (alpha 1), so
    # as_retriever(vector_store_query_mode="mmr") would return the top-k row again under another name.
    li_index = VectorStoreIndex.from_vector_store(
        LlamaWeaviateVectorStore(weaviate_client=client, index_name=cls, text_key=text_key), embed_model=DemoEmbedding())
    li_topk = li_index.as_retriever(similarity_top_k=k)
    li_ours = ds_llamaindex.DiverseSelectRetriever(client, cls, text_key=text_key, token_budget=budget, pool=pool,
                                                   embed_model=DemoEmbedding())

    def lc(r: Any) -> Callable[[str], List[str]]:
        return lambda q: [str(d.metadata["chunkId"]) for d in r.invoke(q)]

    def li(r: Any) -> Callable[[str], List[str]]:
        return lambda q: [str(n.node.metadata["chunkId"]) for n in r.retrieve(q)]

    methods = [
        ("LangChain", "top-k: as_retriever(k=%d), vector only" % k, lc(lc_topk)),
        ("LangChain", 'search_type="mmr" (k=%d, fetch_k=%d)' % (k, pool), lc(lc_mmr)),
        ("LangChain", "diverse-select: from_vector_store(token_budget=%d)" % budget, lc(lc_ours)),
        ("LlamaIndex", "top-k: as_retriever(similarity_top_k=%d), vector only" % k, li(li_topk)),
        ("LlamaIndex", "diverse-select (token_budget=%d)" % budget, li(li_ours)),
        ("Haystack", "top-k: embedding retriever (top_k=%d)" % k, hay(pipeline(VectorRetriever(k)), "s0", False)),
        ("Haystack", "PyversityRanker(top_k=%d), default DPP, diversity 0.5, pool %d" % (k, pool),
         hay(pipeline(VectorRetriever(pool), PyversityRanker(top_k=k)), "s1", False)),
        ("Haystack", "diverse-select (token_budget=%d)" % budget,
         hay(pipeline(ds_haystack.DiverseSelectRetriever(client, cls, text_key=text_key, token_budget=budget, pool=pool)),
             "s0", True)),
    ]
    rows = []
    for framework, method, call in methods:
        for q in cfg["queries"]:
            call(q)  # warm: the first call of a pipeline or a store pays its set-up
            times, chunks = [], []
            for _ in range(cfg["runs"]):
                start = time.perf_counter()
                chunks = call(q)
                times.append(time.perf_counter() - start)
            rows.append({"framework": framework, "method": method, "query": q, "chunks": chunks,
                         "ms": statistics.median(times) * 1000})
    return rows


if __name__ == "__main__":
    main()
