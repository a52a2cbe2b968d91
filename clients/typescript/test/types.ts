// Type checks of the declarations (tsc --noEmit, make test-clients): each
// strategy's factory takes its own parameters and the common settings; a
// parameter of another strategy, a wrong value or a plain object does not
// compile (each @ts-expect-error fails tsc when its line compiles).
import { rerank, explain, Select, Selection, importDocuments, type ImportCollection, type MMROptions, type Explanation, type WireOptions } from '../index.js';

const mmr: Selection<'mmr', MMROptions> = Select.mmr({ lambda: 0.7, tokenBudget: 60, order: 'edges' });
const lambda: number | undefined = mmr.options.lambda;
const strategy: 'mmr' = mmr.strategy;
const settings: Selection[] = [
  mmr,
  Select.coverage({ center: false, targets: 16, extraTextProperties: ['title'], dedupThreshold: 0.95 }),
  Select.relcost(),
  Select.configured({ maxResults: 5, params: { lambda: 0.5 } }),
  Select.fromWire({ strategy: 'mmr', tokenBudget: 60 }),
];
const wire: WireOptions = mmr.wire();
const r: { property: string; query: string } = rerank('body', 'statins', mmr);
const plain = rerank('body', 'statins');
const why: Explanation | null = explain({ metadata: { explainScore: '' } });
const gain: number | undefined = why?.gain;

// @ts-expect-error: theta is dpp's parameter, not mmr's
Select.mmr({ theta: 1 });
// @ts-expect-error: lambda is not topk's
Select.topk({ lambda: 0.5 });
// @ts-expect-error: tokenBudget is a number
Select.coverage({ tokenBudget: '60' });
// @ts-expect-error: not a per-query option (the query limit is the pool)
Select.adagres({ candidates: 50 });
// @ts-expect-error: order's allowed values
Select.mmr({ order: 'sideways' });
// @ts-expect-error: the factory names the strategy
Select.mmr({ strategy: 'topk' });
// @ts-expect-error: the collection's strategy takes its parameters in params
Select.configured({ lambda: 0.5 });
// @ts-expect-error: not a strategy
Select.fromWire({ strategy: 'nope' });
// @ts-expect-error: settings come from Select's factories, not a plain object
rerank('body', 'statins', { strategy: 'mmr', tokenBudget: 60 });
// @ts-expect-error: a Selection is read-only
mmr.options.lambda = 0.2;

declare const chunks: ImportCollection;
const imported: Promise<Record<string, string[]>> = importDocuments(chunks, [{ id: 'notes/1', text: 'One.', properties: { title: 'T' } }],
  { url: 'http://localhost:8080', method: 'changepoint', maxTokens: 128, minTokens: 32 });
// @ts-expect-error: the server that segments is required
importDocuments(chunks, [], {});
// @ts-expect-error: the import names the collection itself
importDocuments(chunks, [], { url: 'u', collection: 'Other' });

export { lambda, strategy, settings, wire, r, plain, gain, imported };
