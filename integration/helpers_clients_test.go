package integration

import (
	"testing"

	dsclient "github.com/diverse-select/diverse-select/clients/go"
)

// rerankProperty is the rerank property carrying settings, as the Go client
// helper writes it (clients/go): the form the tests of the gRPC route send
// per-query settings in since the rerank query is plain text.
func rerankProperty(t testing.TB, property string, o dsclient.Options) string {
	t.Helper()
	p, err := dsclient.RerankProperty(property, o)
	if err != nil {
		t.Fatalf("rerank settings %+v: %v", o, err)
	}
	return p
}
