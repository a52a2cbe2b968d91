module github.com/diverse-select/diverse-select

go 1.26

require (
	github.com/davecgh/go-spew v1.1.2-0.20180830191138-d8f796af33cc // indirect
	github.com/dlclark/regexp2 v1.10.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/kljensen/snowball v0.10.0 // indirect
	github.com/pkoukk/tiktoken-go-loader v0.0.2 // indirect
	github.com/pmezard/go-difflib v1.0.1-0.20181226105442-5d4384ee4fb2 // indirect
	github.com/stretchr/testify v1.11.1 // indirect
	github.com/weaviate/tiktoken-go v0.0.3 // indirect
	github.com/weaviate/weaviate v1.38.11 // indirect
	github.com/weaviate/weaviate-go-client/v5 v5.5.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
