package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Weaviate's next minor line ships a "wl" folder under the Weaviate License (wl/LICENSE-
// WEAVIATE), not BSD-3-Clause: it grants no rights ("All rights reserved"),
// and its code runs only with a LICENSE_KEY. Our build and image must stay
// BSD-3-Clause throughout, so the pinned source may carry that folder with
// its licence text only: a Weaviate release that puts code there fails the
// build here, naming the files, and the bump needs a decision first (docs/internals.md,
// "Moving the Weaviate pin").
const (
	weaviateLicensedDir  = "wl"
	weaviateLicensedText = "LICENSE-WEAVIATE"
)

// checkLicence returns an error naming every file under the Weaviate-licensed
// folder of the source tree dir other than its licence text.
func checkLicence(dir string) error {
	root := filepath.Join(dir, weaviateLicensedDir)
	if _, err := os.Stat(root); os.IsNotExist(err) {
		return nil
	}
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if rel != filepath.Join(weaviateLicensedDir, weaviateLicensedText) {
			found = append(found, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(found) > 0 {
		return fmt.Errorf("the Weaviate source has files under %s/, which are under the Weaviate License, not BSD-3-Clause: %s; "+
			"a build of diverse-select must not include them (see docs/internals.md, section Moving the Weaviate pin)",
			weaviateLicensedDir, strings.Join(found, ", "))
	}
	return nil
}
