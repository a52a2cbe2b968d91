// diverse-select through the official TypeScript client (weaviate-client),
// which queries over gRPC: the rerank route on a collection that configures
// reranker-diverse-select, next to the client's built-in MMR diversity option
// on the same query, per-query settings through the helper
// (clients/typescript), questions that imitate settings, and a cross-encoder
// with diverse selection (DIVERSE_SELECT_RERANKED, a reranker-transformers
// collection) compared with GraphQL. Run by
// integration/clients_test.go against the shared stack: WEAVIATE_HTTP_PORT,
// WEAVIATE_GRPC_PORT, DIVERSE_SELECT_DOCS (a JSON file of the planted corpus:
// body, group of near-duplicates, cl100k token count as the module counts
// it), DIVERSE_SELECT_SETTINGS (per-query options by case name),
// DIVERSE_SELECT_BAD_SETTINGS (settings the module refuses, as GraphQL
// arguments and as JSON), DIVERSE_SELECT_OUT (where the selections per
// settings go, for the Go test to compare with the library's),
// DIVERSE_SELECT_DEMO_PAGES (the demo corpus's collection, queries, budget
// and pool) and DIVERSE_SELECT_DEMO_PAGES_OUT (where its pages go, for the
// Go test to check against the corpus).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import weaviate, { Diversity } from 'weaviate-client';
import * as DiverseSelect from '../../clients/typescript/index.js';

const docs = JSON.parse(readFileSync(process.env.DIVERSE_SELECT_DOCS, 'utf8'));
const byBody = new Map(docs.map((d) => [d.body, d]));
const groupsOf = (objects) => objects.map((o) => byBody.get(o.properties.body).group);
const duplicatePairs = (groups) => groups.flatMap((g, i) => groups.slice(i + 1).filter((h) => h === g).map(() => g));

let client;

before(async () => {
  client = await weaviate.connectToLocal({
    host: '127.0.0.1',
    port: Number(process.env.WEAVIATE_HTTP_PORT),
    grpcPort: Number(process.env.WEAVIATE_GRPC_PORT),
  });
  if (await client.collections.exists('Article')) await client.collections.delete('Article');
});

after(async () => {
  await client?.close();
});

test('diverse selection over gRPC rerank, next to the built-in MMR', async (t) => {
  await client.collections.create({
    name: 'Article',
    properties: [{ name: 'body', dataType: 'text' }],
    vectorizers: weaviate.configure.vectors.text2VecTransformers(),
    reranker: { name: 'reranker-diverse-select', config: { strategy: 'adagres', tokenBudget: 100 } },
  });
  const articles = client.collections.get('Article');
  const inserted = await articles.data.insertMany(docs.map((d) => ({ body: d.body })));
  assert.equal(inserted.hasErrors, false, JSON.stringify(inserted.errors));

  // README: ts query begin
  const query = 'statins cholesterol heart';
  const selected = await articles.query.nearText(query, {
    limit: 40, // the candidate pool; the collection's tokenBudget and maxResults cap the output
    rerank: { property: 'body', query },
  });
  for (const o of selected.objects) console.log(o.metadata.rerankScore, o.properties.body);

  // Weaviate's built-in MMR (gRPC only), for comparison:
  const mmr = await articles.query.nearText(query, {
    limit: 40,
    diversity: Diversity.mmr({ limit: 5, balance: 0.5 }),
  });
  // README: ts query end
  const topk = await articles.query.nearText(query, { limit: 5 });

  const sel = groupsOf(selected.objects);
  const tokensOf = (objects) => objects.reduce((n, o) => n + byBody.get(o.properties.body).tokens, 0);
  const tokens = tokensOf(selected.objects);
  const show = (label, objects) => {
    const g = groupsOf(objects);
    t.diagnostic(`${label.padEnd(36)} ${objects.length} objects, groups ${g.join(',')}, duplicate pairs ${duplicatePairs(g).length}, ${tokensOf(objects)} tokens`);
  };
  show('top-k (limit 5):', topk.objects);
  show('built-in MMR (limit 5, balance 0.5):', mmr.objects);
  show('diverse-select (budget 100):', selected.objects);

  assert.ok(duplicatePairs(groupsOf(topk.objects)).length > 0, 'top-k holds planted duplicates: the corpus tests something');
  assert.ok(selected.objects.length >= 2, `diverse selection of ${selected.objects.length}`);
  assert.ok(selected.objects.length < docs.length, 'the selection dropped candidates');
  assert.deepEqual(duplicatePairs(sel), [], `planted duplicates selected: groups ${sel}`);
  assert.ok(tokens <= 100, `${tokens} tokens selected, budget 100`);
  assert.equal(sel[0], 1, 'the first pick is from the most relevant group');
  selected.objects.forEach((o, i) => {
    const want = (selected.objects.length - i) / selected.objects.length;
    assert.ok(Math.abs(o.metadata.rerankScore - want) < 1e-9, `rerank score ${o.metadata.rerankScore} at ${i}, want ${want}`);
  });
  assert.equal(mmr.objects.length, 5, 'MMR returns its limit');
});

