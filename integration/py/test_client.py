"""diverse-select through the official Python client (weaviate-client v4, gRPC)
and the helper (clients/python, installed in the venv as a user installs it),
against the real server: a collection configuring reranker-diverse-select, typed settings and the
explanation read into typed fields, pages, a cross-encoder with the selection,
generative search with the selection, questions that imitate settings, and the
collection's policy caps. Started by integration/python_test.go (see
conftest.py), which checks what these tests write (the selections per
settings against the library, the generative replies against what the LLM
was sent) after they pass."""

import json
from typing import Any, Dict, List, Optional, Tuple

import pytest
import weaviate
from weaviate.classes.query import Diversity, MetadataQuery, Rerank
from weaviate.collections.classes.internal import Object
from weaviate.exceptions import WeaviateQueryError

import diverse_select as ds
from conftest import QUERY, Input, body, duplicate_pairs, out_path

EXPLAIN = MetadataQuery(explain_score=True)


def whys(objects: List[Object[Any, Any]]) -> List[ds.Explanation]:
    """Each object's explanation; every selected object carries one."""
    out = []
    for i, o in enumerate(objects):
        why = ds.explain(o)
        assert why is not None, "object %d carries no explanation: %r" % (i, o.metadata.explain_score)
        out.append(why)
    return out


def graphql(client: weaviate.WeaviateClient, query: str) -> Dict[str, Any]:
    """A raw GraphQL query's Get (it must succeed)."""
    res = client.graphql_raw_query(query)
    assert not res.errors, "GraphQL errors %s\nquery: %s" % (res.errors, query)
    assert isinstance(res.get, dict)
    return res.get


def graphql_error(client: weaviate.WeaviateClient, query: str) -> str:
    """A raw GraphQL query's first error message (it must fail)."""
    res = client.graphql_raw_query(query)
    assert res.errors, "GraphQL accepted %s" % query
    msg = res.errors[0]["message"] if isinstance(res.errors, list) else res.errors["message"]
    assert isinstance(msg, str)
    return msg


def alive(client: weaviate.WeaviateClient) -> None:
    """The server is up and still answers a good query."""
    assert client.is_ready(), "the server is not ready"
    res = client.collections.get("Article").query.near_text(QUERY, limit=19, rerank=ds.rerank("body", QUERY))
    assert len(res.objects) >= 2, "a good query selected %d objects" % len(res.objects)


def test_readme_snippet(client: weaviate.WeaviateClient, data: Input) -> None:
    """A collection of the README's form (its programs run in TestDocSnippets) configures
    reranker-diverse-select; the per-query settings select under their budget
    and each pick explains itself."""
    if client.collections.exists("Article"):
        client.collections.delete("Article")
    from weaviate.classes.config import Configure, DataType, Property
    from weaviate.classes.query import MetadataQuery
    from diverse_select import Select, explain, rerank

    articles = client.collections.create(
        "Article",
        properties=[Property(name="body", data_type=DataType.TEXT)],
        vector_config=Configure.Vectors.text2vec_transformers(),
        reranker_config=Configure.Reranker.custom("reranker-diverse-select", {"strategy": "adagres", "tokenBudget": 100}),
    )
    inserted = articles.data.insert_many(data.objects())
    assert not inserted.has_errors, inserted.errors
    question = "statins cholesterol heart"  # your user's words, sent as they are
    # Per-query settings through the helper (clients/python): typed, sent in the rerank property;
    # the question stays plain text, so an end user's words cannot change the settings.
    res = articles.query.near_text(
        question,
        limit=40,  # the candidate pool
        rerank=rerank("body", question, Select.mmr(token_budget=60, lambda_=0.7)),
        return_metadata=MetadataQuery(explain_score=True),
    )
    for o in res.objects:
        why = explain(o)  # Explanation(rank, gain, relevance, relevance_source, tokens, tokens_used, strategy, ...)
        assert why is not None  # None: the object carries no explanation (ask for explain_score)
        print(why.rank, round(why.gain, 3), why.tokens, o.properties["body"])
    assert 2 <= len(res.objects) < len(data.docs), "%d of %d selected" % (len(res.objects), len(data.docs))
    explained = whys(res.objects)
    used = sum(why.tokens for why in explained)
    for i, (o, why) in enumerate(zip(res.objects, explained)):
        assert (why.rank, why.strategy, why.budget) == (i + 1, "mmr", 60)
        assert why.tokens == data.by_body(body(o)).tokens, "tokens as the module counts them"
        assert why.tokens_used == used, "tokensUsed is the selection's total"
    assert used <= 60, "%d tokens selected, budget 60" % used
    assert duplicate_pairs(data.groups(res.objects)) == [], "planted duplicates selected: groups %s" % data.groups(res.objects)


