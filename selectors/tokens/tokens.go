// Package tokens counts the tokens a chunk costs in a language model's
// context window.
//
// Counters by name: cl100k_base (default) and o200k_base count exactly with
// OpenAI's byte-pair encodings, whose vocabularies are embedded in the
// binary (github.com/pkoukk/tiktoken-go-loader): nothing is downloaded at
// run time. words (whitespace-separated words x 4/3) and chars (UTF-8
// characters / 4) are fast estimates, rounded up. Every count is >= 1: an
// empty text still costs a slot in the context.
package tokens

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
	"github.com/weaviate/tiktoken-go"
)

// Counter counts the tokens of a text. Implementations are safe for concurrent use.
type Counter interface {
	Count(text string) int
}

// Counter names.
const (
	CL100K  = "cl100k_base"
	O200K   = "o200k_base"
	Words   = "words"
	Chars   = "chars"
	Default = CL100K
)

// Names lists the allowed counter names, the default first.
func Names() []string { return []string{CL100K, O200K, Words, Chars} }

// UnknownError names the counter asked for and the allowed ones.
type UnknownError struct{ Name string }

func (e *UnknownError) Error() string {
	return fmt.Sprintf("unknown tokenizer %q; allowed: %s", e.Name, strings.Join(Names(), ", "))
}

// New returns the counter of a name ("" means Default). The first call for
// a BPE encoding parses its embedded vocabulary (a fraction of a second);
// later calls share it.
func New(name string) (Counter, error) {
	switch name {
	case "", CL100K:
		return cl100k.get()
	case O200K:
		return o200k.get()
	case Words:
		return wordCounter{}, nil
	case Chars:
		return charCounter{}, nil
	}
	return nil, &UnknownError{name}
}

func init() {
	// The tiktoken loader is a package-level variable of tiktoken-go, read
	// without a lock when an encoding loads. Setting it in init, before any
	// goroutine runs, is race-free; it also keeps any other user of
	// tiktoken-go in the same binary offline, which is what we want.
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
}

// lazyBPE loads one encoding once, on first use.
type lazyBPE struct {
	name string
	once sync.Once
	c    *bpeCounter
	err  error
}

var (
	cl100k = &lazyBPE{name: CL100K}
	o200k  = &lazyBPE{name: O200K}
)

func (l *lazyBPE) get() (Counter, error) {
	l.once.Do(func() {
		enc, err := tiktoken.GetEncoding(l.name)
		if err != nil {
			l.err = fmt.Errorf("tokenizer %s: %w", l.name, err)
			return
		}
		l.c = &bpeCounter{enc: enc}
	})
	if l.err != nil {
		return nil, l.err
	}
	return l.c, nil
}

// bpeCounter counts with a tiktoken encoder. The encoder only reads its
// maps after construction and its regexp2 patterns are documented as safe
// for concurrent use, so no lock is needed (TestBPEConcurrent runs it
// under the race detector).
type bpeCounter struct{ enc *tiktoken.Tiktoken }

// Count uses EncodeOrdinary: special-token strings such as <|endoftext|>
// inside a chunk are counted as the ordinary text they are. The text is
// encoded in segments (see segments) so that cost stays linear.
func (b *bpeCounter) Count(text string) int {
	n := 0
	for seg := range segments(text) {
		n += len(b.enc.EncodeOrdinary(seg))
	}
	return atLeast1(n)
}

type wordCounter struct{}

// Count is ceil(words * 4 / 3) for whitespace-separated words.
func (wordCounter) Count(text string) int {
	n, inWord := 0, false
	for _, r := range text {
		space := isSpace(r)
		if !space && !inWord {
			n++
		}
		inWord = !space
	}
	return atLeast1((4*n + 2) / 3)
}

type charCounter struct{}

// Count is ceil(UTF-8 characters / 4).
func (charCounter) Count(text string) int {
	return atLeast1((utf8.RuneCountInString(text) + 3) / 4)
}

func atLeast1(n int) int {
	if n < 1 {
		return 1
	}
	return n
}
