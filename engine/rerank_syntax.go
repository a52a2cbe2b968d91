package engine

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

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
// not start with "diverseSelect(" is all query text. The settings are
// converted and validated as the field's arguments are, so a bad value gets
// the GraphQL forms' error.
//
// The query is text a client sent, so the settings are bounded before they
// are read: their length (DIVERSE_SELECT_MAX_SETTINGS_BYTES) and bracket
// nesting (DIVERSE_SELECT_MAX_SETTINGS_DEPTH) are checked in one scan, and
// the parser below is a loop over the values of one flat argument list
// (lists nest no deeper than the depth checked), never a recursion the input
// can drive.
const rerankSettingsPrefix = ArgName + "("

// rerankSettingsKey names the rerank query in syntax errors.
const rerankSettingsKey = "rerank query"

const settingsExample = `write diverseSelect(strategy: "mmr", tokenBudget: 300): query text`

// parseRerankQuery splits a rerank query into its settings (nil when it
// carries none) and its query text, within the module's limits.
func parseRerankQuery(q string, lim config.Limits) (map[string]any, string, error) {
	trimmed := strings.TrimLeft(q, " \t\r\n")
	if !strings.HasPrefix(trimmed, rerankSettingsPrefix) {
		return nil, q, nil
	}
	end, err := settingsEnd(trimmed, lim)
	if err != nil {
		return nil, "", err
	}
	args, err := parseSettings(trimmed[len(rerankSettingsPrefix):end], lim)
	if err != nil {
		return nil, "", err
	}
	raw := map[string]any{}
	for _, a := range args {
		if err := rerankKeyAllowed(a.name); err != nil { // as in the property's settings
			return nil, "", err
		}
		if _, dup := raw[a.name]; dup {
			return nil, "", &config.Error{Key: a.name, Msg: "is given twice in the rerank query"}
		}
		raw[a.name] = a.value
	}
	text := strings.TrimSpace(trimmed[end+1:])
	text = strings.TrimSpace(strings.TrimPrefix(text, ":"))
	return raw, text, nil
}

// settingsEnd is the index in s of the ")" that closes the settings: the
// first one outside a string literal (GraphQL values hold no parentheses
// outside strings). It reads at most the settings' byte limit and refuses
// brackets nested deeper than the depth limit (the call counts as one).
func settingsEnd(s string, lim config.Limits) (int, error) {
	maxEnd := len(s)
	if lim.MaxSettingsBytes > 0 {
		maxEnd = min(maxEnd, len(rerankSettingsPrefix)+lim.MaxSettingsBytes)
	}
	inString, depth := false, 1
	for i := len(rerankSettingsPrefix); i < maxEnd; i++ {
		switch c := s[i]; {
		case inString && c == '\\':
			i++ // the escaped character
		case c == '"':
			inString = !inString
		case inString:
		case c == ')':
			return i, nil
		case c == '[':
			if depth++; lim.MaxSettingsDepth > 0 && depth > lim.MaxSettingsDepth {
				return -1, &config.Error{Key: rerankSettingsKey, Msg: fmt.Sprintf("has settings nested deeper than %d brackets, "+
					"the module's limit (DIVERSE_SELECT_MAX_SETTINGS_DEPTH); settings are a flat list of name: value", lim.MaxSettingsDepth)}
			}
		case c == ']':
			depth--
		}
	}
	if maxEnd < len(s) {
		return -1, &config.Error{Key: rerankSettingsKey, Msg: fmt.Sprintf("has settings longer than %d bytes, the module's limit "+
			"(DIVERSE_SELECT_MAX_SETTINGS_BYTES), or no closing parenthesis; %s", lim.MaxSettingsBytes, settingsExample)}
	}
	return -1, &config.Error{Key: rerankSettingsKey, Msg: fmt.Sprintf("starts with %q but has no closing parenthesis; %s",
		rerankSettingsPrefix, settingsExample)}
}

// setting is one "name: value" of the settings, the value as config.Parse
// takes it (string, int64, float64, bool, []any).
type setting struct {
	name  string
	value any
}

