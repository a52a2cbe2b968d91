package config

import "github.com/diverse-select/diverse-select/selectors/text"

// CheckQueryText refuses a query text the selection would read that is over
// the module's limits: longer than MaxQueryBytes, or with more distinct words
// than MaxQueryTerms (distinct words bound the distinct analysed terms the
// text strategies and evidence cards work through, per candidate). It is
// cheap - one pass, stopping at the first word over the limit - and runs
// before any work on the candidates starts.
func CheckQueryText(q string, lim Limits) error {
	if lim.MaxQueryBytes > 0 && len(q) > lim.MaxQueryBytes {
		return errf(KeyQuery, "text is %d bytes long, above the module's limit of %d (DIVERSE_SELECT_MAX_QUERY_BYTES); "+
			"shorten the query (nearText concepts, the bm25/hybrid or rerank query, or the query key)", len(q), lim.MaxQueryBytes)
	}
	if lim.MaxQueryTerms <= 0 {
		return nil
	}
	seen := map[string]struct{}{}
	for tok := range text.Tokens(q) {
		if _, ok := seen[tok]; ok {
			continue
		}
		if len(seen) == lim.MaxQueryTerms {
			return errf(KeyQuery, "text has more than %d distinct words, the module's limit (DIVERSE_SELECT_MAX_QUERY_TERMS); "+
				"shorten the query", lim.MaxQueryTerms)
		}
		seen[tok] = struct{}{}
	}
	return nil
}