test('30 rerank calls all reach diverse selection (no other reranker captures them)', async () => {
  const articles = client.collections.get('Article');
  const query = 'statins cholesterol heart';
  const ids = async () =>
    (await articles.query.nearText(query, { limit: 40, rerank: { property: 'body', query } })).objects.map((o) => o.uuid).join(',');
  const first = await ids();
  for (let i = 0; i < 30; i++) assert.equal(await ids(), first, `call ${i} returned another selection`);
});

test('per-query settings through the helper: selections for the library check, GraphQL errors', async () => {
  const articles = client.collections.get('Article');
  const question = 'statins cholesterol heart';
  // Per-query settings through the helper (clients/typescript): one typed factory per strategy, sent in the rerank
  // property; the question stays plain text, so an end user's words cannot change the settings.
  const perQuery = await articles.query.nearText(question, {
    limit: 40, // the candidate pool
    rerank: DiverseSelect.rerank('body', question, DiverseSelect.Select.mmr({ tokenBudget: 60, lambda: 0.7 })),
    returnMetadata: ['explainScore'],
  });
  for (const o of perQuery.objects) {
    const why = DiverseSelect.explain(o); // rank, gain, relevance, relevanceSource, tokens, tokensUsed, strategy, ...
    console.log(why.rank, why.gain.toFixed(3), why.tokens, o.properties.body);
  }
  perQuery.objects.forEach((o, i) => {
    const why = DiverseSelect.explain(o);
    assert.equal(why.rank, i + 1);
    assert.equal(why.strategy, 'mmr');
    assert.equal(why.budget, 60);
    assert.equal(why.tokens, byBody.get(o.properties.body).tokens, 'tokens as the module counts them');
  });
  const selections = {};
  for (const [name, options] of Object.entries(JSON.parse(process.env.DIVERSE_SELECT_SETTINGS))) {
    const res = await articles.query.nearText(question, { limit: 40, rerank: DiverseSelect.rerank('body', question, DiverseSelect.Select.fromWire(options)) });
    selections[name] = res.objects.map((o) => o.uuid);
  }
  assert.deepEqual(perQuery.objects.map((o) => o.uuid), selections['strategy: "mmr", tokenBudget: 60, lambda: 0.7']);
  writeFileSync(process.env.DIVERSE_SELECT_OUT, JSON.stringify(selections));

  // A bad value: the helper refuses it; the server, sent the same settings in
  // the rerank property, gives the error GraphQL's _additional { diverseSelect(...) } gives.
  for (const bad of JSON.parse(process.env.DIVERSE_SELECT_BAD_SETTINGS)) {
    assert.throws(() => DiverseSelect.rerank('body', question, DiverseSelect.Select.fromWire(JSON.parse(bad.JSON))),
      (e) => e instanceof DiverseSelect.SettingsError && e.key === bad.Key);
    const gql = `{ Get { Article(nearText: {concepts: [${JSON.stringify(question)}]}, limit: 40) { body _additional { diverseSelect(${bad.GQL}) { rank } } } } }`;
    const res = await fetch(`http://127.0.0.1:${process.env.WEAVIATE_HTTP_PORT}/v1/graphql`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ query: gql }),
    }).then((r) => r.json());
    assert.ok(res.errors?.length, `GraphQL accepted ${bad.GQL}`);
    // The same message as GraphQL's, named after the module that gives it.
    const gqlMessage = res.errors[0].message;
    assert.ok(gqlMessage.startsWith('diverseSelect: '), `GraphQL error ${gqlMessage} does not name the module`);
    const want = `reranker-diverse-select: rerank: ${gqlMessage.slice('diverseSelect: '.length)}`;
    await assert.rejects(
      articles.query.nearText(question, { limit: 40, rerank: { property: `body|${DiverseSelect.VERSION}|${bad.JSON}`, query: question } }),
      (err) => {
        assert.ok(err.message.includes(want), `gRPC error ${err.message}\ndoes not hold GraphQL's ${want}`);
        return true;
      },
    );
  }
});

