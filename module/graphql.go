package diverseselect

import (
	"fmt"
	"strings"

	"github.com/tailor-platform/graphql"

	"github.com/diverse-select/diverse-select/config"
	"github.com/diverse-select/diverse-select/selectors"
)

// commonArg is the GraphQL input type and description of a common key.
type commonArg struct {
	typ graphql.Input
	doc string
}

// commonArgs are the keys every strategy accepts, from config.Keys.
var commonArgs = func() map[string]commonArg {
	out := map[string]commonArg{}
	for _, k := range config.Keys {
		allowed := strings.ReplaceAll(k.Allowed, "`", "") // Markdown in the README
		out[k.Name] = commonArg{graphqlType(k.Kind), k.Doc + "; allowed: " + allowed}
	}
	return out
}()

// graphqlType is the GraphQL input type of a setting's kind, a key's or a
// parameter's; any other kind (string, property) is a String.
func graphqlType(k selectors.Kind) graphql.Input {
	types := map[selectors.Kind]graphql.Input{
		selectors.KindFloat: graphql.Float, selectors.KindInt: graphql.Int,
		selectors.KindBool: graphql.Boolean, selectors.KindStrings: graphql.NewList(graphql.String),
	}
	if t, ok := types[k]; ok {
		return t
	}
	return graphql.String
}

// strategyArgs returns the union of every registered strategy's parameters
// as GraphQL input types. A name used by several strategies must have one
// type (a test checks it); int and float mixes become Float.
func strategyArgs() map[string]graphql.Input {
	kinds := map[string]selectors.Kind{}
	for _, d := range selectors.Definitions() {
		for _, p := range d.Params {
			if k, ok := kinds[p.Name]; ok && k != p.Kind {
				if (k == selectors.KindInt || k == selectors.KindFloat) && (p.Kind == selectors.KindInt || p.Kind == selectors.KindFloat) {
					kinds[p.Name] = selectors.KindFloat
					continue
				}
				panic(fmt.Sprintf("diverse-select: parameter %q has kinds %s and %s", p.Name, k, p.Kind))
			}
			kinds[p.Name] = p.Kind
		}
	}
	out := map[string]graphql.Input{}
	for name, k := range kinds {
		if _, common := commonArgs[name]; common {
			panic(fmt.Sprintf("diverse-select: strategy parameter %q shadows a common key", name))
		}
		out[name] = graphqlType(k)
	}
	return out
}

// getArgument is the top-level Get argument diverseSelect: {...} of a class.
func getArgument(className string) *graphql.ArgumentConfig {
	fields := graphql.InputObjectConfigFieldMap{}
	for name, a := range commonArgs {
		fields[name] = &graphql.InputObjectFieldConfig{Type: a.typ, Description: a.doc}
	}
	for name, typ := range strategyArgs() {
		fields[name] = &graphql.InputObjectFieldConfig{Type: typ, Description: "strategy parameter (see /v1/meta)"}
	}
	return &graphql.ArgumentConfig{
		Description: "select the best set of results for a language model's context: relevant, non-redundant, within a token budget",
		Type: graphql.NewInputObject(graphql.InputObjectConfig{
			Name:   className + "DiverseSelectInpObj",
			Fields: fields,
		}),
	}
}

// additionalField is _additional { diverseSelect(...) { ... } } of a class.
func additionalField(className string) *graphql.Field {
	args := graphql.FieldConfigArgument{}
	for name, a := range commonArgs {
		if name == config.KeyCandidates {
			continue // in this form the query limit is the pool
		}
		args[name] = &graphql.ArgumentConfig{Type: a.typ, Description: a.doc}
	}
	for name, typ := range strategyArgs() {
		args[name] = &graphql.ArgumentConfig{Type: typ, Description: "strategy parameter (see /v1/meta)"}
	}
	stat := graphql.NewObject(graphql.ObjectConfig{
		Name: className + "AdditionalDiverseSelectStat",
		Fields: graphql.Fields{
			"name":  &graphql.Field{Type: graphql.String},
			"value": &graphql.Field{Type: graphql.Float},
		},
	})
	return &graphql.Field{
		Args:        args,
		Description: "why this object was selected, and the figures of the whole selection",
		Type: graphql.NewObject(graphql.ObjectConfig{
			Name: className + "AdditionalDiverseSelect",
			Fields: graphql.Fields{
				"rank":      &graphql.Field{Type: graphql.Int, Description: "1-based position in selection order"},
				"gain":      &graphql.Field{Type: graphql.Float, Description: "marginal gain when selected"},
				"relevance": &graphql.Field{Type: graphql.Float, Description: "relevance the strategy used"},
				"relevanceSource": &graphql.Field{Type: graphql.String,
					Description: "where relevance came from: rerank, distance, score or order (plain list)"},
				"redundancy": &graphql.Field{Type: graphql.Float, Description: "redundancy with earlier picks, as the strategy defines it"},
				"tokens":     &graphql.Field{Type: graphql.Int, Description: "token cost (the card's with evidence cards)"},
				"evidence": &graphql.Field{Type: graphql.String,
					Description: "the evidence card the selection priced and returns in place of the text (null without cards)"},
				"strategy":   &graphql.Field{Type: graphql.String},
				"objective":  &graphql.Field{Type: graphql.Float, Description: "objective value of the selected set"},
				"tokensUsed": &graphql.Field{Type: graphql.Int},
				"budget":     &graphql.Field{Type: graphql.Int, Description: "token budget (0 = none)"},
				"stopReason": &graphql.Field{Type: graphql.String, Description: "why the selection ended: " +
					"budget (nothing left fits), price (nothing left pays for its tokens), maxResults, or pool (nothing left)"},
				"tokensLeft": &graphql.Field{Type: graphql.Int, Description: "budget left unused (0 without a budget)"},
				"candidates": &graphql.Field{Type: graphql.Int, Description: "size of the candidate pool"},
				"selected":   &graphql.Field{Type: graphql.Int},
				"removed":    &graphql.Field{Type: graphql.Int, Description: "candidates removed by dedupThreshold"},
				"beta":       &graphql.Field{Type: graphql.Float, Description: "calibrated redundancy weight (adagres)"},
				"stats":      &graphql.Field{Type: graphql.NewList(stat), Description: "the strategy's calibrated parameters"},
				"offset": &graphql.Field{Type: graphql.Int,
					Description: "results the earlier pages showed: this page continues after them"},
				"exhausted": &graphql.Field{Type: graphql.Boolean,
					Description: "with an offset given (even 0): true when the next page is empty - nothing relevant left (coverage under a budget), " +
						"else the pool is spent; null without offset"},
			},
		}),
	}
}
