// The official TypeScript client (weaviate-client v3) pointed at the gateway
// unchanged (connectToCustom, as to any Weaviate): per-query settings
// through the helper (clients/typescript) select, the client's own calls -
// the built-in MMR, a plain search, an aggregation, a collection created,
// written, read and deleted - pass through. Run by
// integration/gateway_clients_test.go: GATEWAY_HTTP_PORT, GATEWAY_GRPC_PORT,
// DIVERSE_SELECT_CASES (helper options by case name), DIVERSE_SELECT_QUERY,
// DIVERSE_SELECT_OUT (what the client got, for the Go test to compare with
// the module's and stock Weaviate's answers).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import weaviate, { Diversity } from 'weaviate-client';
import * as DiverseSelect from '../../clients/typescript/index.js';

let client;

before(async () => {
  client = await weaviate.connectToCustom({
    httpHost: '127.0.0.1',
    httpPort: Number(process.env.GATEWAY_HTTP_PORT),
    httpSecure: false,
    grpcHost: '127.0.0.1',
    grpcPort: Number(process.env.GATEWAY_GRPC_PORT),
    grpcSecure: false,
  });
});

after(async () => {
  await client?.close();
});

test('the TypeScript client through the gateway', async () => {
  const question = process.env.DIVERSE_SELECT_QUERY;
  const eq = client.collections.get('GatewayEq');
  const out = { selections: {} };
  for (const [name, options] of Object.entries(JSON.parse(process.env.DIVERSE_SELECT_CASES))) {
    const res = await eq.query.nearText(question, {
      limit: 60,
      rerank: DiverseSelect.rerank('body', question, DiverseSelect.Select.fromWire(options)),
      returnMetadata: ['explainScore'],
      returnProperties: ['body'],
    });
    out.selections[name] = res.objects.map((o) => ({ id: o.uuid, explain: o.metadata.explainScore, rank: DiverseSelect.explain(o).rank }));
  }
  const mmr = await eq.query.nearText(question, { limit: 20, diversity: Diversity.mmr({ limit: 5, balance: 0.5 }) });
  out.mmr = mmr.objects.map((o) => o.uuid);
  const plain = await eq.query.nearText(question, { limit: 7 });
  out.plain = plain.objects.map((o) => o.uuid);
  out.count = (await eq.aggregate.overAll()).totalCount;

  // Writes through the gateway: gRPC batch, REST schema and reads.
  if (await client.collections.exists('GatewayTs')) await client.collections.delete('GatewayTs');
  await client.collections.create({ name: 'GatewayTs', properties: [{ name: 'body', dataType: 'text' }],
    vectorizers: weaviate.configure.vectors.text2VecTransformers() });
  const ts = client.collections.get('GatewayTs');
  const inserted = await ts.data.insertMany([{ body: 'one' }, { body: 'two' }, { body: 'three' }]);
  assert.equal(inserted.hasErrors, false, JSON.stringify(inserted.errors));
  const id = inserted.uuids[0];
  out.fetched = (await ts.query.fetchObjectById(id)).properties.body;
  out.written = (await ts.aggregate.overAll()).totalCount;
  await client.collections.delete('GatewayTs');
  out.live = await client.isLive();
  writeFileSync(process.env.DIVERSE_SELECT_OUT, JSON.stringify(out));
});
