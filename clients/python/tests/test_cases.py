"""The shared case table (clients/testdata/cases.json), as the TypeScript and
Go helpers' tests read it: settings in, rerank fields out; explain score in,
explanation out. The Weaviate Python client is not needed (rerank_fields).
Run on the installed helper (pip install -e clients/python; make venv does)."""

import json
import os
import unittest
from dataclasses import fields
from typing import Any, Dict

import diverse_select as ds

from diverse_select._generated import CLASSES, FIELDS, SPEC

with open(os.path.join(os.path.dirname(__file__), "..", "..", "testdata", "cases.json"), encoding="utf-8") as f:
    CASES: Dict[str, Any] = json.load(f)


def expand(options: Dict[str, Any]) -> Dict[str, Any]:
    return {k: ("x" * 4096 if v == "LONG4096" else v) for k, v in options.items()}


class EncodeCases(unittest.TestCase):
    def test_encode(self) -> None:
        for c in CASES["encode"]:
            with self.subTest(c["name"]):
                if "error" in c:
                    with self.assertRaises(ds.SettingsError) as cm:
                        ds.rerank_fields(c["property"], c["query"], ds.Select.from_wire(expand(c["options"])))
                    self.assertIn(c["error"], str(cm.exception))
                    continue
                got = ds.rerank_fields(c["property"], c["query"], ds.Select.from_wire(expand(c["options"])))
                self.assertEqual(got, {"prop": c["rerank"]["property"], "query": c["rerank"]["query"]})

    def test_typed_names(self) -> None:
        s = ds.Select.mmr(lambda_=0.7, token_budget=60)
        self.assertEqual(ds.rerank_fields("body", "q", s)["prop"],
                         'body|diverseSelect.v1|{"lambda":0.7,"strategy":"mmr","tokenBudget":60}')


class ExplainCases(unittest.TestCase):
    def test_explain(self) -> None:
        for c in CASES["explain"]:
            with self.subTest(c["name"]):
                got = ds.explain(c["explainScore"])
                want = c["explanation"]
                if want is None:
                    self.assertIsNone(got)
                    continue
                self.assertEqual(got, ds.Explanation(
                    rank=want["rank"], gain=want["gain"], relevance=want["relevance"],
                    relevance_source=want["relevanceSource"], redundancy=want["redundancy"], tokens=want["tokens"],
                    tokens_used=want["tokensUsed"], budget=want["budget"], stop_reason=want["stopReason"],
                    tokens_left=want["tokensLeft"], strategy=want["strategy"],
                    candidates=want["candidates"], selected=want["selected"], offset=want["offset"],
                    exhausted=want["exhausted"]))
                for field in ("gain", "relevance", "redundancy"):  # 0 == 0.0: equality alone would not see an int
                    self.assertIs(type(getattr(got, field)), float, field)


class Generated(unittest.TestCase):
    def test_every_option_is_a_field(self) -> None:
        names = {f.name for c in CLASSES.values() for f in fields(c)}
        for o in SPEC["keys"] + SPEC["params"]:
            self.assertIn(o["name"], FIELDS.values())
        self.assertEqual(names, set(FIELDS) - {"strategy"})

    def test_a_class_per_strategy_with_its_own_parameters(self) -> None:
        common = {f.name for f in fields(ds.Selection)}
        self.assertEqual(set(CLASSES), set(SPEC["keys"][0]["enum"]))
        for strategy, cls in CLASSES.items():
            with self.subTest(strategy):
                self.assertEqual(cls.strategy, strategy)
                self.assertIsInstance(getattr(ds.Select, strategy)(), cls)
                own = {FIELDS[f.name] for f in fields(cls)} - {FIELDS[n] for n in common}
                self.assertEqual(own, {p["name"] for p in SPEC["strategies"][strategy] or []})


if __name__ == "__main__":
    unittest.main()
