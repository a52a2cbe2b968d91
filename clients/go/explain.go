package diverseselect

import (
	"encoding/json"
	"strings"
)

// Explanation is why an object was selected: the fields of GraphQL's
// _additional { diverseSelect { ... } }, read from the object's explainScore.
type Explanation struct {
	Rank            int     `json:"rank"`            // 1-based position in the selection (across pages)
	Gain            float64 `json:"gain"`            // marginal gain when selected
	Relevance       float64 `json:"relevance"`       // relevance the strategy used
	RelevanceSource string  `json:"relevanceSource"` // rerank, distance, score or order
	Redundancy      float64 `json:"redundancy"`      // redundancy with earlier picks
	Tokens          int     `json:"tokens"`          // token cost of this object
	TokensUsed      int     `json:"tokensUsed"`      // tokens of the whole selection
	Budget          int     `json:"budget"`          // token budget (0 = none)
	// StopReason is why the selection ended: "budget" (nothing left fits),
	// "price" (nothing left pays for its tokens), "maxResults" or "pool"
	// (nothing left); empty from a server before it said.
	StopReason string `json:"stopReason"`
	TokensLeft int    `json:"tokensLeft"` // budget left unused (0 without a budget)
	Strategy   string `json:"strategy"`
	Candidates int    `json:"candidates"` // size of the candidate pool
	Selected   int    `json:"selected"`   // objects selected on this page
	Offset     int    `json:"offset"`     // results shown by earlier pages
	Exhausted  *bool  `json:"exhausted"`  // paged queries: the next page is empty, nothing relevant left (nil: the query does not page)
}

const explainPrefix = Version + " "

// Explain reads the explanation from an object's explainScore; nil when it
// carries none (not asked for, or not a diverse selection).
func Explain(explainScore string) *Explanation {
	for _, line := range strings.Split(explainScore, "\n") {
		if rest, ok := strings.CutPrefix(line, explainPrefix); ok {
			var e Explanation
			if json.Unmarshal([]byte(rest), &e) != nil {
				return nil
			}
			return &e
		}
	}
	return nil
}
