// diverse-select for weaviate-client v3: per-query settings made by typed
// factories, one per strategy (Select.mmr({ lambda: 0.7 })), checked on
// construction and sent where only the application writes (the rerank
// property), and each selected object's explanation read from its
// explainScore. No dependency: rerank returns the client's own option shape.
import { spec } from './spec.generated.js';

export { spec };

/** The settings form the server reads (engine/rerank_settings.go). */
export const VERSION = spec.version;
const SEPARATOR = '|';
/** Largest rerank property, settings included, the server accepts. */
export const MAX_SETTINGS_BYTES = 4096;
const EXPLAIN_PREFIX = VERSION + ' ';
const PROPERTY_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

const keys = new Map(spec.keys.map((k) => [k.name, k]));
const params = new Map(spec.params.map((p) => [p.name, p]));
const STRATEGIES = keys.get('strategy').enum;

/** An option the server would refuse, named by its key. */
export class SettingsError extends Error {
  constructor(key, message) {
    super(`diverse-select: "${key}" ${message}`);
    this.name = 'SettingsError';
    this.key = key;
  }
}

function range(o) {
  if (o.enum) return 'one of ' + o.enum.join(', ');
  if (o.kind === 'bool') return 'true or false';
  if (o.kind === 'strings') return 'a list of strings';
  if (o.kind === 'string' || o.kind === 'property') return 'a string';
  const lo = o.min == null ? '(-inf' : (o.minOpen ? '(' : '[') + o.min;
  const hi = o.max == null ? 'inf)' : o.max + (o.maxOpen ? ')' : ']');
  return `${o.kind === 'int' ? 'an integer' : 'a number'} in ${lo}, ${hi}`;
}

// check returns why v is not a value of o, or '' when it is.
function check(o, v) {
  switch (o.kind) {
    case 'int':
    case 'float': {
      if (typeof v !== 'number' || !Number.isFinite(v) || (o.kind === 'int' && !Number.isInteger(v))) break;
      if (o.min != null && (v < o.min || (o.minOpen && v === o.min))) break;
      if (o.max != null && (v > o.max || (o.maxOpen && v === o.max))) break;
      return '';
    }
    case 'bool':
      if (typeof v === 'boolean') return '';
      break;
    case 'strings':
      if (Array.isArray(v) && v.every((s) => typeof s === 'string')) return '';
      break;
    default:
      if (typeof v === 'string' && (!o.enum || o.enum.includes(v))) return '';
  }
  return `is ${show(v)}; allowed: ${range(o)}`;
}

// show is v as JSON, cut after 80 characters (a value may be as long as a caller makes it).
function show(v) {
  let text;
  try {
    text = JSON.stringify(v) ?? String(v);
  } catch {
    text = String(v); // a BigInt, a cycle
  }
  return text.length <= 80 ? text : `${text.slice(0, 80)}... (${text.length} characters)`;
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
// kind names what v is, bounded (v may be anything a caller sends).
const kind = (v) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? `a ${v.constructor?.name ?? 'object'}` : `a ${typeof v}`);
const own = (strategy, name) => (spec.strategies[strategy] || []).find((q) => q.name === name);
const ownNames = (strategy) => (spec.strategies[strategy] || []).map((q) => q.name).join(', ') || '(none)';
const unknown = (name) => new SettingsError(name,
  `is not a per-query setting; allowed: ${[...keys.keys()].join(', ')}; strategy parameters: ${[...params.keys()].join(', ')}`);

// checkParams: parameters for the collection's strategy, each a value of a
// strategy that takes it (the server checks it against the collection's).
function checkParams(ps) {
  if (!isObject(ps)) throw new SettingsError('params', `is ${kind(ps)}; allowed: an object of strategy parameters`);
  for (const [name, v] of Object.entries(ps)) {
    if (v === undefined) continue;
    const p = params.get(name);
    if (!p) throw new SettingsError(name, `is not a strategy parameter; allowed in params: ${[...params.keys()].join(', ')}`);
    const whys = p.strategies.map((s) => check(own(s, name), v));
    if (whys.every(Boolean)) throw new SettingsError(name, `for strategy ${p.strategies.join(' or ')} ${whys[0]}`);
  }
}

