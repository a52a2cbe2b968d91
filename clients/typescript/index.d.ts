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
  /** paged queries: whether the pool is spent (null when the query does not page) */
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
