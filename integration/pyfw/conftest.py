"""What the framework tests (test_frameworks.py) share: the official Python
client connected to the server integration/frameworks_test.go names (the
module's server, or the gateway in front of stock Weaviate), the demo corpus
(internal/corpus) in the collection FrameworkDemo, created and filled when
missing, and the embedder's query vectors. Run only by that test, which
passes WEAVIATE_HTTP_PORT, WEAVIATE_GRPC_PORT, DIVERSE_SELECT_FW_INPUT (a
JSON file: the chunks, the queries, the embedder's URL, the target) and
DIVERSE_SELECT_FW_OUT (a folder for what the Go side checks after)."""

import json
import os
import urllib.request
import uuid
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List

import pytest
import weaviate
from weaviate.classes.config import Configure, DataType, Property
from weaviate.classes.data import DataObject

COLLECTION = "FrameworkDemo"
BUDGET = 300
"""The collection's token budget (the module's config, or the gateway's file), and the tests' default."""


@dataclass(frozen=True)
class Demo:
    """What integration/frameworks_test.go wrote: the demo corpus by chunk id,
    its queries' texts, the embedder's URL and the target."""

    chunks: Dict[str, Dict[str, Any]]
    queries: List[str]
    embedder: str
    target: str  # "module" or "gateway"

    def embed(self, text: str) -> List[float]:
        """The query vector from the collection's embedder (text2vec-transformers' protocol)."""
        body = json.dumps({"text": text, "config": {"task_type": "query"}}).encode()
        req = urllib.request.Request(self.embedder + "/vectors", data=body, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as res:
            vector = json.load(res)["vector"]
        assert isinstance(vector, list) and vector, "the embedder returned %r" % (vector,)
        return [float(x) for x in vector]


def chunk_uuid(chunk_id: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "diverse-select-demo/" + chunk_id))


@pytest.fixture(scope="session")
def demo() -> Demo:
    with open(os.environ["DIVERSE_SELECT_FW_INPUT"], encoding="utf-8") as f:
        raw = json.load(f)
    return Demo(chunks={c["id"]: c for c in raw["chunks"]}, queries=raw["queries"], embedder=raw["embedder"],
                target=raw["target"])


@pytest.fixture(scope="session")
def client(demo: Demo) -> Iterator[weaviate.WeaviateClient]:
    # skip_init_checks: no call outside the machine; is_ready checks the server instead.
    c = weaviate.connect_to_local(host="127.0.0.1", port=int(os.environ["WEAVIATE_HTTP_PORT"]),
                                  grpc_port=int(os.environ["WEAVIATE_GRPC_PORT"]), skip_init_checks=True)
    try:
        assert c.is_ready()
        if not c.collections.exists(COLLECTION):
            # The module's server selects on the collection's reranker; stock Weaviate has no such module, the
            # gateway's config file names the collection instead (same keys).
            reranker = Configure.Reranker.custom("reranker-diverse-select", {"tokenBudget": BUDGET}) \
                if demo.target == "module" else None
            c.collections.create(COLLECTION, vector_config=Configure.Vectors.text2vec_transformers(),
                                 reranker_config=reranker, properties=[
                                     Property(name="text", data_type=DataType.TEXT),
                                     Property(name="title", data_type=DataType.TEXT),
                                     Property(name="chunkId", data_type=DataType.TEXT, skip_vectorization=True)])
        coll = c.collections.get(COLLECTION)
        if len(coll) != len(demo.chunks):
            res = coll.data.insert_many([DataObject(properties={"text": ch["body"], "title": ch["title"], "chunkId": cid},
                                                    uuid=chunk_uuid(cid)) for cid, ch in demo.chunks.items()])
            assert not res.has_errors, res.errors
        yield c
    finally:
        c.close()


def out_path(name: str) -> str:
    return os.path.join(os.environ["DIVERSE_SELECT_FW_OUT"], name)
