package redact

import (
	"bufio"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// naiveScan is what triggerTable.scan computes, one trigger at a time: at
// every byte outside a marker, every trigger that starts there, in the
// order of their ids.
func naiveScan(t *triggerTable, s string) (triggerSet, []occurrence) {
	var found triggerSet
	var occ []occurrence
	var byFirst [256][]int // ids by first byte, in order
	for id, w := range t.words {
		byFirst[w[0]] = append(byFirst[w[0]], id)
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '[' {
			if j := skipMarker(s, i); j != i {
				i = j
				continue
			}
		}
		for _, id := range byFirst[lowerASCII(s[i])] {
			w := t.words[id]
			if len(w) > 1 && i+1 == len(s) || !hasPrefixFold(s[i:], w) {
				continue
			}
			found[id>>6] |= 1 << (id & 63)
			if len(w) > 1 && t.positional[id] {
				occ = append(occ, occurrence{id: uint16(id), pos: int32(i)})
			}
		}
	}
	return found, occ
}

// TestScanIndex: the indexes of the trigger table (by the first two bytes in
// either case, then by the third) find exactly what comparing every trigger
// at every byte finds, on the holdout's inputs and on texts made of the
// triggers themselves in mixed case, cut anywhere.
func TestScanIndex(t *testing.T) {
	tt := loadTriggers()
	var texts []string
	files, _ := filepath.Glob("testdata/holdout/*.jsonl")
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var c struct{ Input string }
			if json.Unmarshal(sc.Bytes(), &c) == nil {
				texts = append(texts, c.Input)
			}
		}
		fh.Close()
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var b strings.Builder
		for range 1 + r.IntN(12) {
			w := []byte(tt.words[r.IntN(len(tt.words))])
			for k := range w {
				if r.IntN(2) == 0 && w[k] >= 'a' && w[k] <= 'z' {
					w[k] -= 'a' - 'A'
				}
			}
			switch r.IntN(4) {
			case 0:
				w = w[:r.IntN(len(w)+1)]
			case 1:
				b.WriteString(KindSecret.Marker())
			}
			b.Write(w)
			b.WriteByte(" [:=x"[r.IntN(5)])
		}
		texts = append(texts, b.String())
	}
	if len(texts) < 2000+1000 {
		t.Fatalf("%d texts: the holdout was not read", len(texts))
	}
	for _, s := range texts {
		found, occ := tt.scan(s, nil)
		wantFound, wantOcc := naiveScan(tt, s)
		if found != wantFound || !slices.Equal(occ, wantOcc) {
			t.Fatalf("scan(%.200q) differs from one trigger at a time:\nfound %v\nwant  %v\nocc %v\nwant %v", s, found, wantFound, occ, wantOcc)
		}
	}
}