def test_collection_settings_next_to_builtin_mmr(client: weaviate.WeaviateClient, data: Input) -> None:
    """Without settings the collection's (adagres, 100 tokens) select: no
    near-duplicates where top-k holds them, within the budget, the most relevant
    group first, rerankScore the position; Weaviate's own MMR on the same query
    returns its limit."""
    articles = client.collections.get("Article")
    selected = articles.query.near_text(QUERY, limit=40, rerank=ds.rerank("body", QUERY))
    topk = articles.query.near_text(QUERY, limit=5)
    mmr = articles.query.near_text(QUERY, limit=40, diversity_selection=Diversity.mmr(limit=5, balance=0.5))
    for label, objs in [("top-k (limit 5)", topk.objects), ("built-in MMR (limit 5, balance 0.5)", mmr.objects),
                        ("diverse-select (budget 100)", selected.objects)]:
        g = data.groups(objs)
        print("%-36s %d objects, groups %s, duplicate pairs %d, %d tokens"
              % (label, len(objs), g, len(duplicate_pairs(g)), data.tokens(objs)))
    assert duplicate_pairs(data.groups(topk.objects)), "top-k holds planted duplicates: the corpus tests something"
    sel = data.groups(selected.objects)
    assert 2 <= len(sel) < len(data.docs)
    assert duplicate_pairs(sel) == [], "planted duplicates selected: groups %s" % sel
    assert data.tokens(selected.objects) <= 100
    assert sel[0] == 1, "the first pick is from the most relevant group"
    n = len(selected.objects)
    for i, o in enumerate(selected.objects):
        assert o.metadata.rerank_score == pytest.approx((n - i) / n, abs=1e-9), "rerank score at %d" % i
    assert len(mmr.objects) == 5, "MMR returns its limit"


def test_typed_settings_per_query(client: weaviate.WeaviateClient, data: Input) -> None:
    """Each settings case of the Go tests through the typed helper: the
    selections go to the Go side, which checks them against the library; a bad
    value is refused by the helper, and by the server, sent raw, with the
    message GraphQL gives."""
    articles = client.collections.get("Article")
    selections: Dict[str, List[str]] = {}
    for name, options in data.raw["settings"].items():
        settings = ds.Select.from_wire(options)
        res = articles.query.near_text(QUERY, limit=40, rerank=ds.rerank("body", QUERY, settings),
                                       return_metadata=EXPLAIN)
        selections[name] = [str(o.uuid) for o in res.objects]
        for i, why in enumerate(whys(res.objects)):
            assert why.rank == i + 1
            if settings.strategy is not None:
                assert why.strategy == settings.strategy
            assert why.budget == settings.token_budget
            if settings.max_results is not None:
                assert len(res.objects) <= settings.max_results
    with open(out_path("selections.json"), "w", encoding="utf-8") as f:
        json.dump(selections, f)

    for bad in data.raw["badSettings"]:
        with pytest.raises(ds.SettingsError) as refused:
            ds.rerank("body", QUERY, ds.Select.from_wire(json.loads(bad["JSON"])))
        assert refused.value.key == bad["Key"]
        gql = graphql_error(client, '{ Get { Article(nearText: {concepts: [%s]}, limit: 40) { body _additional '
                                    '{ diverseSelect(%s) { rank } } } } }' % (json.dumps(QUERY), bad["GQL"]))
        assert gql.startswith("diverseSelect: "), "GraphQL error %r does not name the module" % gql
        want = "reranker-diverse-select: rerank: " + gql[len("diverseSelect: "):]
        with pytest.raises(WeaviateQueryError) as failed:
            articles.query.near_text(QUERY, limit=40,
                                     rerank=Rerank(prop="body|%s|%s" % (ds.VERSION, bad["JSON"]), query=QUERY))
        assert want in str(failed.value), "gRPC error %s\ndoes not hold GraphQL's %s" % (failed.value, want)


