import { test } from 'node:test';
import assert from 'node:assert/strict';
import { segment, SegmentError, SEGMENT_PATH } from '../index.js';

// A fetch that records the request and answers with status and body.
function fakeFetch(status, body) {
  const calls = [];
  const fn = async (url, init) => {
    calls.push({ url, init });
    return { ok: status === 200, status, text: async () => JSON.stringify(body) };
  };
  return { fn, calls };
}

test('segment sends the texts, the keys set and the API key', async () => {
  const cases = [ // [options, the body's keys beside texts]
    [{ method: 'packed', maxTokens: 64, encoder: undefined }, { method: 'packed', maxTokens: 64 }],
    [{ maxTokens: 64, minTokens: 16 }, { maxTokens: 64, minTokens: 16 }],
    [{ minTokens: 0 }, { minTokens: 0 }],
  ];
  for (const [options, keys] of cases) {
    const { fn, calls } = fakeFetch(200, { method: 'packed', results: [{ chunks: [] }] });
    const res = await segment('http://h:8080/', 'One. Two.', { ...options, apiKey: 'k', fetch: fn });
    assert.equal(res.method, 'packed');
    assert.equal(calls[0].url, 'http://h:8080' + SEGMENT_PATH);
    assert.equal(calls[0].init.headers.Authorization, 'Bearer k');
    assert.deepEqual(JSON.parse(calls[0].init.body), { texts: ['One. Two.'], ...keys });
  }
});

test('segment throws the server message with its status', async () => {
  const { fn } = fakeFetch(400, { error: [{ message: '3 texts exceed DIVERSE_SELECT_SEGMENT_MAX_TEXTS=2' }] });
  await assert.rejects(segment('http://h', ['a', 'b', 'c'], { fetch: fn }), (e) =>
    e instanceof SegmentError && e.status === 400 && e.message.includes('DIVERSE_SELECT_SEGMENT_MAX_TEXTS=2'));
});