// checkOptions throws a SettingsError for an option of a factory the server
// would refuse or the strategy (undefined: the collection's) does not take.
function checkOptions(strategy, options) {
  if (!isObject(options)) throw new SettingsError('options', `is ${kind(options)}; allowed: an object of settings`);
  if (strategy !== undefined && check(keys.get('strategy'), strategy)) throw new SettingsError('strategy', check(keys.get('strategy'), strategy));
  const factory = `Select.${strategy ?? 'configured'}`;
  for (const [name, v] of Object.entries(options)) {
    if (v === undefined) continue;
    if (name !== 'strategy' && keys.has(name)) {
      const why = check(keys.get(name), v);
      if (why) throw new SettingsError(name, why);
    } else if (strategy === undefined && name === 'params') {
      checkParams(v);
    } else if (name === 'strategy') {
      throw new SettingsError(name, `is not an option of ${factory}: each strategy has its factory (Select.mmr, ...)`);
    } else if (strategy === undefined) {
      throw params.has(name) ? new SettingsError(name, 'is a strategy parameter: give it in params, or use its strategy\'s factory') : unknown(name);
    } else if (!own(strategy, name)) {
      throw params.has(name) ? new SettingsError(name, `is not a parameter of strategy "${strategy}"; its parameters: ${ownNames(strategy)}`) : unknown(name);
    } else {
      const why = check(own(strategy, name), v);
      if (why) throw new SettingsError(name, `for strategy ${strategy} ${why}`);
    }
  }
}

// frozenCopy copies v's objects and arrays, frozen: what was checked is what is sent.
const frozenCopy = (v) => (Array.isArray(v) ? Object.freeze(v.map(frozenCopy))
  : isObject(v) ? Object.freeze(Object.fromEntries(Object.entries(v).map(([k, x]) => [k, frozenCopy(x)]))) : v);

/**
 * Per-query settings, made by Select's factories and checked on
 * construction; immutable.
 */
export class Selection {
  constructor(strategy, options = {}) {
    checkOptions(strategy, options);
    this.strategy = strategy;
    this.options = frozenCopy(options);
    Object.freeze(this);
  }

  /** The settings by the server's key names, the strategy's included. */
  wire() {
    const { params: ps, ...rest } = this.options;
    const out = { ...(this.strategy ? { strategy: this.strategy } : {}), ...rest, ...ps };
    return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined));
  }
}

/**
 * fromWire returns the settings of an object with the server's key names:
 * its strategy's (the parameters checked against it), or configured's.
 */
function fromWire(options) {
  if (!isObject(options)) throw new SettingsError('options', `is ${kind(options)}; allowed: an object of settings`);
  const { strategy, ...rest } = options;
  for (const name of Object.keys(rest)) if (!keys.has(name) && !params.has(name)) throw unknown(name);
  if (strategy !== undefined) return new Selection(strategy, rest);
  const common = Object.fromEntries(Object.entries(rest).filter(([k]) => keys.has(k)));
  const ps = Object.fromEntries(Object.entries(rest).filter(([k]) => !keys.has(k)));
  return new Selection(undefined, Object.keys(ps).length ? { ...common, params: ps } : common);
}

/**
 * Select: the typed settings, one factory per strategy
 * (Select.mmr({ lambda: 0.7, tokenBudget: 300 })), configured for the
 * collection's strategy, fromWire from the server's key names.
 */
export const Select = Object.freeze({
  ...Object.fromEntries(STRATEGIES.map((s) => [s, (options = {}) => new Selection(s, options)])),
  configured: (options = {}) => new Selection(undefined, options),
  fromWire,
});

/**
 * rerank returns the rerank option of a weaviate-client search: diverse
 * selection reading property, with query as plain text (never parsed for
 * settings) and the settings (made by Select) for this query, carried in the
 * rerank property where the query text cannot reach.
 * @param {string} property the text property the selection counts and reads
 * @param {string} query the query text, e.g. the end user's question
 * @param {Selection} [settings]
 * @returns {{property: string, query: string}}
 */