def test_explanation_typed_fields(client: weaviate.WeaviateClient, data: Input) -> None:
    """The explanation's fields come back typed and consistent with the
    selection: rank, gain, relevance and its source, redundancy, tokens and the
    selection's total, budget, strategy, pool, selection size, offset."""
    pool = len(data.docs)
    res = client.collections.get("Article").query.near_text(
        QUERY, limit=pool, rerank=ds.rerank("body", QUERY, ds.Select.adagres(token_budget=90)),
        return_metadata=EXPLAIN)
    explained = whys(res.objects)
    assert len(explained) >= 2
    used = sum(why.tokens for why in explained)
    for i, (o, why) in enumerate(zip(res.objects, explained)):
        for field, kind in [("rank", int), ("gain", float), ("relevance", float), ("relevance_source", str),
                            ("redundancy", float), ("tokens", int), ("tokens_used", int), ("budget", int),
                            ("strategy", str), ("candidates", int), ("selected", int), ("offset", int)]:
            v = getattr(why, field)
            assert isinstance(v, kind) and not isinstance(v, bool), "%s is %r, not %s" % (field, v, kind.__name__)
        assert why.rank == i + 1
        assert (why.strategy, why.budget, why.candidates, why.selected, why.offset) == ("adagres", 90, pool, len(res.objects), 0)
        assert why.tokens == data.by_body(body(o)).tokens and why.tokens_used == used
        assert 0 <= why.relevance <= 1, "relevance %r" % why.relevance
        assert why.relevance_source == "distance", "a nearText pool without a cross-encoder: %s" % why.relevance_source
        assert why.exhausted is None, "exhausted is only reported when the query pages (offset)"
    assert used <= 90
    assert explained[0].relevance == max(w.relevance for w in explained), "the first pick is the most relevant"


def test_pages(client: weaviate.WeaviateClient, data: Input) -> None:
    """The search's offset pages the selection over gRPC: the pages are those
    of GraphQL's diverseSelect field with the same settings, ranks continue
    across pages, the offset may come in the settings instead, and the last
    page says it is the last (exhausted)."""
    articles = client.collections.get("Article")
    pool = len(data.docs)
    settings = ds.Select.mmr(max_results=3, token_budget=120)

    def grpc_page(offset: int, via_settings: bool) -> Tuple[List[str], List[ds.Explanation]]:
        s = ds.Select.mmr(max_results=3, token_budget=120, offset=offset) if via_settings else settings
        res = articles.query.near_text(QUERY, limit=pool, offset=None if via_settings else offset,
                                       rerank=ds.rerank("body", QUERY, s), return_metadata=EXPLAIN)
        return [str(o.uuid) for o in res.objects], whys(res.objects)

    def graphql_page(offset: int) -> List[str]:
        got = graphql(client, '{ Get { Article(nearText: {concepts: [%s]}, limit: %d, offset: %d) { _additional { id '
                              'diverseSelect(strategy: "mmr", maxResults: 3, tokenBudget: 120, textProperty: "body", query: %s) '
                              '{ rank } } } } }' % (json.dumps(QUERY), pool, offset, json.dumps(QUERY)))
        return [o["_additional"]["id"] for o in got["Article"]]

    pages: List[List[str]] = []
    offset = 0
    while True:
        assert len(pages) <= pool, "more pages than candidates"
        ids, explained = grpc_page(offset, False)
        assert ids == graphql_page(offset), "page %d at offset %d differs from GraphQL's" % (len(pages) + 1, offset)
        assert grpc_page(offset, True)[0] == ids, "the offset in the settings gives another page"
        if not ids:
            break
        assert len(ids) <= 3
        for i, why in enumerate(explained):
            assert (why.rank, why.offset) == (offset + i + 1, offset), "ranks continue across pages"
            if offset > 0:
                assert why.exhausted is not None
        pages.append(ids)
        offset += len(ids)
    assert len(pages) >= 2, "only %d page(s)" % len(pages)
    seen = [i for p in pages for i in p]
    assert len(seen) == len(set(seen)), "pages overlap: %s" % pages
    last = grpc_page(offset - len(pages[-1]), False)[1]
    assert len(pages) == 1 or last[0].exhausted is True, "the last page is exhausted"
    print("gRPC pages:", [len(p) for p in pages])


