"""The official Python client (weaviate-client v4) pointed at the gateway
unchanged (connect_to_custom): per-query settings through the helper
(clients/python) select; the client's own calls pass through. Run by
integration/gateway_clients_test.go with GATEWAY_HTTP_PORT,
GATEWAY_GRPC_PORT, DIVERSE_SELECT_CASES (helper settings by case name, the
server's key names), DIVERSE_SELECT_QUERY and DIVERSE_SELECT_OUT (what the
client got, for the Go test to compare with the module's answers)."""

import json
import os
import sys
from typing import Any, Dict, List

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "clients", "python"))

import weaviate  # noqa: E402
from weaviate.classes.query import MetadataQuery  # noqa: E402

from diverse_select import Select, explain, rerank  # noqa: E402


def main() -> None:
    question = os.environ["DIVERSE_SELECT_QUERY"]
    client = weaviate.connect_to_custom(
        http_host="127.0.0.1", http_port=int(os.environ["GATEWAY_HTTP_PORT"]), http_secure=False,
        grpc_host="127.0.0.1", grpc_port=int(os.environ["GATEWAY_GRPC_PORT"]), grpc_secure=False)
    try:
        eq = client.collections.get("GatewayEq")
        selections: Dict[str, List[Dict[str, Any]]] = {}
        for name, options in json.loads(os.environ["DIVERSE_SELECT_CASES"]).items():
            res = eq.query.near_text(query=question, limit=60, rerank=rerank("body", question, Select.from_wire(options)),
                                     return_metadata=MetadataQuery(explain_score=True), return_properties=["body"])
            picks: List[Dict[str, Any]] = []
            for o in res.objects:
                why = explain(o)
                picks.append({"id": str(o.uuid), "explain": o.metadata.explain_score, "rank": why.rank if why else 0})
            selections[name] = picks
        out: Dict[str, Any] = {"selections": selections}
        plain = eq.query.near_text(query=question, limit=7)
        out["plain"] = [str(o.uuid) for o in plain.objects]
        out["count"] = eq.aggregate.over_all(total_count=True).total_count
        out["live"] = client.is_live()
    finally:
        client.close()
    with open(os.environ["DIVERSE_SELECT_OUT"], "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main()
