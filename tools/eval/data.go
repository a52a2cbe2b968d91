package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
)

// The loaders read the labelled data in place from the shared data folder
// (see each dataset's SOURCE.md there); nothing is copied into the repo.

// hotpotQuestion is one HotpotQA distractor-setting question.
type hotpotQuestion struct {
	ID       string
	Question string
	Paras    []hotpotPara
	// Answers are the gold answer spans (answers_objects), as written.
	Answers []string
}

type hotpotPara struct {
	Title, Text string
	Gold        bool
}

// loadHotpot reads hotpotqa-dev300/dev_subsampled.jsonl in file order.
func loadHotpot(dataDir string) ([]hotpotQuestion, error) {
	return loadMultiHop(filepath.Join(dataDir, "hotpotqa-dev300", "dev_subsampled.jsonl"))
}

// multiHopSet is a multi-hop dataset in HotpotQA's format: its name in the
// tables and its file under the shared data folder.
type multiHopSet struct{ Name, File string }

// multiHopSets are the multi-hop datasets of the library evaluation, in
// table order. MuSiQue and 2WikiMultihopQA are training questions (their
// SOURCE.md); every supporting paragraph of a question is needed.
var multiHopSets = []multiHopSet{
	{"HotpotQA", filepath.Join("hotpotqa-dev300", "dev_subsampled.jsonl")},
	{"MuSiQue", filepath.Join("musique-train100", "train.jsonl")},
	{"2Wiki", filepath.Join("2wikimultihopqa-train500", "train.jsonl")},
}

// loadMultiHop reads a file of HotpotQA's format (IRCoT's processed form:
// question_id, question_text, answers_objects, contexts) in file order.
func loadMultiHop(path string) ([]hotpotQuestion, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []hotpotQuestion
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20) // lines reach ~30 KB
	for sc.Scan() {
		var raw struct {
			ID       string `json:"question_id"`
			Question string `json:"question_text"`
			Contexts []struct {
				Title      string `json:"title"`
				Text       string `json:"paragraph_text"`
				Supporting bool   `json:"is_supporting"`
			} `json:"contexts"`
			Answers []struct {
				Spans []string `json:"spans"`
			} `json:"answers_objects"`
		}
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, len(out)+1, err)
		}
		q := hotpotQuestion{ID: raw.ID, Question: raw.Question}
		for _, a := range raw.Answers {
			q.Answers = append(q.Answers, a.Spans...)
		}
		for _, c := range raw.Contexts {
			q.Paras = append(q.Paras, hotpotPara{Title: c.Title, Text: c.Text, Gold: c.Supporting})
		}
		out = append(out, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no questions", path)
	}
	return out, nil
}

// hotpotText is a paragraph as both the library and the server see it:
// the title, then the text (the module joins text properties with "\n").
func hotpotText(p hotpotPara) string { return p.Title + "\n" + p.Text }

