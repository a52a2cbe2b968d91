// Type checks of the declarations (tsc --noEmit, make test-clients): the
// options are typed, a wrong option does not compile.
import { rerank, explain, type Options, type Explanation } from '../index.js';

const ok: Options = { strategy: 'mmr', tokenBudget: 60, lambda: 0.7, order: 'edges', extraTextProperties: ['title'], center: false };
const r: { property: string; query: string } = rerank('body', 'statins', ok);
const why: Explanation | null = explain({ metadata: { explainScore: '' } });
const gain: number | undefined = why?.gain;

// @ts-expect-error: not a strategy
const badStrategy: Options = { strategy: 'nope' };
// @ts-expect-error: tokenBudget is a number
const badBudget: Options = { tokenBudget: '60' };
// @ts-expect-error: not a per-query option (the query limit is the pool)
const badKey: Options = { candidates: 50 };
// @ts-expect-error: order's allowed values
const badOrder: Options = { order: 'sideways' };

export { r, gain, badStrategy, badBudget, badKey, badOrder };
