package host

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// A pinned plugin runs from the bytes that were verified. go-plugin's own
// check hashes the file and then runs it by path, so the file could be
// swapped in between; instead the host reads the file once, checks the
// read bytes against the pin, writes them to a folder only this process's
// user can reach, and runs that copy.

// maxPluginBytes bounds the file read into memory to be verified.
const maxPluginBytes = 1 << 30

// verifiedCopy returns the path of a private copy of the plugin's file whose
// bytes hash to its pin (the file itself without a pin).
func (p *Plugin) verifiedCopy() (string, error) {
	if p.pin == nil {
		return p.path, nil
	}
	f, err := os.Open(p.path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPluginBytes+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxPluginBytes {
		return "", fmt.Errorf("%s is larger than %d bytes", p.path, maxPluginBytes)
	}
	if sum := sha256.Sum256(b); !bytes.Equal(sum[:], p.pin) {
		return "", fmt.Errorf("the SHA-256 of %s does not match its pin in DIVERSE_SELECT_PLUGIN_SHA256", p.path)
	}
	dir, err := os.MkdirTemp("", "diverse-select-plugin-")
	if err != nil {
		return "", err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	path := filepath.Join(dir, filepath.Base(p.path))
	if err := os.WriteFile(path, b, 0o500); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return path, nil
}

// environment is the plugin process's whole environment: the variables
// DIVERSE_SELECT_PLUGIN_ENV names, with their values in Weaviate's
// environment - never the rest of it (API keys, cloud credentials).
func (h *Host) environment() []string {
	var env []string
	for _, name := range h.env {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	return env
}
