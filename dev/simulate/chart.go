package simulate

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"
	"strings"
)

// A tiny chart renderer on the standard library: horizontal (stacked) bar
// charts and line charts with a linear or logarithmic x axis, axes, ticks,
// labels in a 5×7 bitmap font, and a legend.

// palette colours series in order.
var palette = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, // blue
	{0xd6, 0x27, 0x28, 0xff}, // red
	{0x2c, 0xa0, 0x2c, 0xff}, // green
	{0xff, 0x7f, 0x0e, 0xff}, // orange
	{0x94, 0x67, 0xbd, 0xff}, // purple
	{0x8c, 0x56, 0x4b, 0xff}, // brown
	{0x17, 0xbe, 0xcf, 0xff}, // cyan
	{0x7f, 0x7f, 0x7f, 0xff}, // grey
}

var (
	black = color.RGBA{0x20, 0x20, 0x20, 0xff}
	grid  = color.RGBA{0xe4, 0xe4, 0xe4, 0xff}
	white = color.RGBA{0xff, 0xff, 0xff, 0xff}
)

// canvas is an RGBA image with drawing primitives.
type canvas struct{ img *image.RGBA }

func newCanvas(w, h int) *canvas {
	c := &canvas{img: image.NewRGBA(image.Rect(0, 0, w, h))}
	draw.Draw(c.img, c.img.Bounds(), &image.Uniform{C: white}, image.Point{}, draw.Src)
	return c
}

// fill paints the rectangle [x0, x1) × [y0, y1).
func (c *canvas) fill(x0, y0, x1, y1 int, col color.RGBA) {
	draw.Draw(c.img, image.Rect(x0, y0, x1, y1), &image.Uniform{C: col}, image.Point{}, draw.Src)
}

// line draws a line of width w (Bresenham, square pen).
func (c *canvas) line(x0, y0, x1, y1, w int, col color.RGBA) {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := sign(x1-x0), sign(y1-y0)
	e := dx + dy
	for {
		c.fill(x0-w/2, y0-w/2, x0-w/2+w, y0-w/2+w, col)
		if x0 == x1 && y0 == y1 {
			return
		}
		e2 := 2 * e
		if e2 >= dy {
			e += dy
			x0 += sx
		}
		if e2 <= dx {
			e += dx
			y0 += sy
		}
	}
}

// text draws s with its top-left corner at (x, y), each font pixel scale
// pixels wide.
func (c *canvas) text(x, y int, s string, scale int, col color.RGBA) {
	for _, r := range s {
		g := glyphFor(r)
		for row, bits := range g {
			for colIdx, b := range bits {
				if b == '#' {
					c.fill(x+colIdx*scale, y+row*scale, x+(colIdx+1)*scale, y+(row+1)*scale, col)
				}
			}
		}
		x += 6 * scale
	}
}

func textWidth(s string, scale int) int { return len([]rune(s)) * 6 * scale }

func (c *canvas) encode(w io.Writer) error { return png.Encode(w, c.img) }

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func sign(x int) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// barChart is a horizontal bar chart: one bar per category, stacked from
// the segments of each series.
type barChart struct {
	title      string
	xLabel     string
	categories []string
	series     []barSeries
	// format formats a bar's total at its end.
	format func(float64) string
}

type barSeries struct {
	name   string
	values []float64
	// color overrides the palette's colour for the series' position.
	color *color.RGBA
}

func (s barSeries) colour(i int) color.RGBA {
	if s.color != nil {
		return *s.color
	}
	return palette[i%len(palette)]
}

func (b barChart) render(w io.Writer) error {
	const (
		width, barH, gap = 1000, 26, 12
		top, right       = 70, 130
	)
	labelW := 120
	for _, c := range b.categories {
		labelW = max(labelW, textWidth(c, 2)+24)
	}
	height := top + len(b.categories)*(barH+gap) + 90
	c := newCanvas(width, height)
	c.text(20, 18, b.title, 2, black)
	maxV := 0.0
	for k := range b.categories {
		sum := 0.0
		for _, s := range b.series {
			sum += s.values[k]
		}
		maxV = max(maxV, sum)
	}
	if maxV <= 0 {
		maxV = 1
	}
	step := niceStep(maxV / 6)
	maxV = math.Ceil(maxV/step) * step
	x0, x1 := labelW, width-right
	y1 := top + len(b.categories)*(barH+gap)
	scale := func(v float64) int { return x0 + int(math.Round(v/maxV*float64(x1-x0))) }
	for v := 0.0; v <= maxV+step/2; v += step {
		x := scale(v)
		c.fill(x, top-6, x+1, y1, grid)
		label := formatTick(v, step)
		c.text(x-textWidth(label, 1)/2, y1+8, label, 1, black)
	}
	c.text((x0+x1-textWidth(b.xLabel, 1))/2, y1+26, b.xLabel, 1, black)
	for k, cat := range b.categories {
		y := top + k*(barH+gap)
		c.text(labelW-12-textWidth(cat, 2)+2, y+(barH-14)/2, cat, 2, black)
		acc := 0.0
		for si, s := range b.series {
			v := s.values[k]
			if v <= 0 {
				continue
			}
			c.fill(scale(acc), y, max(scale(acc+v), scale(acc)+1), y+barH, s.colour(si))
			acc += v
		}
		if b.format != nil {
			c.text(scale(acc)+6, y+(barH-7)/2, b.format(acc), 1, black)
		}
	}
	c.fill(x0, top-6, x0+2, y1, black)
	if len(b.series) > 1 {
		lx, ly := x0, y1+48
		for si, s := range b.series {
			c.fill(lx, ly, lx+14, ly+14, s.colour(si))
			c.text(lx+20, ly+3, s.name, 1, black)
			lx += 40 + textWidth(s.name, 1)
		}
	}
	return c.encode(w)
}