// parseSettings parses the inside of "diverseSelect(...)" - GraphQL
// arguments with literal values: strings, numbers, booleans, enum names and
// lists of them. It is a loop with an explicit stack of open lists, so its
// depth is the depth settingsEnd checked, whatever the input.
func parseSettings(body string, lim config.Limits) ([]setting, error) {
	lx := &settingsLexer{s: body}
	var out []setting
	for {
		tok, err := lx.next()
		if err != nil {
			return nil, err
		}
		if tok.kind == tokEnd {
			return out, nil
		}
		if tok.kind != tokName {
			return nil, lx.syntax("an argument name", tok)
		}
		name := tok.text
		if colon, err := lx.next(); err != nil {
			return nil, err
		} else if colon.kind != tokColon {
			return nil, lx.syntax(`":" after `+strconv.Quote(name), colon)
		}
		v, err := lx.value(name, lim)
		if err != nil {
			return nil, err
		}
		out = append(out, setting{name: name, value: v})
	}
}

type tokKind int

const (
	tokEnd tokKind = iota
	tokName
	tokString
	tokNumber
	tokColon
	tokOpen  // [
	tokClose // ]
	tokVariable
	tokOther
)

type lexToken struct {
	kind tokKind
	text string // a name, a number, a string's value
	at   int
}

// settingsLexer reads the tokens of GraphQL argument syntax; commas are
// whitespace, as in GraphQL.
type settingsLexer struct {
	s   string
	pos int
}

// value reads one value of argument name: a scalar, or a list of values
// (nested lists kept on an explicit stack).
func (lx *settingsLexer) value(name string, lim config.Limits) (any, error) {
	var stack [][]any // open lists, innermost last
	for {
		tok, err := lx.next()
		if err != nil {
			return nil, err
		}
		var v any
		switch tok.kind {
		case tokOpen:
			if lim.MaxSettingsDepth > 0 && len(stack)+2 > lim.MaxSettingsDepth {
				return nil, &config.Error{Key: name, Msg: fmt.Sprintf("nests lists deeper than the module's limit of %d brackets "+
					"(DIVERSE_SELECT_MAX_SETTINGS_DEPTH)", lim.MaxSettingsDepth)}
			}
			stack = append(stack, []any{})
			continue
		case tokClose:
			if len(stack) == 0 {
				return nil, lx.syntax("a value for "+strconv.Quote(name), tok)
			}
			v = stack[len(stack)-1]
			stack = stack[:len(stack)-1]
		case tokVariable:
			return nil, &config.Error{Key: name, Msg: "is a variable; the rerank query's settings take literal values only"}
		default:
			if v, err = scalar(name, tok); err != nil {
				return nil, err
			}
			if v == nil {
				return nil, lx.syntax("a value for "+strconv.Quote(name), tok)
			}
		}
		if len(stack) == 0 {
			return v, nil
		}
		if lim.MaxListLength > 0 && len(stack[len(stack)-1]) >= 16*lim.MaxListLength {
			// Duplicates are dropped after parsing; far more entries than the
			// limit cannot be a valid list (DIVERSE_SELECT_MAX_LIST_LENGTH).
			return nil, &config.Error{Key: name, Msg: fmt.Sprintf("lists more than %d entries, far above the module's limit of %d "+
				"(DIVERSE_SELECT_MAX_LIST_LENGTH)", 16*lim.MaxListLength, lim.MaxListLength)}
		}
		stack[len(stack)-1] = append(stack[len(stack)-1], v)
	}
}

