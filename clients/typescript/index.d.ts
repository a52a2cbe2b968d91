// Types of diverse-select's helper for weaviate-client v3 (index.js).
import type { Options, Strategy } from './options.generated.js';

export type { Options, Strategy };

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

/** Throws a SettingsError for an option the server would refuse. */
export declare function validate(options?: Options): void;

/**
 * The rerank option of a search: diverse selection reading `property`, with
 * `query` as plain text and `options` as this query's settings.
 */
export declare function rerank(property: string, query: string, options?: Options): { property: string; query: string };

/** The explanation of a returned object (returnMetadata: ['explainScore']), or null. */
export declare function explain(object: { metadata?: { explainScore?: string } } | string | undefined): Explanation | null;
