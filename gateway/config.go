package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"gopkg.in/yaml.v3"
)

// Config is the gateway's file: per collection, the defaults a stock
// Weaviate keeps no place for - the keys and validation of
// moduleConfig["reranker-diverse-select"] (docs/configuration.md). YAML or
// JSON:
//
//	collections:
//	  Article: {strategy: adagres, tokenBudget: 1500, maxResults: 8}
//
// A collection listed here selects on every search that asks for rerank;
// any other selects when the rerank property carries settings.
type Config struct {
	Collections map[string]map[string]any `yaml:"collections" json:"collections"`
}

// loadConfig reads and validates a config file whole: the first bad key
// refuses the file, named with its collection (validate is the engine's
// check of one collection's defaults).
func loadConfig(path string, validate func(map[string]any) error) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) > maxConfigBytes {
		return nil, fmt.Errorf("%s is %d bytes; allowed: at most %d", path, len(b), maxConfigBytes)
	}
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w (the file holds collections: with a map of settings per collection)", path, err)
	}
	names := make([]string, 0, len(c.Collections))
	for name := range c.Collections {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		raw, err := jsonValues(c.Collections[name])
		if err != nil {
			return nil, fmt.Errorf("%s: collections.%s: %w", path, name, err)
		}
		if err := validate(raw); err != nil {
			return nil, fmt.Errorf("%s: collections.%s: %w", path, name, err)
		}
		c.Collections[name] = raw
	}
	return &c, nil
}

// maxConfigBytes bounds the file read at each reload.
const maxConfigBytes = 1 << 20

// jsonValues is a YAML map as JSON decodes it (numbers float64, maps
// map[string]any): the form the class config arrives in from Weaviate.
func jsonValues(m map[string]any) (map[string]any, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	return out, json.Unmarshal(b, &out)
}

// defaults is a collection's defaults, nil when the file names none.
func (c *Config) defaults(collection string) map[string]any {
	if c == nil {
		return nil
	}
	return c.Collections[collection]
}

// watch reloads the file when it changes (its size or modification time),
// every interval until stop closes: a good file replaces the running
// config, a bad one is reported through onError and the running config
// stays.
func (g *Gateway) watch(path string, interval time.Duration, stop <-chan struct{}) {
	var last os.FileInfo
	if fi, err := os.Stat(path); err == nil {
		last = fi
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		fi, err := os.Stat(path)
		if err != nil || (last != nil && fi.Size() == last.Size() && fi.ModTime().Equal(last.ModTime())) {
			continue
		}
		last = fi
		g.Reload()
	}
}

// Reload reads the config file again (also on SIGHUP): a good file
// replaces the running config, a bad one is refused whole, logged with the
// key named, and the running config stays.
func (g *Gateway) Reload() error {
	if g.opts.ConfigPath == "" {
		return nil
	}
	c, err := loadConfig(g.opts.ConfigPath, g.engine.ValidateConfig)
	g.statusMu.Lock()
	defer g.statusMu.Unlock()
	if err != nil {
		g.configErr = err.Error()
		g.logger.WithError(err).Error("gateway: config file refused; the running config stays")
		return err
	}
	g.config.Store(c)
	g.configErr = ""
	g.configLoads++
	g.logger.WithField("collections", len(c.Collections)).Info("gateway: config loaded")
	return nil
}
