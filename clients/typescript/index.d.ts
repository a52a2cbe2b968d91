// Types of diverse-select's helper for weaviate-client v3 (index.js).
import type { CommonOptions, SelectFactories, Strategy, WireOptions } from './options.generated.js';

export type * from './options.generated.js';

/** The settings form the server reads, e.g. "diverseSelect.v1". */
export declare const VERSION: string;
/** Largest rerank property, settings included, the server accepts (bytes). */
export declare const MAX_SETTINGS_BYTES: number;
/** The generated key table (clients/testdata/spec.json). */
export declare const spec: unknown;

/** An option the server would refuse; key names it. */
export declare class SettingsError extends Error {
  readonly key: string;
}

/** Why an object was selected: _additional { diverseSelect { ... } } of GraphQL. */
export interface Explanation {
  /** 1-based position in the selection (across pages). */
  rank: number;
  /** marginal gain when selected */
  gain: number;
  /** relevance the strategy used */
  relevance: number;
  /** where relevance came from: rerank, distance, score or order */
  relevanceSource: string;
  /** redundancy with earlier picks, as the strategy defines it */
  redundancy: number;
  /** token cost of this object */
  tokens: number;
  /** tokens of the whole selection */
  tokensUsed: number;
  /** token budget (0 = none) */
  budget: number;
  /** why the selection ended: budget, price, maxResults or pool ('' from a server before it said) */
  stopReason: string;
  /** budget left unused (0 without a budget) */
  tokensLeft: number;
  strategy: string;
  /** size of the candidate pool */
  candidates: number;
  /** objects selected on this page */
  selected: number;
  /** results shown by earlier pages */
  offset: number;
  /** paged queries: whether the next page is empty - nothing relevant left, or the pool spent (null when the query does not page) */
  exhausted: boolean | null;
}

/**
 * Per-query settings, made by Select's factories (Select.mmr({ lambda: 0.7 })) and checked on
 * construction; immutable. Only the factories make one: a plain object is not a Selection.
 */
export declare class Selection<S extends Strategy | undefined = Strategy | undefined, O extends CommonOptions = CommonOptions> {
  private constructor();
  private readonly brand;
  /** The strategy (undefined: the collection's). */
  readonly strategy: S;
  /** The options as the factory got them. */
  readonly options: Readonly<O>;
  /** The settings by the server's key names, the strategy's included. */
  wire(): WireOptions;
}

/** The typed settings: one factory per strategy, configured and fromWire. */
export declare const Select: Readonly<SelectFactories>;

/**
 * The rerank option of a search: diverse selection reading `property`, with
 * `query` as plain text and `settings` (made by Select) as this query's settings.
 */
export declare function rerank(property: string, query: string, settings?: Selection): { property: string; query: string };

/** The explanation of a returned object (returnMetadata: ['explainScore']), or null. */
export declare function explain(object: { metadata?: { explainScore?: string } } | string | undefined): Explanation | null;

/** The module's segmentation endpoint. */
export declare const SEGMENT_PATH: string;

/** A segment request the server refused. */
export declare class SegmentError extends Error {
  status: number;
}

/** The keys of a segment request (undefined: the server's default). */
export interface SegmentOptions {
  method?: 'changepoint' | 'sage' | 'percentile' | 'packed' | 'fixed';
  encoder?: string;
  maxTokens?: number;
  /** The shortest chunk (at most maxTokens / 2): a smaller one merges with a neighbour. */
  minTokens?: number;
  threshold?: number;
  percentile?: number;
  tokenizer?: string;
  /** With RBAC the caller needs create_data on it (on every collection when absent). */
  collection?: string;
  /** Sent as a bearer token. */
  apiKey?: string;
  fetch?: typeof fetch;
}

/** One chunk: the input's UTF-8 bytes [start, end). */
export interface SegmentChunk {
  text: string;
  start: number;
  end: number;
  tokens: number;
  sentences: number;
  /** A piece of a sentence longer than maxTokens, cut at a word boundary. */
  cut?: boolean;
}

export interface SegmentResponse {
  method: string;
  encoder?: string;
  threshold?: number;
  maxTokens: number;
  minTokens: number;
  tokenizer: string;
  results: { chunks: SegmentChunk[] }[];
}

/** Cuts texts into chunks on the server at url. */
export declare function segment(url: string, texts: string | string[], options?: SegmentOptions): Promise<SegmentResponse>;

/** One document to import: id is its source id, stored on each chunk; properties are copied onto each chunk. */
export interface ImportDocument {
  id: string;
  text: string;
  properties?: Record<string, unknown>;
}

/** The options of importDocuments: the segment request's keys, and where the chunks go. */
export interface ImportOptions extends Omit<SegmentOptions, 'collection' | 'threshold' | 'percentile'> {
  /** The server that segments: the module's Weaviate or the gateway ("http://localhost:8080"). */
  url: string;
  /** Default text. */
  textProperty?: string;
  /** Default source_id; text with tokenization field (refused otherwise). */
  sourceProperty?: string;
  /** Default start. */
  startProperty?: string;
  /** Default end. */
  endProperty?: string;
  /** The chunks of one insertMany, 1..1000 (default 100). */
  batchSize?: number;
}

/** Longest source id, in UTF-8 bytes. */
export declare const MAX_ID_BYTES: number;

/** Some documents were not imported; none of them has a chunk left. */
export declare class ImportDocumentsError extends Error {
  failures: Record<string, { start: number; end: number; message: string }>;
  imported: Record<string, string[]>;
}

/** The uuid5 of the chunk [start, end) (UTF-8 bytes) of document sourceId in collection. */
export declare function chunkUuid(collection: string, sourceId: string, start: number, end: number): Promise<string>;

/** The calls importDocuments makes on a weaviate-client v3 collection (client.collections.get(name)). */
export interface ImportCollection {
  name: string;
  config: { get(): Promise<{ properties: { name: string; dataType: string; tokenization?: string | null }[] }> };
  filter: { byProperty(name: any): any };
  data: { deleteMany(where: any): Promise<{ failed: number }>; insertMany(objects: any[]): Promise<{ errors?: Record<number, { message: string }> }> };
}

/** Cuts each document on the segment endpoint and writes its chunks to collection; each document's chunk ids. */
export declare function importDocuments(collection: ImportCollection, documents: ImportDocument[], options: ImportOptions): Promise<Record<string, string[]>>;
