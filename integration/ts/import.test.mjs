// Segment at import with the official TypeScript client and the helper's
// importDocuments, run by integration/import_test.go against the module's
// server or the gateway: DIVERSE_SELECT_HTTP (the server that segments and
// stores), DIVERSE_SELECT_GRPC (host:port), DIVERSE_SELECT_DOCS (the
// documents), DIVERSE_SELECT_PHASE (import: the documents; word: into a
// collection whose source property has word tokenization; broken: with
// document "broken"'s title a number, so the server refuses its every
// chunk), DIVERSE_SELECT_OUT (what the helper returned or raised, for the
// Go test to check against the stored objects after each phase).
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
    return { IDs: await promise };
  } catch (e) {
    if (!(e instanceof ImportDocumentsError) && !(e instanceof TypeError)) throw e;
    return { Error: e.message, Failures: e.failures, Imported: e.imported };
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
  let out;
  switch (process.env.DIVERSE_SELECT_PHASE) {
    case 'import':
      out = await refused(importDocuments(chunks, docs, opts));
      break;
    case 'word':
      out = await refused(importDocuments(client.collections.get(CLASS + 'Word'), docs, opts));
      break;
    case 'broken': // every chunk of "broken" refused (a title of the wrong type): its previous import goes too
      out = await refused(importDocuments(chunks, docs.map((d) => (d.id === 'broken' ? { ...d, properties: { title: 42 } } : d)), opts));
      break;
    default:
      throw new Error('DIVERSE_SELECT_PHASE: ' + process.env.DIVERSE_SELECT_PHASE);
  }
  writeFileSync(process.env.DIVERSE_SELECT_OUT, JSON.stringify(out));
});