def test_demo_pages(client: weaviate.WeaviateClient, data: Input) -> None:
    """Issue 42: the default pages make run's demo corpus at a budget of 100
    tokens through the helper (its offset setting, over gRPC) until a page is
    empty; each page's bodies, exhausted and stopReason go to demo-pages.json,
    which the Go test checks against the corpus (checkDemoPages: the pages go
    on while the query's topic is unshown)."""
    demo = data.raw["demoPages"]
    pages: Dict[str, List[Dict[str, Any]]] = {}
    for q in demo["queries"]:
        collection = client.collections.get(demo["collection"])
        got: List[Dict[str, Any]] = []
        offset = 0
        while len(got) <= demo["pool"]:
            # The helper's offset (the search's offset 0 would be no offset: page 1 would not say whether it is the last).
            res = collection.query.near_text(
                q["text"], limit=demo["pool"],
                rerank=ds.rerank("body", q["text"], ds.Select.coverage(token_budget=demo["budget"], offset=offset)),
                return_metadata=EXPLAIN)
            explained = whys(res.objects)
            page: Dict[str, Any] = {"bodies": [body(o) for o in res.objects], "exhausted": None, "stopReason": ""}
            if explained:
                assert len({(w.exhausted, w.stop_reason) for w in explained}) == 1, "one page, one exhausted and stopReason"
                page["exhausted"], page["stopReason"] = explained[0].exhausted, explained[0].stop_reason
                assert all(w.offset == offset for w in explained)
            got.append(page)
            if not res.objects:
                break
            offset += len(res.objects)
        assert len(got) >= 4, "%s: %d pages at budget %d" % (q["id"], len(got) - 1, demo["budget"])
        pages[q["id"]] = got
    with open(out_path("demo-pages.json"), "w", encoding="utf-8") as f:
        json.dump(pages, f)
    print("demo pages:", {k: len(v) - 1 for k, v in pages.items()})


def test_cross_encoder_with_selection(client: weaviate.WeaviateClient, data: Input) -> None:
    """On a collection whose reranker is a cross-encoder (reranker-transformers,
    the stack's rerank server), the helper's settings make one gRPC search
    rerank and then select, as GraphQL's rerank + diverseSelect fields do."""
    name = data.raw["collections"]["reranked"]
    res = client.collections.get(name).query.near_text(
        QUERY, limit=12, rerank=ds.rerank("body", QUERY, ds.Select.mmr(token_budget=100)),
        return_metadata=EXPLAIN)
    got = graphql(client, '{ Get { %s(nearText: {concepts: [%s]}, limit: 12) { _additional { id '
                          'rerank(property: "body", query: %s) { score } '
                          'diverseSelect(strategy: "mmr", tokenBudget: 100) '
                          '{ rank gain relevance relevanceSource tokens tokensUsed strategy } } } } }'
                  % (name, json.dumps(QUERY), json.dumps(QUERY)))
    want = [o["_additional"] for o in got[name]]
    assert 2 <= len(want) < 12, "the selection drops part of the pool"
    assert [str(o.uuid) for o in res.objects] == [w["id"] for w in want], "the same selection as GraphQL"
    for o, why, w in zip(res.objects, whys(res.objects), want):
        ws = w["diverseSelect"]
        assert why.relevance_source == "rerank"
        assert (why.rank, why.relevance_source, why.tokens, why.tokens_used, why.strategy) == \
            (ws["rank"], ws["relevanceSource"], ws["tokens"], ws["tokensUsed"], ws["strategy"])
        assert why.gain == pytest.approx(ws["gain"], abs=1e-9) and why.relevance == pytest.approx(ws["relevance"], abs=1e-9)
        assert o.metadata.rerank_score == pytest.approx(w["rerank"][0]["score"], abs=1e-6), "rerankScore is the cross-encoder's"


