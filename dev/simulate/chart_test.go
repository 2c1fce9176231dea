package simulate

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// inked counts the pixels of img that are not white.
func inked(img image.Image) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r != 0xffff || g != 0xffff || bl != 0xffff {
				n++
			}
		}
	}
	return n
}

func TestCharts(t *testing.T) {
	t.Parallel()
	bar := barChart{title: "CALLS", xLabel: "calls", categories: []string{"standard", "naive-redrive"},
		series: []barSeries{{"needed", []float64{3, 3}, nil}, {"wasted", []float64{0.1, 0.9}, &palette[1]}}}
	line := lineChart{title: "CDF", logX: true, xMin: 1, xMax: 3600, yMax: 100,
		xTicks: []tick{{1, "1s"}, {60, "1m"}, {3600, "1h"}}, yTicks: []tick{{0, "0%"}, {100, "100%"}},
		series: []lineSeries{{"standard", [][2]float64{{1, 0}, {60, 50}, {3600, 100}}}}}
	for name, render := range map[string]func(w *bytes.Buffer) error{
		"bar":  func(w *bytes.Buffer) error { return bar.render(w) },
		"line": func(w *bytes.Buffer) error { return line.render(w) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			if err := render(&buf); err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(&buf)
			if err != nil {
				t.Fatalf("not a PNG: %v", err)
			}
			if b := img.Bounds(); b.Dx() < 600 || b.Dy() < 200 {
				t.Fatalf("image %v too small", b)
			}
			if n := inked(img); n < 2000 {
				t.Fatalf("only %d inked pixels: axes, bars and labels are missing", n)
			}
		})
	}
}

func TestGlyphs(t *testing.T) {
	t.Parallel()
	for r, g := range glyphs {
		for _, row := range g {
			if len(row) != 5 {
				t.Errorf("glyph %q has a row of %d columns", r, len(row))
			}
		}
	}
	if glyphFor('a') != glyphs['A'] || glyphFor('€') != glyphs['?'] {
		t.Error("lower case should draw upper case, unknown runes '?'")
	}
}

func TestWritePlots(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.sc.Items = 300
	if err := b.sc.Validate(); err != nil {
		t.Fatal(err)
	}
	results := []*Result{b.run(t, "standard", Options{}), b.run(t, "naive-redrive", Options{})}
	dir := t.TempDir()
	plots, err := WritePlots(dir, results, DefaultPrices)
	if err != nil {
		t.Fatal(err)
	}
	if len(plots) != 4 {
		t.Fatalf("%d plots, want 4", len(plots))
	}
	for _, p := range plots {
		f, err := os.Open(filepath.Join(dir, p.File))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil || inked(img) < 2000 {
			t.Fatalf("%s: %v, %d inked pixels", p.File, err, inked(img))
		}
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, Report{Scenario: b.sc, Results: results, Prices: DefaultPrices, Plots: plots, ImageDir: "img", Command: "make simulate"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| standard |", "| naive-redrive |", "## Targets", "img/simulation-calls.png", "$1.250 per million WRU"} {
		if !bytes.Contains(md.Bytes(), []byte(want)) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func TestFmtDur(t *testing.T) {
	t.Parallel()
	tests := map[time.Duration]string{1500 * time.Millisecond: "1.5s", 329 * time.Second: "5m29s", 36*time.Hour + 7*time.Minute: "36h07m"}
	for d, want := range tests {
		if got := fmtDur(d); got != want {
			t.Errorf("fmtDur(%v) = %q, want %q", d, got, want)
		}
	}
}
