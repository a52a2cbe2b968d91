// The shared case table (clients/testdata/cases.json): the same settings in
// and request fields out, explainScore in and explanation out, as the Go and
// Python helpers' tests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { rerank, explain, Select, Selection, SettingsError } from '../index.js';

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

// Not in the shared table: the TypeScript helper's own checks.
test('a long value is cut in the message', () => {
  for (const make of [
    () => Select.mmr({ order: 'x'.repeat(1 << 20) }),
    () => Select.configured({ params: { lambda: new Array(1 << 18).fill(0.5) } }),
    () => rerank('body|' + 'x'.repeat(1 << 20), 'q'),
  ]) {
    assert.throws(make, (e) => e instanceof SettingsError && e.message.length < 400 && /\.\.\. \(\d+ characters\); allowed: /.test(e.message),
      'want a SettingsError whose message cuts the value');
  }
});

test('a Selection is frozen to its lists and params: what was checked is sent', () => {
  const s = Select.configured({ extraTextProperties: ['title'], params: { lambda: 0.5 } });
  assert.throws(() => { s.options.params.lambda = -1; }, TypeError);
  assert.throws(() => { s.options.extraTextProperties.push('x'.repeat(5000)); }, TypeError);
  assert.deepEqual(s.wire(), { extraTextProperties: ['title'], lambda: 0.5 });
  assert.throws(() => new Selection('nope', {}), (e) => e instanceof SettingsError && e.key === 'strategy');
});