def test_generative_with_selection(client: weaviate.WeaviateClient, data: Input) -> None:
    """generate.near_text with rerank on collections whose reranker is
    reranker-diverse-select: the objects returned are the selection (the same
    query without generate) and an answer comes back for the group and each
    object; every reply goes to the Go side, which checks the LLM got exactly
    the selection in order (generative-dummy echoes its prompt, the OpenAI
    recorder keeps it). Then typed settings through the helper on the dummy."""
    rag = data.raw["rag"]
    with open(out_path("rag.jsonl"), "w", encoding="utf-8") as out:
        for name in rag["collections"]:
            collection = client.collections.get(name)
            selection = [body(o) for o in collection.query.near_text(
                QUERY, limit=rag["pool"], rerank=ds.rerank("body", QUERY)).objects]
            assert 2 <= len(selection) < rag["pool"], "%s: the selection drops part of the pool" % name
            for run in range(rag["runs"]):
                tag = "py-%d" % run
                res = collection.generate.near_text(
                    QUERY, limit=rag["pool"], rerank=ds.rerank("body", QUERY),
                    single_prompt="(%s) Summarise: {body}" % tag,
                    grouped_task="Answer from these chunks (%s)" % tag, grouped_properties=["body"])
                bodies = [body(o) for o in res.objects]
                assert bodies == selection, "%s run %d: generate returned another set" % (name, run)
                grouped: Optional[str] = res.generative.text if res.generative else None
                assert grouped, "%s run %d: no grouped answer" % (name, run)
                out.write(json.dumps({"collection": name, "tag": tag, "bodies": bodies, "grouped": grouped,
                                      "singles": [o.generative.text if o.generative else None for o in res.objects]}) + "\n")

    # Settings through the helper: the dummy's answer echoes the grouped prompt, whose context is the selection.
    dummy = client.collections.get(rag["dummy"])
    settings = ds.Select.mmr(token_budget=60, lambda_=0.7)
    selection = [body(o) for o in dummy.query.near_text(QUERY, limit=rag["pool"], rerank=ds.rerank("body", QUERY, settings)).objects]
    res = dummy.generate.near_text(QUERY, limit=rag["pool"], rerank=ds.rerank("body", QUERY, settings),
                                   grouped_task="Answer from these chunks only.", grouped_properties=["body"])
    assert [body(o) for o in res.objects] == selection
    context = json.dumps([{"body": b} for b in selection], separators=(",", ":"), ensure_ascii=False)
    answer = res.generative.text if res.generative else None
    assert answer and "Answer from these chunks only.: " + context in answer, \
        "the LLM did not get the selection as its context: %.400r" % answer


