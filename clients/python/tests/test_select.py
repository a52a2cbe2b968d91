"""The typed settings: one class per strategy made by Select's factories,
checked on construction. A value out of range raises SettingsError naming the
setting, its argument and the allowed values; an argument the strategy does
not take is a TypeError at run time and an error of mypy --strict, which
passes the correct usage (both run here on small files)."""

import dataclasses
import os
import subprocess
import sys
import tempfile
import unittest
from typing import Any, Callable, Dict, List, Tuple

import diverse_select as ds
from diverse_select import Select


class Refused(unittest.TestCase):
    # (factory, arguments, the error's whole message)
    CASES: List[Tuple[Callable[..., ds.Selection], Dict[str, Any], str]] = [
        (Select.mmr, {"lambda_": 2.5},
         'diverse-select: "lambda" (argument lambda_) for strategy mmr is 2.5; allowed: a number in [0, 1]'),
        (Select.adagres, {"lambda_": -1},
         'diverse-select: "lambda" (argument lambda_) for strategy adagres is -1; allowed: a number in [0, inf)'),
        (Select.coverage, {"token_budget": -5},
         'diverse-select: "tokenBudget" (argument token_budget) is -5; allowed: an integer in [0, 1073741824]'),
        (Select.coverage, {"targets": 1.5},
         'diverse-select: "targets" for strategy coverage is 1.5; allowed: an integer in [0, 16384]'),
        (Select.coverage, {"center": 1}, 'diverse-select: "center" for strategy coverage is 1; allowed: true or false'),
        (Select.topk, {"order": "sideways"},
         'diverse-select: "order" is "sideways"; allowed: one of selection, relevance, edges'),
        (Select.dpp, {"dedup_threshold": 0},
         'diverse-select: "dedupThreshold" (argument dedup_threshold) is 0; allowed: a number in (0, 1]'),
        (Select.relcost, {"max_results": True},
         'diverse-select: "maxResults" (argument max_results) is true; allowed: an integer in [0, 1048576]'),
        (Select.configured, {"params": {"lambda": -1}},
         'diverse-select: "lambda" (argument params) for strategy adagres or mmr is -1; allowed: a number in [0, inf)'),
        (Select.configured, {"params": {"tokenBudget": 60}},
         'diverse-select: "tokenBudget" (argument params) is a setting of its own, not a strategy parameter'),
        (Select.from_wire, {"options": {"strategy": "topk", "lambda": 0.5}},
         'diverse-select: "lambda" (argument lambda_) is not a parameter of strategy "topk"; its parameters: fit'),
        (Select.from_wire, {"options": {"strategy": "nope"}},
         'diverse-select: "strategy" is "nope"; allowed: one of adagres, cliff, coverage, dpp'),
        (Select.from_wire, {"options": {"candidates": 50}},
         'diverse-select: "candidates" is not a per-query setting; allowed: alpha, base, beta'),
    ]

    def test_out_of_range(self) -> None:
        for factory, kwargs, want in self.CASES:
            with self.subTest(want):
                with self.assertRaises(ds.SettingsError) as cm:
                    factory(**kwargs)
                self.assertTrue(str(cm.exception).startswith(want), "%s\nwant it to start with\n%s" % (cm.exception, want))

    def test_long_values_are_cut_in_the_message(self) -> None:
        long: Any = "x" * (1 << 20)
        makers: List[Callable[[], Any]] = [lambda: Select.mmr(order=long),
                                           lambda: Select.configured(params={"lambda": long}),
                                           lambda: ds.rerank_fields("body|" + long, "q")]
        for make in makers:
            with self.assertRaises(ds.SettingsError) as cm:
                make()
            self.assertLess(len(str(cm.exception)), 400, str(cm.exception)[:400])
            self.assertRegex(str(cm.exception), r"\.\.\. \(\d+ characters\); allowed: ")

    def test_foreign_argument_is_a_type_error(self) -> None:
        cases: List[Tuple[Callable[..., ds.Selection], Dict[str, Any]]] = [
            (Select.mmr, {"theta": 1}), (Select.coverage, {"lambda_": 0.5}), (Select.relcost, {"strategy": "mmr"}),
            (Select.configured, {"lambda_": 0.5})]
        for factory, kwargs in cases:
            with self.subTest(kwargs):
                with self.assertRaises(TypeError) as cm:
                    factory(**kwargs)
                self.assertIn(next(iter(kwargs)), str(cm.exception))

    def test_only_a_selection_is_settings(self) -> None:
        with self.assertRaises(TypeError) as cm:
            ds.rerank_fields("body", "q", {"strategy": "mmr"})  # type: ignore[arg-type]
        self.assertIn("settings is a dict; allowed: None or the settings Select's factories make", str(cm.exception))


