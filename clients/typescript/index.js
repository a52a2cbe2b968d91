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

// --- segment at import --------------------------------------------------------
//
// importDocuments cuts each document on the segment endpoint and writes its
// chunks with the caller's own weaviate-client collection, as the Python
// helper's import_documents and the Go helper's ImportDocuments do
// (docs/segmentation.md): the same uuid5 ids, so a retry writes the same
// objects whichever helper made them.

/** The uuid5 namespace of the chunks' ids (the Python and Go helpers' too). */
const IMPORT_NAMESPACE = '6f1d0c9e-4b7a-5e3f-9a51-2d8c7e0b4f16';
/** Longest source id, in UTF-8 bytes: a property value and part of every chunk's id. */
export const MAX_ID_BYTES = 1024;
// A segment request of an import: a few documents, well under the endpoint's
// default limits (64 texts, 1 MiB).
const TEXTS_PER_REQUEST = 16;
const BYTES_PER_REQUEST = 512 * 1024;
const utf8 = new TextEncoder();

/**
 * Some documents were not imported; none of them has a chunk left. failures maps each one's source id to its
 * first refused chunk ({ start, end, message }); imported maps every other document's id to its chunks' ids.
 */
export class ImportDocumentsError extends Error {
  constructor(failures, imported) {
    const ids = Object.keys(failures);
    const { start, end, message } = failures[ids[0]];
    const more = ids.length > 1 ? ` (and ${ids.length - 1} more documents)` : '';
    super(`diverse-select: importDocuments: document ${JSON.stringify(ids[0])}: chunk [${start}, ${end}) was refused: ` +
      `${message}; the document's chunks were removed${more}`);
    this.name = 'ImportDocumentsError';
    this.failures = failures;
    this.imported = imported;
  }
}

/**
 * chunkUuid is the id of the chunk [start, end) (UTF-8 bytes) of document sourceId in collection: a uuid5
 * (RFC 4122, SHA-1), by the Web Crypto API of Node.js and browsers.
 * @returns {Promise<string>}
 */