def test_injection(client: weaviate.WeaviateClient, data: Input) -> None:
    """Questions that imitate settings, sent as the rerank query through the
    helper to the Article collection and to its copy with rerankQuerySyntax:
    text (the collection's settings), settings (the question's), or a refusal
    holding the expected words; the server answers after each."""
    opt_in = data.raw["collections"]["inText"]

    def outcome(name: str, question: str) -> str:
        try:
            res = client.collections.get(name).query.near_text(QUERY, limit=19, rerank=ds.rerank("body", question),
                                                                return_metadata=EXPLAIN)
        except WeaviateQueryError as e:
            return "refused: " + str(e)
        explained = whys(res.objects)
        if all(w.strategy == "adagres" and w.budget == 100 for w in explained):
            return "text (%d objects, adagres, budget 100)" % len(explained)
        return "settings (%d objects, %s, budget %d)" % (len(explained), explained[0].strategy, explained[0].budget)

    with open(data.raw["injectionFile"], encoding="utf-8") as f:
        cases = json.load(f)
    assert len(cases) >= 4
    for case in cases:
        for name, want in [("Article", case["plain"]), (opt_in, case["optIn"])]:
            got = outcome(name, case["question"])
            print("%-14s %-30s -> %.160s" % (name, case["name"], got))
            if want in ("text", "settings"):
                assert got.startswith(want + " "), "%s, %s: %.300s, want %s" % (case["name"], name, got, want)
            else:
                assert want in got, "%s, %s: %.300s, want a refusal holding %r" % (case["name"], name, got, want)
        alive(client)
    # 1 MB of brackets as the settings, sent raw (the helper refuses it before sending).
    prop = "body|%s|%s" % (ds.VERSION, "[" * (1 << 20))
    with pytest.raises(ds.SettingsError):
        ds.rerank("body", QUERY, ds.Select.configured(extra_text_properties=["x" * (1 << 20)]))
    with pytest.raises(WeaviateQueryError) as refused:
        client.collections.get("Article").query.near_text(QUERY, limit=19, rerank=Rerank(prop=prop, query=QUERY))
    want = '"rerank property" is %d bytes; allowed: at most 4096 bytes' % len(prop)
    assert want in str(refused.value), "1 MB rerank property: %.300s" % refused.value
    alive(client)


def test_policy_caps(client: weaviate.WeaviateClient, data: Input) -> None:
    """A collection that caps per-query settings, or turns them off, refuses
    what exceeds them through the helper, naming the key, the cap and the
    setting; what stays within them selects."""
    cases = data.raw["policy"]
    assert len(cases) >= 4
    for case in cases:
        try:
            res = client.collections.get(case["class"]).query.near_text(
                QUERY, limit=case["limit"], rerank=ds.rerank("body", QUERY, ds.Select.from_wire(case["options"])),
                return_metadata=EXPLAIN)
            got = "allowed"
        except WeaviateQueryError as e:
            got = str(e)
        print("%-45s -> %.200s" % (case["name"], got))
        if not case["wantErr"]:
            assert got == "allowed", "%s: %s" % (case["name"], got)
            assert len(res.objects) >= 2 and all(w.budget <= 100 for w in whys(res.objects))
        else:
            assert case["wantErr"] in got, "%s: %s, want %r" % (case["name"], got, case["wantErr"])


def test_rag_snippet(client: weaviate.WeaviateClient, data: Input) -> None:
    """generate.near_text with a plain rerank on the Article collection given an
    LLM (generative-dummy, which answers with the prompt it got): the LLM's
    context is the selection, in order. The reply goes to the Go side too.
    (docs/rag.md's programs run as written in integration/snippets_test.go.)"""
    from weaviate.classes.config import Reconfigure

    # Article, given an LLM (Weaviate takes a collection's generative module as an update).
    client.collections.get("Article").config.update(generative_config=Reconfigure.Generative.custom("generative-dummy"))
    from weaviate.classes.query import Rerank

    articles = client.collections.get("Article")
    question = "statins cholesterol heart"
    res = articles.generate.near_text(
        question,
        limit=40,  # the candidate pool
        rerank=Rerank(prop="body", query=question),  # reranker-diverse-select selects: the LLM gets the selection
        grouped_task=f'Answer "{question}" from these chunks only.',
        grouped_properties=["body"],
    )
    selection = [body(o) for o in articles.query.near_text(question, limit=40, rerank=Rerank(prop="body", query=question)).objects]
    assert 2 <= len(selection) < len(data.docs)
    assert [body(o) for o in res.objects] == selection, "generate returned another set than the selection"
    answer = res.generative.text if res.generative else None
    context = json.dumps([{"body": b} for b in selection], separators=(",", ":"), ensure_ascii=False)
    assert answer and context in answer, "the LLM did not get the selection: %.400r" % answer
    with open(out_path("rag-readme.json"), "w", encoding="utf-8") as f:
        json.dump({"bodies": selection, "grouped": answer}, f)
