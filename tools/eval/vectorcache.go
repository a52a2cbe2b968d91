package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/diverse-select/diverse-select/cmd/embedder/embed"
)

// vectorCache holds the neural encoder's vectors of the evaluation's texts,
// outside the repository, keyed by the model (the file's name) and the
// SHA-256 of the text (each record's key). A text the cache lacks is
// embedded by the local embedder's neural worker and appended, so a fresh
// machine computes every vector once and later runs only read them.
//
// The file is a sequence of records: 32 bytes of SHA-256, then dims
// little-endian float32 values. Appends are whole records; a torn last
// record (a run stopped mid-write) is ignored on load and overwritten.
type vectorCache struct {
	path   string
	python string
	dims   int

	mu    sync.Mutex
	vecs  map[[32]byte][]float32
	valid int64 // bytes of whole records in the file
	n     *embed.Neural
}

// neuralDims is the width of all-MiniLM-L6-v2's vectors.
const neuralDims = 384

// defaultVectorCache is where the vectors live unless -vector-cache says:
// the user's cache folder.
func defaultVectorCache() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "diverse-select", "vectors")
	}
	return filepath.Join(os.TempDir(), "diverse-select-vectors")
}

func openVectorCache(dir, python string) (*vectorCache, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	c := &vectorCache{
		path:   filepath.Join(dir, strings.ToLower(embed.NeuralModel)+".f32"),
		python: python,
		dims:   neuralDims,
		vecs:   map[[32]byte][]float32{},
	}
	if err := c.load(); err != nil {
		return nil, err
	}
	return c, nil
}

// load reads the records of the file, a torn last one excepted; records
// another run appended since the last load are read too.
func (c *vectorCache) load() error {
	f, err := os.Open(c.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	rec := make([]byte, 32+4*c.dims)
	r := bufio.NewReaderSize(f, 1<<20)
	c.valid = 0
	for {
		if _, err := io.ReadFull(r, rec); err != nil {
			break // EOF, or a torn last record
		}
		var k [32]byte
		copy(k[:], rec)
		if _, ok := c.vecs[k]; !ok {
			v := make([]float32, c.dims)
			for j := range v {
				v[j] = math.Float32frombits(binary.LittleEndian.Uint32(rec[32+4*j:]))
			}
			c.vecs[k] = v
		}
		c.valid += int64(len(rec))
	}
	return nil
}

// vector returns the cached vector of text, or an error naming it.
func (c *vectorCache) vector(text string) ([]float32, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.vecs[sha256.Sum256([]byte(text))]; ok {
		return v, nil
	}
	return nil, fmt.Errorf("%s has no vector for the text %q", c.path, clipText(text, 60))
}

// ensure embeds and appends the texts the cache lacks.
func (c *vectorCache) ensure(texts []string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var todo []string
	seen := map[[32]byte]bool{}
	for _, t := range texts {
		k := sha256.Sum256([]byte(t))
		if _, ok := c.vecs[k]; !ok && !seen[k] {
			seen[k] = true
			todo = append(todo, t)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	// Two evaluations on one machine share the file: one appends at a time,
	// and each first reads what the other added.
	unlock, err := lockFile(c.path + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	if err := c.load(); err != nil {
		return err
	}
	todo = slices.DeleteFunc(todo, func(t string) bool { _, ok := c.vecs[sha256.Sum256([]byte(t))]; return ok })
	if len(todo) == 0 {
		return nil
	}
	if c.n == nil {
		fmt.Fprintf(os.Stderr, "eval: starting the neural embedder (%s) for %d texts not yet in %s\n", embed.NeuralModel, len(todo), c.path)
		n, err := embed.StartNeural(c.python, os.Stderr)
		if err != nil {
			return err
		}
		c.n = n
	}
	f, err := os.OpenFile(c.path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Seek(c.valid, io.SeekStart); err != nil {
		return err
	}
	// Chunks keep a stopped run's work: each is appended as soon as it is done.
	const chunk = 1024
	start := time.Now()
	for i := 0; i < len(todo); i += chunk {
		part := todo[i:min(i+chunk, len(todo))]
		vs, err := c.n.Encode(context.Background(), part)
		if err != nil {
			return err
		}
		buf := make([]byte, 0, len(part)*(32+4*c.dims))
		for j, t := range part {
			k := sha256.Sum256([]byte(t))
			buf = append(buf, k[:]...)
			for _, x := range vs[j] {
				buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
			}
			c.vecs[k] = vs[j]
		}
		if _, err := f.Write(buf); err != nil {
			return err
		}
		c.valid += int64(len(buf))
		done := i + len(part)
		fmt.Fprintf(os.Stderr, "eval: %s: %d/%d texts embedded (%.1f texts/s)\n", embed.NeuralModel, done, len(todo),
			float64(done)/time.Since(start).Seconds())
	}
	if err := f.Truncate(c.valid); err != nil {
		return err
	}
	return f.Sync()
}

// lockFile takes an exclusive advisory lock on path (made if missing) and
// returns its release.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

// close stops the worker, if one was started.
func (c *vectorCache) close() {
	if c.n != nil {
		_ = c.n.Close()
	}
}
