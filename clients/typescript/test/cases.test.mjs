// The shared case table (clients/testdata/cases.json): the same settings in
// and request fields out, explainScore in and explanation out, as the Go and
// Python helpers' tests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { rerank, explain, Select, SettingsError } from '../index.js';

const cases = JSON.parse(readFileSync(new URL('../../testdata/cases.json', import.meta.url), 'utf8'));
const expand = (options) => Object.fromEntries(Object.entries(options).map(([k, v]) => [k, v === 'LONG4096' ? 'x'.repeat(4096) : v]));

for (const c of cases.encode) {
  test(`encode: ${c.name}`, () => {
    const run = () => rerank(c.property, c.query, Select.fromWire(expand(c.options)));
    if (c.error) {
      assert.throws(run, (e) => e instanceof SettingsError && e.message.includes(c.error), `want an error naming ${c.error}`);
      return;
    }
    assert.deepEqual(run(), c.rerank);
  });
}

for (const c of cases.explain) {
  test(`explain: ${c.name}`, () => {
    assert.deepEqual(explain({ metadata: { explainScore: c.explainScore } }), c.explanation);
  });
}
