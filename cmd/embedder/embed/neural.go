package embed

import (
	"bufio"
	"context"
	_ "embed" // the worker script
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os/exec"
	"sync"
	"time"
)

// ModeNeural names the neural embedder (all-MiniLM-L6-v2).
const ModeNeural = "neural"

// NeuralModel is the model the neural mode runs; it names the vectors'
// geometry (caches key on it).
const NeuralModel = "all-MiniLM-L6-v2"

//go:embed neural_worker.py
var neuralWorker string

// Neural embeds with all-MiniLM-L6-v2, run by a Python worker process
// (neural_worker.py, embedded in this package) from the interpreter of the
// project's virtual environment, which `make venv` fills with the model's
// package and onnxruntime. Concurrent calls are gathered into one batch of
// the worker; a worker that dies is started again on the next call.
//
// Neural is safe for concurrent use. Close stops the worker.
type Neural struct {
	python string
	stderr io.Writer
	dims   int
	calls  chan *neuralCall
	done   chan struct{}
	once   sync.Once
}

// neuralCall is one Encode waiting for its vectors.
type neuralCall struct {
	texts []string
	out   [][]float32
	err   error
	ready chan struct{}
}

// neuralGather is the most texts one worker request gathers from
// concurrent calls; a single call's texts go in one request whatever their number.
const neuralGather = 256

// neuralStart bounds the worker's start-up (imports and the model's load).
const neuralStart = 3 * time.Minute

// StartNeural starts the worker with the interpreter python and waits until
// the model is loaded. The worker's own messages go to stderr (nil: dropped).
func StartNeural(python string, stderr io.Writer) (*Neural, error) {
	if stderr == nil {
		stderr = io.Discard
	}
	n := &Neural{python: python, stderr: stderr, calls: make(chan *neuralCall), done: make(chan struct{})}
	w, err := n.start()
	if err != nil {
		return nil, err
	}
	n.dims = w.dims
	go n.loop(w)
	return n, nil
}

// Encode returns the unit vectors of texts, in order, or the worker's
// error. A call whose ctx ends returns ctx's error; texts already sent to
// the worker are embedded and dropped.
func (n *Neural) Encode(ctx context.Context, texts []string) ([][]float32, error) {
	c := &neuralCall{texts: texts, ready: make(chan struct{})}
	select {
	case n.calls <- c:
	case <-n.done:
		return nil, errors.New("neural embedder closed")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case <-c.ready:
		return c.out, c.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Dims is 384.
func (n *Neural) Dims() int { return n.dims }

// Mode is ModeNeural.
func (n *Neural) Mode() string { return ModeNeural }

// Close stops the worker; later calls fail.
func (n *Neural) Close() error {
	n.once.Do(func() { close(n.done) })
	return nil
}

// errWorkerGone marks a failure of the worker process itself (as opposed
// to an error it reports for one request): the next call starts a new one.
var errWorkerGone = errors.New("neural embedder: the worker exited")

// worker is one running Python process.
type worker struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	dims int
}

func (n *Neural) start() (*worker, error) {
	cmd := exec.Command(n.python, "-c", neuralWorker)
	cmd.Stderr = n.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("neural embedder: start %s: %w (run `make venv` for the project's Python)", n.python, err)
	}
	w := &worker{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	type header struct {
		Model string `json:"model"`
		Dims  int    `json:"dims"`
	}
	got := make(chan error, 1)
	var h header
	go func() {
		body, err := w.reply()
		if err == nil {
			err = json.Unmarshal(body, &h)
		}
		got <- err
	}()
	select {
	case err = <-got:
	case <-time.After(neuralStart):
		err = fmt.Errorf("no header within %v", neuralStart)
	}
	if err == nil && (h.Model != NeuralModel || h.Dims <= 0) {
		err = fmt.Errorf("worker runs %q with %d dimensions, want %q", h.Model, h.Dims, NeuralModel)
	}
	if err != nil {
		w.stop()
		return nil, fmt.Errorf("neural embedder: the worker (%s) did not start: %w; its messages are above "+
			"(run `make venv` to install the model and onnxruntime)", n.python, err)
	}
	w.dims = h.Dims
	return w, nil
}

// loop owns the worker: it gathers waiting calls into one request, and
// starts a new worker after a failure.
func (n *Neural) loop(w *worker) {
	defer func() {
		if w != nil {
			w.stop()
		}
	}()
	for {
		var first *neuralCall
		select {
		case first = <-n.calls:
		case <-n.done:
			return
		}
		batch, count := []*neuralCall{first}, len(first.texts)
	gather:
		for count < neuralGather {
			select {
			case c := <-n.calls:
				batch, count = append(batch, c), count+len(c.texts)
			default:
				break gather
			}
		}
		var err error
		if w == nil {
			w, err = n.start()
		}
		var vecs [][]float32
		if err == nil {
			var texts []string
			for _, c := range batch {
				texts = append(texts, c.texts...)
			}
			if vecs, err = w.embed(texts, n.dims); errors.Is(err, errWorkerGone) {
				w.stop()
				w = nil
			}
		}
		for _, c := range batch {
			if err != nil {
				c.err = err
			} else {
				c.out, vecs = vecs[:len(c.texts)], vecs[len(c.texts):]
			}
			close(c.ready)
		}
	}
}

// embed sends one request and reads its vectors.
func (w *worker) embed(texts []string, dims int) ([][]float32, error) {
	body, err := json.Marshal(map[string][]string{"texts": texts})
	if err != nil {
		return nil, err
	}
	if len(body) > math.MaxUint32 {
		return nil, fmt.Errorf("neural embedder: a request of %d bytes is over the worker's limit of 4 GiB", len(body))
	}
	msg := binary.LittleEndian.AppendUint32(make([]byte, 0, 4+len(body)), uint32(len(body)))
	if _, err := w.in.Write(append(msg, body...)); err != nil {
		return nil, fmt.Errorf("%w: %w", errWorkerGone, err)
	}
	raw, err := w.reply()
	if err != nil {
		return nil, err
	}
	if len(raw) != 4*dims*len(texts) {
		return nil, fmt.Errorf("neural embedder: worker sent %d bytes for %d texts of %d dimensions", len(raw), len(texts), dims)
	}
	out := make([][]float32, len(texts))
	for i := range out {
		v := make([]float32, dims)
		for j := range v {
			v[j] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*(i*dims+j):]))
		}
		out[i] = v
	}
	return out, nil
}

// reply reads one framed reply: status, length, payload.
func (w *worker) reply() ([]byte, error) {
	var head [8]byte
	if _, err := io.ReadFull(w.out, head[:]); err != nil {
		return nil, fmt.Errorf("%w: %w", errWorkerGone, err)
	}
	body := make([]byte, binary.LittleEndian.Uint32(head[4:]))
	if _, err := io.ReadFull(w.out, body); err != nil {
		return nil, fmt.Errorf("%w: %w", errWorkerGone, err)
	}
	if binary.LittleEndian.Uint32(head[:4]) != 0 {
		return nil, fmt.Errorf("neural embedder: worker: %s", body)
	}
	return body, nil
}

func (w *worker) stop() {
	_ = w.in.Close()
	done := make(chan struct{})
	go func() { _ = w.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = w.cmd.Process.Kill()
		<-done
	}
}
