package diverseselect

import (
	"fmt"
	"strings"

	"github.com/tailor-platform/graphql/language/ast"
	"github.com/tailor-platform/graphql/language/parser"

	"github.com/diverse-select/diverse-select/config"
)

// Per-query settings on the rerank route. The clients' gRPC search API
// carries only rerank {property, query}, so a rerank query may start with the
// settings, in the syntax of the GraphQL field's arguments:
//
//	diverseSelect(strategy: "mmr", tokenBudget: 300, lambda: 0.7): statins and muscle pain
//
// The text after the closing parenthesis and an optional colon is the query
// text (empty: the nearText concepts, as without settings). A query that does
// not start with "diverseSelect(" is all query text. The settings are parsed
// by the GraphQL parser and converted and validated as the field's
// arguments are, so a bad value gets the GraphQL forms' error.
const rerankSettingsPrefix = ArgName + "("

// rerankSettingsKey names the rerank query in syntax errors.
const rerankSettingsKey = "rerank query"

// parseRerankQuery splits a rerank query into its settings (nil when it
// carries none) and its query text.
func parseRerankQuery(q string) (map[string]any, string, error) {
	trimmed := strings.TrimLeft(q, " \t\r\n")
	if !strings.HasPrefix(trimmed, rerankSettingsPrefix) {
		return nil, q, nil
	}
	end := closingParen(trimmed, len(rerankSettingsPrefix))
	if end < 0 {
		return nil, "", &config.Error{Key: rerankSettingsKey, Msg: fmt.Sprintf("starts with %q but has no closing parenthesis; "+
			`write diverseSelect(strategy: "mmr", tokenBudget: 300): query text`, rerankSettingsPrefix)}
	}
	var args []*ast.Argument
	if strings.TrimSpace(trimmed[len(rerankSettingsPrefix):end]) != "" { // GraphQL has no empty argument list
		var err error
		if args, err = settingsArguments(trimmed[:end+1]); err != nil {
			return nil, "", err
		}
	}
	raw := map[string]any{}
	for _, a := range args {
		switch a.Name.Value {
		case config.KeyCandidates:
			return nil, "", &config.Error{Key: a.Name.Value, Msg: "does not apply on the rerank route: the query limit is the candidate pool"}
		case config.KeyTextProperty, config.KeyQuery:
			return nil, "", &config.Error{Key: a.Name.Value, Msg: "is not a setting of the rerank query: " +
				"the rerank property is the text property and the text after the settings the query"}
		}
		if _, dup := raw[a.Name.Value]; dup {
			return nil, "", &config.Error{Key: a.Name.Value, Msg: "is given twice in the rerank query"}
		}
		v, err := astValue(a.Name.Value, a.Value)
		if err != nil {
			return nil, "", err
		}
		raw[a.Name.Value] = v
	}
	text := strings.TrimSpace(trimmed[end+1:])
	text = strings.TrimSpace(strings.TrimPrefix(text, ":"))
	return raw, text, nil
}

// closingParen is the index of the first ")" at or after from that is not
// inside a string literal, or -1. GraphQL values hold no parentheses outside
// strings.
func closingParen(s string, from int) int {
	inString := false
	for i := from; i < len(s); i++ {
		switch c := s[i]; {
		case inString && c == '\\':
			i++ // the escaped character
		case c == '"':
			inString = !inString
		case !inString && c == ')':
			return i
		}
	}
	return -1
}

// settingsArguments parses "diverseSelect(...)" as a GraphQL field with
// arguments and returns them.
func settingsArguments(call string) ([]*ast.Argument, error) {
	doc, err := parser.Parse(parser.ParseParams{Source: "{" + call + "}"})
	if err != nil {
		return nil, &config.Error{Key: rerankSettingsKey, Msg: fmt.Sprintf("has settings that are not GraphQL arguments (%s); "+
			`write diverseSelect(strategy: "mmr", tokenBudget: 300): query text`, firstLine(err.Error()))}
	}
	if len(doc.Definitions) != 1 {
		return nil, &config.Error{Key: rerankSettingsKey, Msg: "has malformed settings"}
	}
	op, ok := doc.Definitions[0].(*ast.OperationDefinition)
	if !ok || op.SelectionSet == nil || len(op.SelectionSet.Selections) != 1 {
		return nil, &config.Error{Key: rerankSettingsKey, Msg: "has malformed settings"}
	}
	f, ok := op.SelectionSet.Selections[0].(*ast.Field)
	if !ok || f.SelectionSet != nil {
		return nil, &config.Error{Key: rerankSettingsKey, Msg: "has malformed settings"}
	}
	return f.Arguments, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
