"""The framework components' own checks, without a server: the budget joins
the settings, and bad input fails with a message that names it, before any
query. Against the server they run in integration/pyfw."""

import unittest
from typing import Any, Callable, Dict, List, Tuple, Type

from diverse_select import Select, SettingsError
from diverse_select._frameworks import search, with_budget


class WithBudget(unittest.TestCase):
    def test_cases(self) -> None:
        mmr = Select.mmr(lambda_=0.7)
        for name, settings, budget, want in [
            ("neither", None, None, None),
            ("budget only", None, 300, Select.configured(token_budget=300)),
            ("settings only", mmr, None, mmr),
            ("both", mmr, 300, Select.mmr(lambda_=0.7, token_budget=300)),
            ("budget overrides", Select.coverage(token_budget=50), 300, Select.coverage(token_budget=300)),
        ]:
            with self.subTest(name):
                self.assertEqual(with_budget(settings, budget), want)

    def test_not_settings(self) -> None:
        with self.assertRaisesRegex(TypeError, r"settings is dict; allowed: what Select makes \(Select.mmr"):
            with_budget({"tokenBudget": 300}, 100)  # type: ignore[arg-type]


class BadInput(unittest.TestCase):
    """Refused before the client is touched (None would fail otherwise)."""

    def test_search(self) -> None:
        client: Any = None
        cases: List[Tuple[str, Dict[str, Any], str]] = [
            ("pool zero", dict(question="q", pool=0), "pool is 0; allowed: an integer >= 1"),
            ("pool text", dict(question="q", pool="40"), "pool is '40'"),
            ("empty question", dict(question=" ", pool=40), "the question is ' '; allowed: a non-empty string"),
        ]
        for name, kwargs, message in cases:
            with self.subTest(name), self.assertRaisesRegex(ValueError, message):
                search(client, "C", "body", **kwargs)

    def test_budget_out_of_range(self) -> None:
        """Each component refuses a budget the server would refuse when it is made."""
        from diverse_select import haystack, langchain, llamaindex

        # LangChain's retriever is a pydantic model: pydantic raises its ValidationError (a ValueError) with ours inside.
        makers: List[Tuple[str, Type[Exception], Callable[[], object]]] = [
            ("langchain", ValueError, lambda: langchain.DiverseSelectRetriever(client=None, collection="C", token_budget=-5)),
            ("llamaindex", SettingsError, lambda: llamaindex.DiverseSelectRetriever(None, "C", token_budget=-5)),
            ("haystack", SettingsError, lambda: haystack.DiverseSelectRetriever(None, "C", token_budget=-5)),
        ]
        for name, error, make in makers:
            with self.subTest(name), self.assertRaisesRegex(error, '"tokenBudget" .* is -5; allowed: an integer in'):
                make()

    def test_not_a_vector_store(self) -> None:
        from diverse_select.langchain import DiverseSelectRetriever

        with self.assertRaisesRegex(TypeError, "object is not a langchain-weaviate WeaviateVectorStore"):
            DiverseSelectRetriever.from_vector_store(object(), token_budget=300)

    def test_haystack_bad_settings(self) -> None:
        from diverse_select.haystack import DiverseSelectRetriever

        with self.assertRaisesRegex(TypeError, "settings is str"):
            DiverseSelectRetriever(client=None, collection="C", settings="strategy: mmr", token_budget=100)  # type: ignore[arg-type]


if __name__ == "__main__":
    unittest.main()
