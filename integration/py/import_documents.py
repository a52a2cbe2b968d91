"""Segment at import with the official client and the helper, for
integration/import_test.go: ``python import_documents.py PHASE INPUT`` with
INPUT a JSON file {"http": URL, "grpc": "host:port", "collection": ..., "documents": [...], "maxTokens": n,
"apiKey": key or ""} (the helper sends the client's key to the segment endpoint).
Phases: ``import`` imports the documents (creating the collection when it is
not there); ``fail`` imports them with the chunk of index 1 of document
"broken" made a wrong type through the helper's test seam, so the server
refuses that chunk; ``word`` imports into a collection whose source_id has word
tokenization. Prints what the helper returned or raised, as JSON.
"""

import json
import sys
from typing import Any, Dict, List
from urllib.parse import urlparse

import weaviate
from weaviate.classes.config import Configure, DataType, Property, Tokenization
from weaviate.classes.init import Auth

import diverse_select
from diverse_select import _import


def main() -> None:
    phase, path = sys.argv[1], sys.argv[2]
    with open(path) as f:
        spec: Dict[str, Any] = json.load(f)
    http = urlparse(spec["http"])
    grpc_host, grpc_port = spec["grpc"].rsplit(":", 1)
    client = weaviate.connect_to_custom(http_host=str(http.hostname), http_port=int(http.port or 80), http_secure=False,
                                        grpc_host=grpc_host, grpc_port=int(grpc_port), grpc_secure=False,
                                        skip_init_checks=True,
                                        auth_credentials=Auth.api_key(spec["apiKey"]) if spec.get("apiKey") else None)
    try:
        name = spec["collection"]
        if not client.collections.exists(name):
            client.collections.create(name, vector_config=Configure.Vectors.self_provided(), properties=[
                Property(name="text", data_type=DataType.TEXT),
                Property(name="source_id", data_type=DataType.TEXT, tokenization=Tokenization.FIELD),
                Property(name="start", data_type=DataType.INT), Property(name="end", data_type=DataType.INT),
                Property(name="title", data_type=DataType.TEXT)])
        docs = client.collections.get(name)
        documents: List[Dict[str, Any]] = spec["documents"]
        out: Dict[str, Any] = {}
        if phase == "fail":
            real = _import._insert
            seen = {"broken": 0}

            def refuse_one(collection: Any, objects: List[Any]) -> Dict[int, str]:
                for o in objects:
                    if o.properties["source_id"] == "broken":
                        if seen["broken"] == 1:
                            o.properties["start"] = "not a number"
                        seen["broken"] += 1
                return real(collection, objects)

            _import._insert = refuse_one
            try:
                diverse_select.import_documents(docs, documents, method="packed", max_tokens=spec["maxTokens"],
                                                batch_size=1)
                out["error"] = ""
            except diverse_select.ImportDocumentsError as e:
                out.update(error=str(e), failures=e.failures, imported=e.imported)
            finally:
                _import._insert = real
        elif phase == "word":  # a source property of word tokenization is refused by name
            word = name + "Word"
            if not client.collections.exists(word):
                client.collections.create(word, properties=[Property(name="source_id", data_type=DataType.TEXT)])
            try:
                diverse_select.import_documents(client.collections.get(word), documents, method="packed")
                out["error"] = ""
            except ValueError as e:
                out["error"] = str(e)
        else:
            out["ids"] = diverse_select.import_documents(docs, documents, method="packed",
                                                         max_tokens=spec["maxTokens"])
        print(json.dumps(out))
    finally:
        client.close()


if __name__ == "__main__":
    main()
