package console

import (
	"context"
	"errors"
	"fmt"
	"html"
	"html/template"
	"slices"
	"strings"
	"time"

	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// chartSeries is the number of classes the chart draws; the rest are summed
// as "other".
const chartSeries = 6

// palette colours the series (colour-blind-safe, Okabe–Ito).
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#999999"}

// window reads the error log from ChartWindow before the start of the
// current ChartBucket — a bucket more than the chart draws, so that it holds
// the last ChartWindow whole — to the end of that bucket, at most LogMaxRead
// entries: the chart's, today's budget's and the error log page's one read.
// partial says the cap cut it short.
func (s *Server) window(ctx context.Context, now time.Time) (entries []store.LogEntry, start time.Time, partial bool, err error) {
	end := now.Truncate(ChartBucket).Add(ChartBucket)
	start = end.Add(-ChartWindow - ChartBucket)
	err = s.b.Log.Between(ctx, start, end, func(e store.LogEntry) error {
		if len(entries) == LogMaxRead {
			partial = true
			return store.ErrStop
		}
		entries = append(entries, e)
		return nil
	})
	if errors.Is(err, store.ErrStop) {
		err = nil
	}
	return entries, start, partial, err
}

// failureChart draws the failures among entries per class per ChartBucket
// over the ChartWindow that ends with the current bucket, as stacked bars
// in SVG.
func failureChart(entries []store.LogEntry, now time.Time) template.HTML {
	start := now.Truncate(ChartBucket).Add(ChartBucket - ChartWindow)
	n := int(ChartWindow / ChartBucket)
	counts := map[work.Class][]int{}
	for _, e := range entries {
		i := int(e.OccurredAt.Sub(start) / ChartBucket)
		if e.Kind != store.LogFailure || i < 0 || i >= n {
			continue
		}
		if counts[e.Class] == nil {
			counts[e.Class] = make([]int, n)
		}
		counts[e.Class][i]++
	}
	return drawBars(start, ChartBucket, n, counts)
}

// drawBars draws counts (class → one count per bucket) as stacked bars,
// the largest classes first, with axes and a legend.
func drawBars(start time.Time, bucket time.Duration, n int, counts map[work.Class][]int) template.HTML {
	type series struct {
		name  string
		vals  []int
		total int
	}
	var ss []series
	for c, v := range counts {
		t := 0
		for _, x := range v {
			t += x
		}
		ss = append(ss, series{string(c), v, t})
	}
	slices.SortFunc(ss, func(a, b series) int {
		if a.total != b.total {
			return b.total - a.total
		}
		return strings.Compare(a.name, b.name)
	})
	if len(ss) > chartSeries {
		other := series{name: "other", vals: make([]int, n)}
		for _, x := range ss[chartSeries:] {
			for i, v := range x.vals {
				other.vals[i] += v
			}
			other.total += x.total
		}
		ss = append(ss[:chartSeries], other)
	}
	peak := 0
	for i := range n {
		sum := 0
		for _, x := range ss {
			sum += x.vals[i]
		}
		peak = max(peak, sum)
	}
	const (
		w, h             = 720, 220
		left, right, top = 40, 10, 10
		bottom           = 40
	)
	pw, ph := float64(w-left-right), float64(h-top-bottom)
	bw := pw / float64(n)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %d %d" role="img" aria-label="failures per class per hour, last 24 hours" xmlns="http://www.w3.org/2000/svg">`, w, h+20*((len(ss)+2)/3))
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#888"/>`, left, h-bottom, w-right, h-bottom)
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11" text-anchor="end">%d</text>`, left-4, top+10, peak)
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11" text-anchor="end">0</text>`, left-4, h-bottom)
	if peak == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="13" text-anchor="middle" fill="#666">no failures in the window</text>`, w/2, h/2)
	}
	for i := range n {
		y := float64(h - bottom)
		for si, x := range ss {
			v := x.vals[i]
			if v == 0 {
				continue
			}
			bh := float64(v) / float64(peak) * ph
			y -= bh
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %d</title></rect>`,
				float64(left)+float64(i)*bw+1, y, bw-2, bh, palette[si%len(palette)],
				html.EscapeString(x.name), start.Add(time.Duration(i)*bucket).UTC().Format("15:04"), v)
		}
		if i%4 == 0 {
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="10" text-anchor="middle">%s</text>`, float64(left)+float64(i)*bw+bw/2, h-bottom+14,
				start.Add(time.Duration(i)*bucket).UTC().Format("15:04"))
		}
	}
	for si, x := range ss {
		lx, ly := left+(si%3)*230, h-bottom+30+(si/3)*20
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d" font-size="11">%s (%d)</text>`,
			lx, ly, palette[si%len(palette)], lx+14, ly+9, html.EscapeString(x.name), x.total)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // #nosec: built above; every text is escaped
}