export function rerank(property, query, settings) {
  if (typeof property !== 'string' || !PROPERTY_NAME.test(property)) {
    throw new SettingsError('property', `is ${show(property)}; allowed: a property name (letters, digits, _)`);
  }
  if (settings !== undefined && !(settings instanceof Selection)) {
    throw new TypeError(`diverse-select: settings is ${kind(settings)}; allowed: undefined or what Select's factories make (Select.mmr({...}), Select.fromWire({...}))`);
  }
  const wire = settings ? settings.wire() : {};
  const names = Object.keys(wire).sort();
  if (names.length === 0) return { property, query };
  const sorted = Object.fromEntries(names.map((k) => [k, wire[k]]));
  const carried = property + SEPARATOR + VERSION + SEPARATOR + JSON.stringify(sorted);
  const bytes = new TextEncoder().encode(carried).length;
  if (bytes > MAX_SETTINGS_BYTES) {
    throw new SettingsError('property', `with its settings is ${bytes} bytes; allowed: at most ${MAX_SETTINGS_BYTES}`);
  }
  return { property: carried, query };
}

/**
 * explain returns the explanation of a selected object from its
 * metadata.explainScore (ask for it: returnMetadata: ['explainScore']), or
 * null when it has none.
 * @param {{metadata?: {explainScore?: string}} | string | undefined} object a returned object, or its explainScore
 * @returns {import('./index.js').Explanation | null}
 */
export function explain(object) {
  const text = typeof object === 'string' ? object : object?.metadata?.explainScore;
  if (!text) return null;
  const line = text.split('\n').find((l) => l.startsWith(EXPLAIN_PREFIX));
  if (!line) return null;
  const e = JSON.parse(line.slice(EXPLAIN_PREFIX.length));
  return {
    rank: e.rank, gain: e.gain, relevance: e.relevance, relevanceSource: e.relevanceSource, redundancy: e.redundancy,
    tokens: e.tokens, tokensUsed: e.tokensUsed, budget: e.budget, stopReason: e.stopReason ?? '',
    tokensLeft: e.tokensLeft ?? 0, strategy: e.strategy, candidates: e.candidates,
    selected: e.selected, offset: e.offset, exhausted: e.exhausted ?? null,
  };
}

/** The module's segmentation endpoint (docs/segmentation.md). */
export const SEGMENT_PATH = '/v1/modules/diverse-select/segment';

/** A segment request the server refused; status is the HTTP status. */
export class SegmentError extends Error {
  constructor(status, message) {
    super(`diverse-select: segment: status ${status}: ${message}`);
    this.name = 'SegmentError';
    this.status = status;
  }
}

/**
 * segment cuts texts into chunks on the server at url ("http://localhost:8080").
 * Each result's chunks carry text, start and end (UTF-8 byte offsets), tokens and sentences.
 * @param {string} url
 * @param {string | string[]} texts
 * @param {import('./index.js').SegmentOptions} [options]
 * @returns {Promise<import('./index.js').SegmentResponse>}
 */
export async function segment(url, texts, options = {}) {
  const { apiKey, fetch: fetchFn = globalThis.fetch, ...keys } = options;
  const body = { texts: typeof texts === 'string' ? [texts] : [...texts] };
  for (const [k, v] of Object.entries(keys)) if (v !== undefined) body[k] = v;
  const headers = { 'Content-Type': 'application/json' };
  if (apiKey) headers.Authorization = `Bearer ${apiKey}`;
  const res = await fetchFn(url.replace(/\/+$/, '') + SEGMENT_PATH, { method: 'POST', headers, body: JSON.stringify(body) });
  const raw = await res.text();
  if (!res.ok) {
    let msg = raw;
    try {
      const doc = JSON.parse(raw);
      msg = doc.error?.[0]?.message ?? doc.message ?? raw;
    } catch {
      // not JSON: the raw body is the message
    }
    throw new SegmentError(res.status, msg);
  }
  return JSON.parse(raw);
}