// scalar converts a scalar lexToken as the GraphQL field's astValue does (nil
// for a lexToken that is no value).
func scalar(name string, tok lexToken) (any, error) {
	switch tok.kind {
	case tokString:
		return tok.text, nil
	case tokName:
		switch tok.text {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return tok.text, nil // an enum value
	case tokNumber:
		if !strings.ContainsAny(tok.text, ".eE") {
			n, err := strconv.ParseInt(tok.text, 10, 64)
			if err != nil {
				return nil, &config.Error{Key: name, Msg: fmt.Sprintf("is %s, not a 64-bit integer", clipText(tok.text))}
			}
			return n, nil
		}
		f, err := strconv.ParseFloat(tok.text, 64)
		if err != nil {
			return nil, &config.Error{Key: name, Msg: fmt.Sprintf("is %s, not a number", clipText(tok.text))}
		}
		return f, nil
	}
	return nil, nil
}

func (lx *settingsLexer) syntax(want string, got lexToken) error {
	what := "the end of the settings"
	if got.kind != tokEnd {
		what = strconv.Quote(clipText(lx.s[got.at:min(len(lx.s), got.at+16)]))
	}
	return &config.Error{Key: rerankSettingsKey, Msg: fmt.Sprintf("has settings that are not GraphQL arguments "+
		"(expected %s at byte %d, found %s); %s", want, got.at, what, settingsExample)}
}

func (lx *settingsLexer) next() (lexToken, error) {
	s := lx.s
	for lx.pos < len(s) && (s[lx.pos] == ' ' || s[lx.pos] == '\t' || s[lx.pos] == '\n' || s[lx.pos] == '\r' || s[lx.pos] == ',') {
		lx.pos++
	}
	start := lx.pos
	if start == len(s) {
		return lexToken{kind: tokEnd, at: start}, nil
	}
	c := s[start]
	switch {
	case c == ':':
		lx.pos++
		return lexToken{kind: tokColon, at: start}, nil
	case c == '[':
		lx.pos++
		return lexToken{kind: tokOpen, at: start}, nil
	case c == ']':
		lx.pos++
		return lexToken{kind: tokClose, at: start}, nil
	case c == '$':
		lx.pos++
		return lexToken{kind: tokVariable, at: start}, nil
	case c == '"':
		return lx.str()
	case c == '_' || isLetter(c):
		for lx.pos < len(s) && (s[lx.pos] == '_' || isLetter(s[lx.pos]) || isDigit(s[lx.pos])) {
			lx.pos++
		}
		return lexToken{kind: tokName, text: s[start:lx.pos], at: start}, nil
	case c == '-' || isDigit(c):
		lx.pos++
		for lx.pos < len(s) && (isDigit(s[lx.pos]) || strings.IndexByte(".eE+-", s[lx.pos]) >= 0) {
			lx.pos++
		}
		return lexToken{kind: tokNumber, text: s[start:lx.pos], at: start}, nil
	}
	lx.pos++
	return lexToken{kind: tokOther, at: start}, nil
}

// str reads a GraphQL string literal with its escapes.
func (lx *settingsLexer) str() (lexToken, error) {
	s, start := lx.s, lx.pos
	var b strings.Builder
	for i := start + 1; i < len(s); {
		c := s[i]
		switch {
		case c == '"':
			lx.pos = i + 1
			return lexToken{kind: tokString, text: b.String(), at: start}, nil
		case c == '\n' || c == '\r':
			return lexToken{}, lx.syntax("a closing quote", lexToken{kind: tokOther, at: i})
		case c != '\\':
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(s) {
			break
		}
		switch e := s[i+1]; e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			if i+6 > len(s) {
				return lexToken{}, lx.syntax(`four hex digits after \u`, lexToken{kind: tokOther, at: i})
			}
			r, err := strconv.ParseUint(s[i+2:i+6], 16, 16)
			if err != nil {
				return lexToken{}, lx.syntax(`four hex digits after \u`, lexToken{kind: tokOther, at: i})
			}
			b.WriteRune(decodeRune(rune(r)))
			i += 6
			continue
		default:
			return lexToken{}, lx.syntax("a valid escape", lexToken{kind: tokOther, at: i})
		}
		i += 2
	}
	return lexToken{}, lx.syntax("a closing quote", lexToken{kind: tokEnd, at: len(s)})
}

// decodeRune maps a lone UTF-16 surrogate to the replacement character.
func decodeRune(r rune) rune {
	if utf16.IsSurrogate(r) {
		return utf8.RuneError
	}
	return r
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

// clipText shortens s for an error message.
func clipText(s string) string {
	if len(s) <= 40 {
		return s
	}
	cut := 40
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}
