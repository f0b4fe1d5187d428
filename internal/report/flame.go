package report

import (
	"fmt"
	"hash/fnv"
	"html/template"
	"slices"
	"strings"

	"github.com/crankshaft/crankshaft/internal/profiles"
	"github.com/google/pprof/profile"
)

// Flame is one profile's flame graph: inline SVG, drawn here, with each frame's name and share in
// its tooltip (<title>): no script, nothing fetched.
type Flame struct {
	Title string
	SVG   template.HTML
	Note  string // why there is no graph (the file is gone, not a profile)
}

// Bounds on a flame graph: the frames drawn (narrower ones are left out).
const (
	flameWidth    = 1200.0
	flameRow      = 16.0
	minFrameWidth = 0.5 // pixels
	maxFlameDepth = 128
)

// flames draws the profiles of a run's last iteration that crank saved.
func flames(run Run) []Flame {
	var out []Flame
	for _, svc := range run.Services {
		ps := run.Result.JobResults.Jobs[svc].Profiles
		last := 0
		for _, p := range ps {
			last = max(last, p.Iteration)
		}
		for _, p := range ps {
			if p.Path == "" || p.Iteration != last {
				continue
			}
			f := Flame{Title: fmt.Sprintf("%s: %s, %s", run.Label, svc, p.Name)}
			if p.Iteration > 0 {
				f.Title += fmt.Sprintf(" (iteration %d)", p.Iteration)
			}
			prof, err := profiles.Load(run.Path, p.Path)
			if err != nil {
				f.Note = err.Error()
			} else {
				f.SVG = flameSVG(prof)
			}
			out = append(out, f)
		}
	}
	return out
}

// node is a frame in the call tree, its value summed over the stacks through it.
type node struct {
	name     string
	value    int64
	children map[string]*node
}

func (n *node) child(name string) *node {
	if n.children == nil {
		n.children = map[string]*node{}
	}
	c, ok := n.children[name]
	if !ok {
		c = &node{name: name}
		n.children[name] = c
	}
	return c
}

// tree is the profile's call tree, callers at the root (its last sample type's values).
func tree(p *profile.Profile) *node {
	root := &node{name: "all"}
	i := len(p.SampleType) - 1
	for _, s := range p.Sample {
		if i < 0 || i >= len(s.Value) || s.Value[i] <= 0 {
			continue
		}
		v := s.Value[i]
		root.value += v
		n := root
		for k := len(s.Location) - 1; k >= 0; k-- {
			lines := s.Location[k].Line
			for j := len(lines) - 1; j >= 0; j-- { // the caller of inlined frames first
				name := "[unknown]"
				if lines[j].Function != nil {
					name = lines[j].Function.Name
				}
				n = n.child(name)
				n.value += v
			}
		}
	}
	return root
}

// flameSVG draws the tree: the root at the bottom row, callees above their callers.
func flameSVG(p *profile.Profile) template.HTML {
	root := tree(p)
	if root.value == 0 {
		return template.HTML(`<p class="note">No samples.</p>`)
	}
	scale := flameWidth / float64(root.value)
	depth := drawnDepth(root, scale, 0)
	h := float64(depth+1) * flameRow
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="flame" xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="monospace" font-size="11">`,
		flameWidth, h, flameWidth, h)
	var draw func(n *node, x float64, d int)
	draw = func(n *node, x float64, d int) {
		w := float64(n.value) * scale
		if w < minFrameWidth || d >= maxFlameDepth {
			return
		}
		writeFrame(&b, n, x, float64(depth-d)*flameRow, w, root.value)
		for _, c := range sortedChildren(n) {
			draw(c, x, d+1)
			x += float64(c.value) * scale
		}
	}
	draw(root, 0, 0)
	b.WriteString("</svg>")
	return template.HTML(b.String())
}

// drawnDepth is the deepest row flameSVG draws under n.
func drawnDepth(n *node, scale float64, d int) int {
	deepest := d
	for _, c := range n.children {
		if float64(c.value)*scale >= minFrameWidth && d+1 < maxFlameDepth {
			deepest = max(deepest, drawnDepth(c, scale, d+1))
		}
	}
	return deepest
}

func sortedChildren(n *node) []*node {
	out := make([]*node, 0, len(n.children))
	for _, c := range n.children {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b *node) int { return strings.Compare(a.name, b.name) })
	return out
}

// writeFrame writes one frame at y: its box, its tooltip and as much of its name as fits.
func writeFrame(b *strings.Builder, n *node, x, y, w float64, total int64) {
	fmt.Fprintf(b, `<g><title>%s: %.1f %%</title><rect x="%.1f" y="%.0f" width="%.1f" height="%.0f" fill="%s" stroke="#fff" stroke-width="0.5"/>`,
		template.HTMLEscapeString(n.name), 100*float64(n.value)/float64(total), x, y, w, flameRow-1, frameColor(n.name))
	if chars := int((w - 4) / 7); chars >= 3 {
		label := []rune(n.name)
		if len(label) > chars {
			label = append(label[:chars-2], '.', '.')
		}
		fmt.Fprintf(b, `<text x="%.1f" y="%.0f">%s</text>`, x+2, y+flameRow-4, template.HTMLEscapeString(string(label)))
	}
	b.WriteString("</g>")
}

// frameColor is a warm color that stays the same for a function across graphs.
func frameColor(name string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(name))
	v := h.Sum32()
	return fmt.Sprintf("rgb(%d,%d,%d)", 205+v%50, 80+(v>>8)%120, 40+(v>>16)%40)
}