class Made(unittest.TestCase):
    def test_wire_and_shape(self) -> None:
        s = Select.coverage(token_budget=300, center=False, extra_text_properties=["title"], order="edges")
        self.assertIsInstance(s, ds.CoverageSelection)
        self.assertEqual(s.strategy, "coverage")
        self.assertEqual(s.wire(), {"strategy": "coverage", "tokenBudget": 300, "center": False,
                                    "extraTextProperties": ["title"], "order": "edges"})
        self.assertEqual(repr(s), "Select.coverage(token_budget=300, extra_text_properties=['title'], order='edges', "
                                  "center=False)")
        self.assertEqual(Select.configured(token_budget=60, params={"lambda": 0.5}).wire(),
                         {"tokenBudget": 60, "lambda": 0.5})
        self.assertEqual(Select.configured().wire(), {})
        self.assertEqual(ds.rerank_fields("body", "q", Select.configured()), {"prop": "body", "query": "q"})
        with self.assertRaises(dataclasses.FrozenInstanceError):
            s.token_budget = 5  # type: ignore[misc]

    def test_checked_again_when_sent(self) -> None:
        s = Select.configured(extra_text_properties=["title"], params={"lambda": 0.5})
        assert s.extra_text_properties is not None
        s.extra_text_properties.append(5)  # type: ignore[arg-type]
        with self.assertRaises(ds.SettingsError) as cm:
            ds.rerank_fields("body", "q", s)
        self.assertEqual(cm.exception.key, "extraTextProperties")

    def test_from_wire_is_the_strategy_class(self) -> None:
        s = Select.from_wire({"strategy": "mmr", "tokenBudget": 60, "lambda": 0.7})
        self.assertEqual(s, Select.mmr(token_budget=60, lambda_=0.7))
        self.assertEqual(Select.from_wire({"lambda": 0.5}), Select.configured(params={"lambda": 0.5}))


def mypy(source: str, cache: str) -> "subprocess.CompletedProcess[str]":
    """mypy --strict on source (a file of its own) with the installed helper."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "usage.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(source)
        return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", cache, "--no-error-summary",
                               path], capture_output=True, text=True, cwd=tmp)


class TypeChecked(unittest.TestCase):
    """The type checker sees each strategy's own arguments."""

    GOOD = """from diverse_select import MMRSelection, Select, Selection, rerank_fields

mmr: MMRSelection = Select.mmr(lambda_=0.7, token_budget=300)
lam: float | None = mmr.lambda_
settings: list[Selection] = [mmr, Select.coverage(token_budget=300, center=True, order="edges"),
                             Select.configured(max_results=5, params={"lambda": 0.5})]
fields = [rerank_fields("body", "q", s) for s in settings]
"""
    # line: (a line of the output must hold each of these)
    BAD = {
        'Select.mmr(theta=1)': ['Unexpected keyword argument "theta" for "mmr" of "Select"'],
        'Select.topk(lambda_=0.5)': ['Unexpected keyword argument "lambda_" for "topk" of "Select"'],
        'Select.coverage(order="sideways")': ['Argument "order" to "coverage" of "Select" has incompatible type'],
        'Select.mmr(token_budget="60")': ['Argument "token_budget" to "mmr" of "Select" has incompatible type "str"'],
        'Select.mmr(strategy="topk")': ['Unexpected keyword argument "strategy" for "mmr" of "Select"'],
        'Select.mmr(0.7)': ['Too many positional arguments for "mmr" of "Select"'],
    }

    def test_mypy(self) -> None:
        # In a venv, its mypy cache (make test-clients' too): a cold one takes half a minute.
        venv_cache = os.path.join(sys.prefix, "mypy-cache") if sys.prefix != sys.base_prefix else None
        with tempfile.TemporaryDirectory() as tmp:
            cache = venv_cache or tmp
            good = mypy(self.GOOD, cache)
            self.assertEqual((good.returncode, good.stdout), (0, ""), "mypy --strict refuses the correct usage")
            lines = list(self.BAD)
            bad = mypy("from diverse_select import Select\n\n" + "\n".join(lines) + "\n", cache)
        self.assertEqual(bad.returncode, 1, bad.stdout + bad.stderr)
        for i, line in enumerate(lines):
            at = "usage.py:%d: error: " % (i + 3)
            got = [out for out in bad.stdout.splitlines() if at in out]
            for want in self.BAD[line]:
                self.assertTrue(any(want in g for g in got), "%s: want %r among %s" % (line, want, got))


if __name__ == "__main__":
    unittest.main()
