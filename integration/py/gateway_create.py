"""The README's collection create through the gateway in front of stock
Weaviate, with the official Python client (weaviate-client v4) unchanged:
Configure.Reranker.custom("reranker-diverse-select", {...}) is accepted and
read back as sent; a few chunks are inserted; a helper query with no
per-query settings selects with the created tokenBudget; a bad setting is
refused. Run by integration/gateway_create_test.go with GATEWAY_HTTP_PORT,
GATEWAY_GRPC_PORT, DIVERSE_SELECT_CLASS, DIVERSE_SELECT_BUDGET,
DIVERSE_SELECT_CHUNKS (a JSON list of texts), DIVERSE_SELECT_QUERY and
DIVERSE_SELECT_OUT (what the client got)."""

import json
import os
import sys
from typing import Any, Dict

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "clients", "python"))

import weaviate  # noqa: E402
from weaviate.classes.config import Configure, DataType, Property  # noqa: E402
from weaviate.classes.query import MetadataQuery  # noqa: E402

from diverse_select import explain, rerank  # noqa: E402


def main() -> None:
    name = os.environ["DIVERSE_SELECT_CLASS"]
    budget = int(os.environ["DIVERSE_SELECT_BUDGET"])
    question = os.environ["DIVERSE_SELECT_QUERY"]
    out: Dict[str, Any] = {}
    client = weaviate.connect_to_custom(
        http_host="127.0.0.1", http_port=int(os.environ["GATEWAY_HTTP_PORT"]), http_secure=False,
        grpc_host="127.0.0.1", grpc_port=int(os.environ["GATEWAY_GRPC_PORT"]), grpc_secure=False)
    try:
        if not client.collections.exists(name):  # as the README: a second run reuses it
            articles = client.collections.create(
                name,
                description="the README's collection",
                properties=[Property(name="title", data_type=DataType.TEXT), Property(name="body", data_type=DataType.TEXT)],
                vector_config=Configure.Vectors.text2vec_transformers(),
                reranker_config=Configure.Reranker.custom("reranker-diverse-select", {"tokenBudget": budget}),
            )
            articles.data.insert_many([{"title": f"chunk {i}", "body": b}
                                       for i, b in enumerate(json.loads(os.environ["DIVERSE_SELECT_CHUNKS"]))])
        articles = client.collections.get(name)
        cfg = articles.config.get()
        out["reranker"] = str(cfg.reranker_config.reranker) if cfg.reranker_config else ""
        out["rerankerConfig"] = cfg.reranker_config.model if cfg.reranker_config else {}
        out["description"] = cfg.description
        res = articles.query.near_text(question, limit=40, rerank=rerank("body", question),
                                       return_metadata=MetadataQuery(explain_score=True), return_properties=["body"])
        picks = []
        for o in res.objects:
            why = explain(o)
            picks.append({"id": str(o.uuid), "body": o.properties["body"], "explain": o.metadata.explain_score,
                          "rank": why.rank if why else 0})
        out["picks"] = picks
        try:
            client.collections.create(
                name + "Bad",
                properties=[Property(name="body", data_type=DataType.TEXT)],
                reranker_config=Configure.Reranker.custom("reranker-diverse-select", {"tokenBudget": -5}))
            out["badError"] = ""
        except Exception as e:  # noqa: BLE001 - the client's own error, as a user meets it
            out["badError"] = str(e)
        out["badExists"] = client.collections.exists(name + "Bad")
    finally:
        client.close()
    with open(os.environ["DIVERSE_SELECT_OUT"], "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main()
