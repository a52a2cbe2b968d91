import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importDocuments, chunkUuid, ImportDocumentsError, SEGMENT_PATH } from '../index.js';

// cutFetch answers a segment request by cutting each text at its '|' marks
// (the marks stay in the chunks, so the byte offsets are the text's own).
function cutFetch(calls) {
  return async (url, init) => {
    const body = JSON.parse(init.body);
    calls.push({ url, body });
    const results = body.texts.map((t) => {
      const bytes = new TextEncoder().encode(t);
      const chunks = [];
      let start = 0;
      for (let i = 0; i <= bytes.length; i++) {
        if (i === bytes.length || bytes[i] === 0x7c) {
          const end = i === bytes.length ? i : i + 1;
          if (end > start) chunks.push({ text: new TextDecoder().decode(bytes.slice(start, end)), start, end, tokens: 1, sentences: 1 });
          start = end;
        }
      }
      return { chunks };
    });
    return { ok: true, status: 200, text: async () => JSON.stringify({ method: 'packed', results }) };
  };
}

// fakeCollection stores objects by id; refuse(object) returning a message refuses that object.
function fakeCollection({ tokenization = 'field', refuse = () => null } = {}) {
  const store = new Map();
  const deletes = [];
  const match = (w, o) => {
    if (w.operator === 'And') return w.filters.every((f) => match(f, o));
    if (w.operator === 'Equal') return o.properties[w.target.property] === w.value;
    if (w.operator === 'ContainsNone') return !w.value.includes(o.id);
    throw new Error('unexpected filter ' + JSON.stringify(w));
  };
  return {
    store, deletes, name: 'Chunk',
    config: { get: async () => ({ properties: [{ name: 'source_id', dataType: 'text', tokenization }] }) },
    filter: { byProperty: (p) => ({
      equal: (v) => ({ operator: 'Equal', target: { property: p }, value: v }),
      containsNone: (v) => ({ operator: 'ContainsNone', target: { property: p }, value: v }),
    }) },
    data: {
      deleteMany: async (w) => {
        deletes.push(w);
        for (const [id, o] of store) if (match(w, o)) store.delete(id);
        return { failed: 0 };
      },
      insertMany: async (objs) => {
        const errors = {};
        objs.forEach((o, n) => {
          const msg = refuse(o);
          if (msg) errors[n] = { message: msg };
          else store.set(o.id, structuredClone(o));
        });
        return { errors };
      },
    },
  };
}

test('chunkUuid is the Python and Go helpers\' uuid5', async () => {
  for (const [args, want] of [
    [['Chunk', 'notes/1', 0, 97], '4b73a303-9735-5fad-a7fd-ffed726e8cf6'],
    [['Ü', 'dé', 3, 10], '1f7fb225-088e-5dba-9477-addcd1a60555'],
  ]) assert.equal(await chunkUuid(...args), want);
});

test('importDocuments writes each chunk with its source, offsets and properties, idempotently', async () => {
  const calls = [];
  const col = fakeCollection();
  const docs = [{ id: 'a', text: 'Café au lait.| Two.', properties: { title: 'A' } }, { id: 'b', text: 'One.' }];
  const opts = { url: 'http://h:8080/', method: 'packed', maxTokens: 32, minTokens: 8, apiKey: 'k', fetch: cutFetch(calls) };
  const ids = await importDocuments(col, docs, opts);
  assert.equal(calls[0].url, 'http://h:8080' + SEGMENT_PATH);
  assert.deepEqual(calls[0].body, { texts: ['Café au lait.| Two.', 'One.'], method: 'packed', maxTokens: 32, minTokens: 8, collection: 'Chunk' });
  assert.deepEqual(ids, { a: [await chunkUuid('Chunk', 'a', 0, 15), await chunkUuid('Chunk', 'a', 15, 20)], b: [await chunkUuid('Chunk', 'b', 0, 4)] });
  const a1 = col.store.get(ids.a[1]);
  assert.deepEqual(a1.properties, { title: 'A', text: ' Two.', source_id: 'a', start: 15, end: 20 });
  const before = structuredClone([...col.store]);
  assert.deepEqual(await importDocuments(col, docs, opts), ids);
  assert.deepEqual([...col.store], before);
  // A changed text keeps only its new chunks.
  const changed = await importDocuments(col, [{ id: 'a', text: 'Café au lait.', properties: { title: 'A' } }], opts);
  assert.deepEqual([...col.store.values()].filter((o) => o.properties.source_id === 'a').map((o) => o.id), changed.a);
});

test('a refused chunk leaves its document with no chunk; the others are written', async () => {
  const col = fakeCollection();
  const opts = { url: 'http://h', batchSize: 1, fetch: cutFetch([]) };
  await importDocuments(col, [{ id: 'broken', text: 'One.| Two.| Three.' }], opts);
  col.data.insertMany = ((real) => async (objs) => (objs[0].properties.start === 5 ? { errors: { 0: { message: 'no' } } } : real(objs)))(col.data.insertMany);
  const err = await importDocuments(col, [{ id: 'fresh', text: 'Fresh.' }, { id: 'broken', text: 'One.| Two!| Three.' }], opts).catch((e) => e);
  assert.ok(err instanceof ImportDocumentsError, String(err));
  assert.deepEqual(err.failures, { broken: { start: 5, end: 11, message: 'no' } });
  assert.match(err.message, /document "broken": chunk \[5, 11\) was refused: no; the document's chunks were removed/);
  assert.deepEqual(Object.keys(err.imported), ['fresh']);
  assert.deepEqual([...col.store.values()].map((o) => o.properties.source_id), ['fresh']);
});

test('importDocuments refuses what it cannot import, naming it, before any write', async () => {
  const ok = [{ id: 'a', text: 'One.' }];
  for (const [name, docs, opts, col, want] of [
    ['no url', ok, {}, fakeCollection(), /options.url .* is required/],
    ['batch size', ok, { url: 'u', batchSize: 0 }, fakeCollection(), /batchSize 0 is outside \[1, 1000\]/],
    ['one property twice', ok, { url: 'u', startProperty: 'text' }, fakeCollection(), /four different names/],
    ['the same id twice', [ok[0], ok[0]], { url: 'u' }, fakeCollection(), /documents\[0\] and documents\[1\] have the same id "a"/],
    ['an empty text', [{ id: 'a', text: ' ' }], { url: 'u' }, fakeCollection(), /documents\[0\].text must be a string with text/],
    ['a property the import writes', [{ id: 'a', text: 'x', properties: { start: 1 } }], { url: 'u' }, fakeCollection(), /sets "start", which the import writes itself/],
    ['word tokenization', ok, { url: 'u' }, fakeCollection({ tokenization: 'word' }), /"source_id" of collection "Chunk" must be text with tokenization field \(it is text with tokenization word\)/],
  ]) {
    const calls = [];
    await assert.rejects(importDocuments(col, docs, { fetch: cutFetch(calls), ...opts }), want, name);
    assert.equal(calls.length + col.store.size + col.deletes.length, 0, name);
  }
});
