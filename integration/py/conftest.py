"""What the tests of diverse-select through the official Python client share:
the client, connected to the stack integration/python_test.go started, and
the input that test wrote (DIVERSE_SELECT_PY_INPUT, a JSON file): the planted
corpus, the settings cases and the collections it created. Run only by that
test, which passes WEAVIATE_HTTP_PORT, WEAVIATE_GRPC_PORT and
DIVERSE_SELECT_PY_OUT (a folder for what the Go side checks after)."""

import json
import os
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List

import pytest
import weaviate
from weaviate.classes.data import DataObject
from weaviate.collections.classes.internal import Object

# The Health corpus's question: groups 1 and 2 hold its near-duplicates.
QUERY = "statins cholesterol heart"


@dataclass(frozen=True)
class Doc:
    """One object of the planted corpus: its id, its body, its group of
    near-duplicates and its cl100k token count, as the module counts it."""

    key: str
    uuid: str
    body: str
    group: int
    tokens: int


@dataclass(frozen=True)
class Input:
    """What integration/python_test.go wrote for these tests."""

    docs: List[Doc]
    raw: Dict[str, Any]

    def objects(self) -> List[DataObject[Dict[str, Any], None]]:
        """The corpus to insert, each object with its id."""
        return [DataObject(properties={"body": d.body}, uuid=d.uuid) for d in self.docs]

    def by_body(self, body: str) -> Doc:
        for d in self.docs:
            if d.body == body:
                return d
        raise AssertionError("%.60r is not a document of the corpus" % body)

    def groups(self, objects: List[Object[Any, Any]]) -> List[int]:
        return [self.by_body(body(o)).group for o in objects]

    def tokens(self, objects: List[Object[Any, Any]]) -> int:
        return sum(self.by_body(body(o)).tokens for o in objects)


def body(o: Object[Any, Any]) -> str:
    b = o.properties["body"]
    assert isinstance(b, str), "body %r" % (b,)
    return b


def duplicate_pairs(groups: List[int]) -> List[int]:
    """The group of each pair of selected near-duplicates."""
    return [g for i, g in enumerate(groups) for h in groups[i + 1:] if h == g]


def out_path(name: str) -> str:
    return os.path.join(os.environ["DIVERSE_SELECT_PY_OUT"], name)


@pytest.fixture(scope="session")
def data() -> Input:
    with open(os.environ["DIVERSE_SELECT_PY_INPUT"], encoding="utf-8") as f:
        raw = json.load(f)
    return Input(docs=[Doc(d["key"], d["uuid"], d["body"], d["group"], d["tokens"]) for d in raw["docs"]], raw=raw)


@pytest.fixture(scope="session")
def client() -> Iterator[weaviate.WeaviateClient]:
    # skip_init_checks: no call outside the machine (the client asks the package registry for its latest
    # version otherwise); is_ready checks the server instead.
    c = weaviate.connect_to_local(host="127.0.0.1", port=int(os.environ["WEAVIATE_HTTP_PORT"]),
                                  grpc_port=int(os.environ["WEAVIATE_GRPC_PORT"]), skip_init_checks=True)
    try:
        assert c.is_ready()
        yield c
    finally:
        c.close()
