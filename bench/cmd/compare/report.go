package main

import (
	"cmp"
	"fmt"
	"html"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/fastid/scru128/bench"
)

// operations are the table's columns, in order; floorOp is reported apart.
var operations = []string{"Mint", "MintParallel", "MintString", "MintAppend", "Encode", "String", "Parse"}

const floorOp = "Floor"

// report renders collected results.
type report struct {
	machine, command string
	count            int
	results          *results
	libs             []bench.Lib
}

func (r *report) libNames() []string {
	names := make([]string, len(r.libs))
	for i, l := range r.libs {
		names[i] = l.Name
	}
	return names
}

// columns returns the operations that have results, in table order.
func (r *report) columns() []string {
	var cols []string
	for _, op := range operations {
		if len(r.results.libsOf(op, r.libNames())) > 0 {
			cols = append(cols, op)
		}
	}
	return cols
}

// fastest returns the library with the lowest median ns/op for op.
func (r *report) fastest(op string) string {
	best, bestNs := "", math.Inf(1)
	for _, lib := range r.results.libsOf(op, r.libNames()) {
		if ns, _, _ := r.results.median(op, lib); ns < bestNs {
			best, bestNs = lib, ns
		}
	}
	return best
}

func (r *report) markdown() string {
	var b strings.Builder
	ours := r.libs[0].Name
	fmt.Fprintf(&b, "# ID libraries compared\n\n")
	fmt.Fprintf(&b, "Machine: %s.\n\n", r.machine)
	fmt.Fprintf(&b, "Command, in `bench/`: `%s`.\n\n", r.command)
	fmt.Fprintf(&b, "Each cell: the median ns/op over %d runs, allocations per op, and the time "+
		"relative to %s in the same column (lower is better). **Bold**: the fastest in the "+
		"column. A dash: the library cannot do it, or shares the codec of the row above "+
		"(see the notes).\n\n", r.count, ours)

	cols := r.columns()
	b.WriteString("| library |")
	for _, op := range cols {
		b.WriteString(" " + op + " |")
	}
	b.WriteString("\n|---|")
	for range cols {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, lib := range r.libNames() {
		row := false
		for _, op := range cols {
			if r.results.runs(op, lib) > 0 {
				row = true
			}
		}
		if !row {
			continue
		}
		fmt.Fprintf(&b, "| %s |", lib)
		for _, op := range cols {
			ns, allocs, ok := r.results.median(op, lib)
			if !ok {
				b.WriteString(" – |")
				continue
			}
			cell := fmt.Sprintf("%s ns", formatNs(ns))
			if lib == r.fastest(op) {
				cell = "**" + cell + "**"
			}
			cell += fmt.Sprintf(", %g alloc", allocs)
			if allocs != 1 {
				cell += "s"
			}
			if oursNs, _, ok := r.results.median(op, ours); ok && oursNs > 0 {
				cell += fmt.Sprintf(", %.2fx", ns/oursNs)
			}
			b.WriteString(" " + cell + " |")
		}
		b.WriteString("\n")
	}

	if floor := floorParts(r.results); len(floor) > 0 {
		b.WriteString("\nThe parts an ID is made of, in the same run:\n\n| part | ns/op |\n|---|---:|\n")
		for _, part := range floor {
			ns, _, _ := r.results.median(floorOp, part)
			fmt.Fprintf(&b, "| %s | %s |\n", part, formatNs(ns))
		}
	}

	r.properties(&b)

	b.WriteString("\nNotes:\n\n")
	for _, l := range r.libs {
		if l.Note != "" {
			fmt.Fprintf(&b, "- %s: %s.\n", l.Name, l.Note)
		}
	}
	return b.String()
}

// properties writes the table of what tells the measured libraries apart
// besides speed, from their bench.Props.
func (r *report) properties(b *strings.Builder) {
	b.WriteString("\nWhat differs besides speed (bench.Props in libs.go, checked by the bench module's " +
		"TestProperties). Order: how IDs minted on different goroutines compare, strictly increasing " +
		"in real time or only to the time's unit. Version bits: the RFC 9562 version and variant bits " +
		"that make the ID a UUID to code that checks them. Sorts by time: IDs minted further apart " +
		"than the time's unit sort in creation order.\n\n")
	b.WriteString("| library | order across goroutines | text | random bits | RFC 9562 version bits | sorts by time as bytes | as text |\n")
	b.WriteString("|---|---|---:|---|---|---|---|\n")
	for _, l := range r.libs {
		if !r.measured(l.Name) {
			continue
		}
		p := l.Props
		fmt.Fprintf(b, "| %s | %s | %d | %s | %s | %s | %s |\n",
			l.Name, orderText(p), p.TextLen, p.Random, yesNo(p.Version), yesNo(p.SortBytes), yesNo(p.SortText))
	}
}

// measured reports whether lib has a result in any column.
func (r *report) measured(lib string) bool {
	for _, op := range operations {
		if r.results.runs(op, lib) > 0 {
			return true
		}
	}
	return false
}

// orderText words Props.Ordered and Resolution for the table.
func orderText(p bench.Props) string {
	switch {
	case p.Ordered:
		return "strictly increasing"
	case p.Resolution == 0 || !p.SortBytes:
		return "none"
	case p.Resolution == time.Millisecond:
		return "to the ms"
	case p.Resolution == time.Second:
		return "to the s"
	}
	return "to the " + strings.TrimSuffix(p.Resolution.String(), "ms") + " ms"
}

func yesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}

