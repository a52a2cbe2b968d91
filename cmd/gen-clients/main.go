package main

import "github.com/diverse-select/diverse-select/internal/genfiles"

func main() { genfiles.Main("gen-clients", func(string) (map[string][]byte, error) { return files() }) }
