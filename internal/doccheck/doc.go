// Package doccheck holds the tests that keep the README and docs/ honest:
// relative links resolve to a file and a heading, the Weaviate version named
// anywhere is the one go.mod pins, the README keeps its shape (at most 400
// lines, its sections in the newcomer's order), no figure is typed by hand
// outside a block a project command writes or a test checks, the client
// snippets are the code the integration tests run, and the module version,
// the CHANGELOG and the LICENSE agree, and every Go file, document,
// declaration and method a comment or a document names exists
// (TestDocReferences). It has no code of its own.
package doccheck
