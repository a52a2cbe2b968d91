// tsc on usages of the typed factories: a parameter the strategy does not
// take, a wrong value or a plain object fails the compile, naming it; the
// correct usage compiles. (test/types.ts holds more, each line's error
// expected by @ts-expect-error.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = join(root, 'node_modules', '.bin', 'tsc');

// compile returns tsc's exit status and output on source, a module beside the helper.
function compile(source) {
  const dir = mkdtempSync(join(root, 'test', '.tsc-'));
  try {
    writeFileSync(join(dir, 'usage.ts'), "import { Select, rerank } from '../../index.js';\n" + source);
    try {
      const out = execFileSync(tsc, ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext',
        '--target', 'es2022', join(dir, 'usage.ts')], { encoding: 'utf8' });
      return { status: 0, out };
    } catch (e) {
      if (e.status == null) throw e; // tsc did not run (make test-clients installs it: npm ci)
      return { status: e.status, out: e.stdout };
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('tsc passes the typed factories used as documented', () => {
  const { status, out } = compile(`
const mmr = Select.mmr({ lambda: 0.7, tokenBudget: 300 });
const lambda: number | undefined = mmr.options.lambda;
rerank('body', 'q', mmr);
rerank('body', 'q', Select.coverage({ tokenBudget: 300, center: true, order: 'edges' }));
rerank('body', 'q', Select.configured({ maxResults: 5, params: { lambda: 0.5 } }));
export { lambda };
`);
  assert.equal(status, 0, out);
});

test('tsc rejects a foreign parameter, a wrong value and a plain object', () => {
  const bad = [
    ["Select.mmr({ theta: 1 });", "'theta' does not exist in type 'MMROptions'"],
    ["Select.topk({ lambda: 0.5, tokenBudget: 300 });", "'lambda' does not exist in type 'TopKOptions'"],
    ["Select.coverage({ order: 'sideways' });", `Type '"sideways"' is not assignable`],
    ["rerank('body', 'q', { strategy: 'mmr', lambda: 0.7 });", "'lambda' does not exist in type 'Selection<"],
  ];
  const { status, out } = compile(bad.map(([line]) => line).join('\n') + '\n');
  assert.notEqual(status, 0, 'tsc compiled the foreign parameters');
  bad.forEach(([line, want], i) => {
    const errors = out.split('\n').filter((l) => l.includes(`usage.ts(${i + 2},`));
    assert.ok(errors.some((l) => l.includes(want)), `${line}: want ${want} among\n${errors.join('\n')}\n(all: ${out})`);
  });
});