// lineChart plots series of (x, y) points; with logX the x axis is
// logarithmic and xTicks label it.
type lineChart struct {
	title          string
	xLabel, yLabel string
	series         []lineSeries
	logX           bool
	xMin, xMax     float64
	yMin, yMax     float64
	xTicks         []tick
	yTicks         []tick
}

type lineSeries struct {
	name   string
	points [][2]float64
}

type tick struct {
	at    float64
	label string
}

func (l lineChart) render(w io.Writer) error { return l.canvas(560).encode(w) }

// canvas draws the chart on a canvas height pixels tall.
func (l lineChart) canvas(height int) *canvas {
	const (
		width              = 1000
		left, top, legendW = 80, 60, 250
		bottom             = 70
		plotRight          = width - legendW
	)
	plotDown := height - bottom
	c := newCanvas(width, height)
	c.text(20, 18, l.title, 2, black)
	fx := func(x float64) float64 { return x }
	if l.logX {
		fx = math.Log10
	}
	sx := func(x float64) int {
		x = min(max(x, l.xMin), l.xMax)
		return left + int(math.Round((fx(x)-fx(l.xMin))/(fx(l.xMax)-fx(l.xMin))*float64(plotRight-left)))
	}
	sy := func(y float64) int {
		return plotDown - int(math.Round((y-l.yMin)/(l.yMax-l.yMin)*float64(plotDown-top)))
	}
	for _, t := range l.xTicks {
		x := sx(t.at)
		c.fill(x, top, x+1, plotDown, grid)
		c.text(x-textWidth(t.label, 1)/2, plotDown+8, t.label, 1, black)
	}
	for _, t := range l.yTicks {
		y := sy(t.at)
		c.fill(left, y, plotRight, y+1, grid)
		c.text(left-8-textWidth(t.label, 1), y-3, t.label, 1, black)
	}
	c.text((left+plotRight-textWidth(l.xLabel, 1))/2, plotDown+28, l.xLabel, 1, black)
	c.text(8, top-20, l.yLabel, 1, black)
	// The first series is drawn last, on top of the others.
	for si := len(l.series) - 1; si >= 0; si-- {
		s, col := l.series[si], palette[si%len(palette)]
		for k := 1; k < len(s.points); k++ {
			a, b := s.points[k-1], s.points[k]
			c.line(sx(a[0]), sy(a[1]), sx(b[0]), sy(b[1]), 2, col)
		}
	}
	c.fill(left, top, left+2, plotDown, black)
	c.fill(left, plotDown, plotRight, plotDown+2, black)
	ly := top
	for si, s := range l.series {
		col := palette[si%len(palette)]
		c.fill(plotRight+20, ly+3, plotRight+44, ly+6, col)
		c.text(plotRight+52, ly, s.name, 1, black)
		ly += 20
	}
	return c
}

// stackedCharts draws line charts one above the other in one image, each
// panelHeight pixels tall.
type stackedCharts struct {
	panels      []lineChart
	panelHeight int
}

func (s stackedCharts) render(w io.Writer) error {
	if len(s.panels) == 0 {
		return newCanvas(1, 1).encode(w)
	}
	parts := make([]*canvas, len(s.panels))
	width, height := 0, 0
	for i, p := range s.panels {
		parts[i] = p.canvas(s.panelHeight)
		b := parts[i].img.Bounds()
		width, height = max(width, b.Dx()), height+b.Dy()
	}
	out := newCanvas(width, height)
	y := 0
	for _, p := range parts {
		b := p.img.Bounds()
		draw.Draw(out.img, image.Rect(0, y, b.Dx(), y+b.Dy()), p.img, image.Point{}, draw.Src)
		y += b.Dy()
	}
	return out.encode(w)
}

// niceStep rounds x up to 1, 2 or 5 × 10^n.
func niceStep(x float64) float64 {
	if x <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}

// formatTick prints v with as many decimals as step needs.
func formatTick(v, step float64) string {
	switch {
	case step >= 1:
		return trimFloat(fmt.Sprintf("%.0f", v))
	case step >= 0.1:
		return trimFloat(fmt.Sprintf("%.1f", v))
	case step >= 0.01:
		return trimFloat(fmt.Sprintf("%.2f", v))
	}
	return trimFloat(fmt.Sprintf("%.4f", v))
}

func trimFloat(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