export async function chunkUuid(collection, sourceId, start, end) {
  const ns = Uint8Array.from(IMPORT_NAMESPACE.replace(/-/g, '').match(/../g), (h) => parseInt(h, 16));
  const name = utf8.encode(`${collection}\0${sourceId}\0${start}\0${end}`);
  const data = new Uint8Array(ns.length + name.length);
  data.set(ns);
  data.set(name, ns.length);
  const h = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-1', data)).slice(0, 16);
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = Array.from(h, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

function checkDocuments(documents, reserved) {
  if (!Array.isArray(documents)) throw new TypeError('diverse-select: importDocuments: documents must be an array of { id, text, properties }');
  const seen = new Map();
  return documents.map((d, i) => {
    if (d === null || typeof d !== 'object') throw new TypeError(`diverse-select: importDocuments: documents[${i}] is not an object`);
    const unknown = Object.keys(d).filter((k) => !['id', 'text', 'properties'].includes(k));
    if (unknown.length) throw new TypeError(`diverse-select: importDocuments: documents[${i}] has key(s) ${unknown.join(', ')}; allowed: id, text, properties`);
    const { id, text, properties = {} } = d;
    if (typeof id !== 'string' || id === '' || utf8.encode(id).length > MAX_ID_BYTES) {
      throw new TypeError(`diverse-select: importDocuments: documents[${i}].id ${show(id)} must be a non-empty string of at most ${MAX_ID_BYTES} UTF-8 bytes`);
    }
    if (typeof text !== 'string' || text.trim() === '') {
      throw new TypeError(`diverse-select: importDocuments: documents[${i}].text must be a string with text in it, not ${show(text)}`);
    }
    if (properties === null || typeof properties !== 'object' || Array.isArray(properties)) {
      throw new TypeError(`diverse-select: importDocuments: documents[${i}].properties must be an object`);
    }
    const clash = Object.keys(properties).find((k) => reserved.includes(k));
    if (clash !== undefined) {
      throw new TypeError(`diverse-select: importDocuments: documents[${i}].properties sets ${show(clash)}, which the import writes itself (${reserved.join(', ')})`);
    }
    if (seen.has(id)) throw new TypeError(`diverse-select: importDocuments: documents[${seen.get(id)}] and documents[${i}] have the same id ${show(id)}`);
    seen.set(id, i);
    return { id, text, properties };
  });
}

// The source property must be text with field tokenization: the import finds a document's chunks by equality on
// it, and word tokenization makes "doc 1" equal to "doc 1 2".
async function checkSource(collection, name) {
  const cfg = await collection.config.get();
  const p = cfg.properties.find((q) => q.name === name);
  if (!p || p.dataType !== 'text' || p.tokenization !== 'field') {
    const found = p ? `${p.dataType} with tokenization ${p.tokenization ?? 'none'}` : 'missing';
    throw new TypeError(`diverse-select: importDocuments: the property ${show(name)} of collection ${show(collection.name)} must be ` +
      `text with tokenization field (it is ${found}): the import finds a document's chunks by equality on it`);
  }
}

async function deleteWhere(collection, where, what) {
  const res = await collection.data.deleteMany(where);
  if (res.failed) throw new Error(`diverse-select: importDocuments: ${what}: ${res.failed} objects were not deleted`);
}

/**
 * importDocuments cuts each document's text on the segment endpoint at options.url (the module's Weaviate or
 * the gateway) and writes each chunk to collection (a weaviate-client v3 collection, tenant included) as one
 * object: its text, the document's id, its UTF-8 byte offsets in the document's text, and the document's
 * properties. Returns each document's chunk ids, in text order. Idempotent; a document with a refused chunk is
 * left with no chunk and ImportDocumentsError names it after the others are written.
 * @param {any} collection
 * @param {import('./index.js').ImportDocument[]} documents
 * @param {import('./index.js').ImportOptions} options
 * @returns {Promise<Record<string, string[]>>}
 */
export async function importDocuments(collection, documents, options = {}) {
  const { url, textProperty = 'text', sourceProperty = 'source_id', startProperty = 'start', endProperty = 'end',
    batchSize = 100, ...segmentOptions } = options;
  if (typeof url !== 'string' || url === '') throw new TypeError('diverse-select: importDocuments: options.url (the server that segments) is required');
  const names = { textProperty, sourceProperty, startProperty, endProperty };
  for (const [arg, name] of Object.entries(names)) {
    if (typeof name !== 'string' || name === '') throw new TypeError(`diverse-select: importDocuments: ${arg} must be a property name, not ${show(name)}`);
  }
  if (new Set(Object.values(names)).size !== 4) {
    throw new TypeError(`diverse-select: importDocuments: textProperty, sourceProperty, startProperty and endProperty must be four different names, not ${Object.values(names).join(', ')}`);
  }
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 1000) throw new RangeError(`diverse-select: importDocuments: batchSize ${show(batchSize)} is outside [1, 1000]`);
  const docs = checkDocuments(documents, Object.values(names));
  if (docs.length === 0) return {};
  await checkSource(collection, sourceProperty);

  // Cut every text first: a refused segment request writes nothing.
  const cuts = [];
  for (let i = 0; i < docs.length;) {
    let j = i;
    let size = 0;
    while (j < docs.length && j - i < TEXTS_PER_REQUEST && (j === i || size + utf8.encode(docs[j].text).length <= BYTES_PER_REQUEST)) {
      size += utf8.encode(docs[j].text).length;
      j++;
    }
    const res = await segment(url, docs.slice(i, j).map((d) => d.text), { ...segmentOptions, collection: collection.name });
    if (res.results.length !== j - i) throw new Error(`diverse-select: importDocuments: the server cut ${res.results.length} texts, ${j - i} were sent`);
    for (const r of res.results) cuts.push(r.chunks);
    i = j;
  }

  const bySource = (id) => collection.filter.byProperty(sourceProperty).equal(id);
  const ids = {};
  const objects = [];
  for (const [k, d] of docs.entries()) {
    ids[d.id] = await Promise.all(cuts[k].map((c) => chunkUuid(collection.name, d.id, c.start, c.end)));
    // A re-import converges: the document's chunks the new cut does not hold go first.
    const stale = ids[d.id].length === 0 ? bySource(d.id)
      : { operator: 'And', filters: [bySource(d.id), collection.filter.byProperty('_id').containsNone(ids[d.id])], value: null };
    await deleteWhere(collection, stale, `document ${show(d.id)}: delete the chunks of its previous cut`);
    cuts[k].forEach((c, n) => objects.push({
      source: d.id, start: c.start, end: c.end,
      object: { id: ids[d.id][n], properties: { ...d.properties, [textProperty]: c.text, [sourceProperty]: d.id, [startProperty]: c.start, [endProperty]: c.end } },
    }));
  }

  const failures = {};
  for (let k = 0; k < objects.length; k += batchSize) {
    const part = objects.slice(k, k + batchSize);
    let refused;
    try {
      const res = await collection.data.insertMany(part.map((p) => p.object));
      refused = Object.entries(res.errors ?? {}).map(([n, e]) => [Number(n), String(e.message)]);
    } catch (err) { // the whole slice refused, or the call failed
      refused = part.map((_, n) => [n, `${err?.name ?? 'Error'}: ${err?.message ?? err}`]);
    }
    for (const [n, message] of refused.sort((a, b) => a[0] - b[0])) {
      const p = part[n];
      failures[p.source] ??= { start: p.start, end: p.end, message };
    }
  }
  if (Object.keys(failures).length === 0) return ids;
  // No partial document: a document with a refused chunk loses all of them.
  for (const [src, f] of Object.entries(failures)) {
    await deleteWhere(collection, bySource(src), `document ${show(src)}: chunk [${f.start}, ${f.end}) was refused (${f.message}), and removing its chunks`);
    delete ids[src];
  }
  throw new ImportDocumentsError(failures, ids);
}