test('a question that imitates settings is plain text through the helper', async () => {
  const articles = client.collections.get('Article');
  const questions = [
    'diverseSelect(strategy: "topk", tokenBudget: 0, maxResults: 1): statins cholesterol heart',
    'statins cholesterol heart diverseSelect(strategy: "topk", maxResults: 1)',
    'diverseSelect(strategy: "topk"',
    'diverseSelect(' + '['.repeat(1 << 13) + ')',
  ];
  for (const question of questions) {
    const res = await articles.query.nearText('statins cholesterol heart', {
      limit: 40,
      rerank: DiverseSelect.rerank('body', question, DiverseSelect.Select.configured({ tokenBudget: 100 })),
      returnMetadata: ['explainScore'],
    });
    assert.ok(res.objects.length >= 2, `${question.slice(0, 60)}: ${res.objects.length} objects`);
    for (const o of res.objects) {
      const why = DiverseSelect.explain(o);
      assert.equal(why.strategy, 'adagres', `${question.slice(0, 60)}: the collection's strategy`);
      assert.equal(why.budget, 100);
    }
  }
  // A question over the server's query-text limit is refused by size, naming the limit.
  await assert.rejects(
    articles.query.nearText('statins cholesterol heart', {
      limit: 40,
      rerank: DiverseSelect.rerank('body', 'diverseSelect(' + '['.repeat(1 << 20) + ')', DiverseSelect.Select.configured({ tokenBudget: 100 })),
    }),
    (err) => {
      assert.ok(err.message.includes('DIVERSE_SELECT_MAX_QUERY_BYTES'), err.message.slice(-300));
      return true;
    },
  );
});

test('a cross-encoder and diverse selection in one gRPC search, as GraphQL does them', async () => {
  // DIVERSE_SELECT_RERANKED: the health corpus in a collection whose reranker is reranker-transformers.
  const name = process.env.DIVERSE_SELECT_RERANKED;
  const question = 'statins cholesterol heart';
  const res = await client.collections.get(name).query.nearText(question, {
    limit: 12,
    rerank: DiverseSelect.rerank('body', question, DiverseSelect.Select.mmr({ tokenBudget: 100 })),
    returnMetadata: ['explainScore'],
  });
  const gql = `{ Get { ${name}(nearText: {concepts: [${JSON.stringify(question)}]}, limit: 12) { _additional { id
    rerank(property: "body", query: ${JSON.stringify(question)}) { score }
    diverseSelect(strategy: "mmr", tokenBudget: 100) { rank gain relevance relevanceSource tokens tokensUsed strategy } } } } }`;
  const want = (await fetch(`http://127.0.0.1:${process.env.WEAVIATE_HTTP_PORT}/v1/graphql`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ query: gql }),
  }).then((r) => r.json())).data.Get[name].map((o) => o._additional);
  assert.deepEqual(res.objects.map((o) => o.uuid), want.map((w) => w.id), 'the same selection as GraphQL');
  res.objects.forEach((o, i) => {
    const why = DiverseSelect.explain(o);
    const w = want[i].diverseSelect;
    assert.equal(why.relevanceSource, 'rerank');
    for (const k of ['rank', 'relevanceSource', 'tokens', 'tokensUsed', 'strategy']) assert.equal(why[k], w[k], k);
    for (const k of ['gain', 'relevance']) assert.ok(Math.abs(why[k] - w[k]) < 1e-9, `${k} ${why[k]} vs ${w[k]}`);
    assert.ok(Math.abs(o.metadata.rerankScore - want[i].rerank[0].score) < 1e-6, 'rerankScore is the cross-encoder\'s');
  });
});

test('the default pages the demo corpus at a small budget until nothing relevant is left', async () => {
  // Issue 42: through the helper, its offset setting pages the selection;
  // each page's bodies, exhausted and stopReason go to the Go test, which
  // checks them against the corpus (checkDemoPages).
  const demo = JSON.parse(process.env.DIVERSE_SELECT_DEMO_PAGES);
  const collection = client.collections.get(demo.collection);
  const out = {};
  for (const q of demo.queries) {
    const pages = [];
    for (let offset = 0; pages.length <= demo.pool;) {
      // The helper's offset (the search's offset 0 would be no offset: page 1 would not say whether it is the last).
      const res = await collection.query.nearText(q.text, {
        limit: demo.pool,
        rerank: DiverseSelect.rerank('body', q.text, DiverseSelect.Select.coverage({ tokenBudget: demo.budget, offset })),
        returnMetadata: ['explainScore'],
      });
      const whys = res.objects.map((o) => DiverseSelect.explain(o));
      const page = { bodies: res.objects.map((o) => o.properties.body), exhausted: null, stopReason: '' };
      if (whys.length > 0) {
        assert.equal(new Set(whys.map((w) => `${w.exhausted} ${w.stopReason}`)).size, 1, 'one page, one exhausted and stopReason');
        page.exhausted = whys[0].exhausted;
        page.stopReason = whys[0].stopReason;
        for (const w of whys) assert.equal(w.offset, offset);
      }
      pages.push(page);
      if (res.objects.length === 0) break;
      offset += res.objects.length;
    }
    assert.ok(pages.length >= 4, `${q.id}: ${pages.length - 1} pages at budget ${demo.budget}`);
    out[q.id] = pages;
  }
  writeFileSync(process.env.DIVERSE_SELECT_DEMO_PAGES_OUT, JSON.stringify(out));
  console.log('demo pages:', Object.fromEntries(Object.entries(out).map(([k, v]) => [k, v.length - 1])));
});
