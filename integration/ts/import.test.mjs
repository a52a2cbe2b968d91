// Segment at import with the official TypeScript client and the helper's
// importDocuments, run by integration/import_test.go against the module's
// server or the gateway: DIVERSE_SELECT_HTTP (the server that segments and
// stores), DIVERSE_SELECT_GRPC (host:port), DIVERSE_SELECT_DOCS (the
// documents), DIVERSE_SELECT_OUT (what the helper returned and raised, for
// the Go test to check against the stored objects).
import { test, before, after } from 'node:test';
import { writeFileSync } from 'node:fs';
import weaviate from 'weaviate-client';
import { importDocuments, ImportDocumentsError } from '../../clients/typescript/index.js';

const url = process.env.DIVERSE_SELECT_HTTP;
const CLASS = 'ImportedChunksTs';
let client;

before(async () => {
  const http = new URL(url);
  const [grpcHost, grpcPort] = process.env.DIVERSE_SELECT_GRPC.split(':');
  client = await weaviate.connectToCustom({ httpHost: http.hostname, httpPort: Number(http.port), httpSecure: false,
    grpcHost, grpcPort: Number(grpcPort), grpcSecure: false, skipInitChecks: true });
});

after(async () => {
  await client?.close();
});

// refused is what importDocuments raised: its message, failures and imported ids.
async function refused(promise) {
  try {
    return { ids: await promise };
  } catch (e) {
    if (!(e instanceof ImportDocumentsError) && !(e instanceof TypeError)) throw e;
    return { error: e.message, failures: e.failures, imported: e.imported };
  }
}

test('importDocuments through the official client', async () => {
  const docs = JSON.parse(process.env.DIVERSE_SELECT_DOCS);
  const props = [{ name: 'text', dataType: 'text' }, { name: 'source_id', dataType: 'text', tokenization: 'field' },
    { name: 'start', dataType: 'int' }, { name: 'end', dataType: 'int' }, { name: 'title', dataType: 'text' }];
  if (!(await client.collections.exists(CLASS))) await client.collections.create({ name: CLASS, properties: props });
  if (!(await client.collections.exists(CLASS + 'Word'))) {
    await client.collections.create({ name: CLASS + 'Word', properties: [{ name: 'source_id', dataType: 'text' }] });
  }
  const chunks = client.collections.get(CLASS);
  const opts = { url, method: 'packed', maxTokens: 16, minTokens: 4, batchSize: 2 };
  const out = {};
  out.first = await importDocuments(chunks, docs, opts);
  out.second = await importDocuments(chunks, docs, opts);
  out.word = await refused(importDocuments(client.collections.get(CLASS + 'Word'), docs, opts));
  // Every chunk of "broken" refused (a title of the wrong type): its previous import goes too.
  const broken = docs.map((d) => (d.id === 'broken' ? { ...d, properties: { title: 42 } } : d));
  out.broken = await refused(importDocuments(chunks, broken, opts));
  writeFileSync(process.env.DIVERSE_SELECT_OUT, JSON.stringify(out));
});