// floorOrder is the order of the parts in the floor table.
var floorOrder = []string{"time.Now", "time.Since", "crypto-rand-4B", "chacha8-uint64"}

// floorParts lists the parts measured under BenchmarkFloor: the known ones
// in floorOrder, then any others by name.
func floorParts(r *results) []string {
	var parts []string
	for key := range r.samples {
		if key[0] == floorOp {
			parts = append(parts, key[1])
		}
	}
	rank := func(p string) int {
		if i := slices.Index(floorOrder, p); i >= 0 {
			return i
		}
		return len(floorOrder)
	}
	slices.SortFunc(parts, func(a, b string) int { return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(a, b)) })
	return parts
}

func formatNs(ns float64) string {
	switch {
	case ns == 0:
		return "0"
	case ns >= 100:
		return fmt.Sprintf("%.0f", ns)
	case ns >= 10:
		return fmt.Sprintf("%.1f", ns)
	}
	return fmt.Sprintf("%.2f", ns)
}

// palette gives each library a color, distinct for up to 16 libraries.
var palette = []string{"#1f4e9c", "#4a86e8", "#0b8043", "#00acc1", "#9fc5e8",
	"#e69138", "#f6b26b", "#6aa84f", "#93c47d", "#cc0000", "#e06666",
	"#8e7cc3", "#c27ba0", "#76a5af", "#999999", "#bf9000"}

// svg draws ns/op per operation as groups of bars, one bar per library.
func (r *report) svg() string {
	cols := r.columns()
	libs := r.libNames()
	maxNs := 0.0
	for _, op := range cols {
		for _, lib := range libs {
			if ns, _, ok := r.results.median(op, lib); ok {
				maxNs = math.Max(maxNs, ns)
			}
		}
	}
	top := niceCeil(maxNs)

	const (
		left, right, topPad, bottom = 60.0, 220.0, 50.0, 50.0
		plotH                       = 360.0
		barW, groupGap              = 9.0, 18.0
	)
	groupW := float64(len(libs))*barW + groupGap
	width := left + float64(len(cols))*groupW + right
	height := topPad + plotH + bottom
	y := func(ns float64) float64 { return topPad + plotH - ns/top*plotH }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="12">`+"\n",
		width, height, width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%.0f" y="22" font-size="15" font-weight="bold">ns per operation, median of %d runs (lower is better)</text>`+"\n", left, r.count)
	fmt.Fprintf(&b, `<text x="%.0f" y="40" fill="#555">%s</text>`+"\n", left, html.EscapeString(r.machine))

	// Grid and y axis labels.
	for i := 0; i <= 5; i++ {
		v := top * float64(i) / 5
		fmt.Fprintf(&b, `<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", left, width-right, y(v), y(v))
		fmt.Fprintf(&b, `<text x="%.0f" y="%.1f" text-anchor="end" fill="#555">%s</text>`+"\n", left-6, y(v)+4, formatNs(v))
	}
	// Bars.
	for g, op := range cols {
		x0 := left + float64(g)*groupW + groupGap/2
		for i, lib := range libs {
			ns, allocs, ok := r.results.median(op, lib)
			if !ok {
				continue
			}
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %s ns/op, %g allocs/op</title></rect>`+"\n",
				x0+float64(i)*barW, y(ns), barW-1, y(0)-y(ns), palette[i%len(palette)], op, html.EscapeString(lib), formatNs(ns), allocs)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle">%s</text>`+"\n",
			x0+float64(len(libs))*barW/2, topPad+plotH+20, op)
	}
	fmt.Fprintf(&b, `<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#333"/>`+"\n", left, width-right, y(0), y(0))
	// Legend.
	for i, lib := range libs {
		ly := topPad + float64(i)*20
		fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="12" height="12" fill="%s"/>`+"\n", width-right+16, ly, palette[i%len(palette)])
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f">%s</text>`+"\n", width-right+34, ly+11, html.EscapeString(lib))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}