// distinctParas is every question's paragraphs, each title and text once, in
// file order, without the gold mark (which belongs to a question): the
// corpus eval-server imports and the large pools are drawn from.
func distinctParas(qs []hotpotQuestion) []hotpotPara {
	var out []hotpotPara
	seen := map[hotpotPara]bool{}
	for _, q := range qs {
		for _, p := range q.Paras {
			p.Gold = false
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// perspClaim is one Perspectrum claim with its candidate perspectives.
type perspClaim struct {
	ID    int
	Split string
	Claim string
	// Pids are the claim's own perspectives (distinct, in cluster order),
	// Cluster[i] the cluster indices Pids[i] belongs to.
	Pids     []int
	Cluster  [][]int
	Clusters int
	// Distractors are perspectives of other claims, drawn with a fixed seed.
	Distractors []int
}

// perspDistractors is the number of other claims' perspectives added to
// every claim's pool; perspSeed fixes which ones.
const (
	perspDistractors = 15
	perspSeed        = 20190601 // NAACL 2019, the Perspectrum paper
)

type perspData struct {
	Claims []perspClaim
	Text   map[int]string // pid -> perspective sentence
}

// loadPerspectrum reads the train and dev claims, in file order.
func loadPerspectrum(dataDir string) (*perspData, error) {
	dir := filepath.Join(dataDir, "perspectrum")
	var claims []struct {
		CID          int    `json:"cId"`
		Text         string `json:"text"`
		Perspectives []struct {
			Pids []int `json:"pids"`
		} `json:"perspectives"`
	}
	var pool []struct {
		PID  int    `json:"pId"`
		Text string `json:"text"`
	}
	var split map[string]string
	for name, dst := range map[string]any{
		"perspectrum_with_answers_v1.0.json": &claims,
		"perspective_pool_v1.0.json":         &pool,
		"dataset_split_v1.0.json":            &split,
	} {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	d := &perspData{Text: make(map[int]string, len(pool))}
	for _, p := range pool {
		d.Text[p.PID] = p.Text
	}
	owner := map[int]int{} // pid -> index of a claim that has it
	for ci, c := range claims {
		s := split[strconv.Itoa(c.CID)]
		if s != "train" && s != "dev" {
			continue
		}
		pc := perspClaim{ID: c.CID, Split: s, Claim: c.Text, Clusters: len(c.Perspectives)}
		at := map[int]int{}
		for k, cl := range c.Perspectives {
			for _, pid := range cl.Pids {
				if _, ok := d.Text[pid]; !ok {
					return nil, fmt.Errorf("claim %d: perspective %d is not in the pool", c.CID, pid)
				}
				i, seen := at[pid]
				if !seen {
					i = len(pc.Pids)
					at[pid] = i
					pc.Pids = append(pc.Pids, pid)
					pc.Cluster = append(pc.Cluster, nil)
				}
				pc.Cluster[i] = append(pc.Cluster[i], k)
				owner[pid] = ci
			}
		}
		if len(pc.Pids) > 0 {
			d.Claims = append(d.Claims, pc)
		}
	}
	// Distractors: perspectives of other claims, 15 per claim, drawn from
	// the sorted list of all claims' perspectives with a per-claim seed.
	all := make([]int, 0, len(owner))
	for pid := range owner {
		all = append(all, pid)
	}
	sort.Ints(all)
	for i := range d.Claims {
		c := &d.Claims[i]
		own := map[int]bool{}
		for _, pid := range c.Pids {
			own[pid] = true
		}
		rng := rand.New(rand.NewPCG(perspSeed, uint64(c.ID)))
		picked := map[int]bool{}
		for len(c.Distractors) < perspDistractors && len(picked)+len(own) < len(all) {
			pid := all[rng.IntN(len(all))]
			if own[pid] || picked[pid] {
				continue
			}
			picked[pid] = true
			c.Distractors = append(c.Distractors, pid)
		}
	}
	if len(d.Claims) == 0 {
		return nil, fmt.Errorf("%s: no train or dev claims", dir)
	}
	return d, nil
}

// pirTask is one PIR task: a corpus and root queries with perspectives.
type pirTask struct {
	Name   string
	Corpus []string
	Roots  []pirRoot
}

// pirRoot is a root (source) query; Gold[p] are the corpus indices relevant
// to its p-th distinct perspective (the union over the queries that share
// the root and the perspective text).
type pirRoot struct {
	Query        string
	Perspectives []string
	Gold         [][]int
}

// pirTasks are the tasks of the shared copy, in a fixed order.
var pirTasks = []string{"perspectrum", "agnews", "allsides", "exfever"}

func loadPIR(dataDir string) ([]pirTask, error) {
	path := filepath.Join(dataDir, "pir-demo", "demo_pir_dataset.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var all map[string]struct {
		Corpus        []string         `json:"corpus"`
		SourceQueries []string         `json:"source_queries"`
		Perspectives  []string         `json:"perspectives"`
		KeyRef        map[string][]int `json:"key_ref"`
	}
	if err := json.Unmarshal(raw, &all); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []pirTask
	for _, name := range pirTasks {
		t, ok := all[name]
		if !ok {
			return nil, fmt.Errorf("%s: no task %q", path, name)
		}
		if len(t.SourceQueries) != len(t.Perspectives) {
			return nil, fmt.Errorf("%s: task %s has %d source queries and %d perspectives", path, name, len(t.SourceQueries), len(t.Perspectives))
		}
		task := pirTask{Name: name, Corpus: t.Corpus}
		rootAt := map[string]int{}
		for qi, src := range t.SourceQueries {
			ri, ok := rootAt[src]
			if !ok {
				ri = len(task.Roots)
				rootAt[src] = ri
				task.Roots = append(task.Roots, pirRoot{Query: src})
			}
			r := &task.Roots[ri]
			pi := -1
			for k, p := range r.Perspectives {
				if p == t.Perspectives[qi] {
					pi = k
				}
			}
			if pi < 0 {
				pi = len(r.Perspectives)
				r.Perspectives = append(r.Perspectives, t.Perspectives[qi])
				r.Gold = append(r.Gold, nil)
			}
			for _, d := range t.KeyRef[strconv.Itoa(qi)] {
				if d < 0 || d >= len(t.Corpus) {
					return nil, fmt.Errorf("%s: task %s query %d: gold %d out of range", path, name, qi, d)
				}
				r.Gold[pi] = append(r.Gold[pi], d)
			}
		}
		out = append(out, task)
	}
	return out, nil
}
