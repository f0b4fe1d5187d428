package profiles

import (
	"bytes"
	"compress/gzip"
	"os"
	"strings"
	"testing"
)

// testdata/spin.perf-script is `perf script -F PerfFields` of `perf record -F 99 -g` on a Go
// program spinning in main.spin (captured on Debian 12, perf 6.1).
func TestParsePerfScriptCaptured(t *testing.T) {
	f, err := os.Open("testdata/spin.perf-script")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := ParsePerfScript(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sample) != 66 || p.Period != 10101010 {
		t.Fatalf("%d samples, period %d; want 66 and 10101010", len(p.Sample), p.Period)
	}
	// The samples' span: the first at 4010.128099 s, the last at 4011.165066 s on perf's clock.
	if p.TimeNanos != 4010128099000 || p.DurationNanos != 1036967000 {
		t.Fatalf("time %d, duration %d; want 4010128099000 and 1036967000", p.TimeNanos, p.DurationNanos)
	}
	var spin Func
	for _, fn := range Top(p, 100) {
		if fn.Name == "main.spin" {
			spin = fn
		}
	}
	if spin.Cum < Total(p)*9/10 {
		t.Fatalf("main.spin has %d of %d ns (cum): want most", spin.Cum, Total(p))
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
}

func TestParsePerfScriptErrors(t *testing.T) {
	for _, in := range []string{
		"\t 1 main.f (/bin/x)\n",                // a frame before any sample
		"x 1 2.0: notanumber cpu-clock:\n",      // bad period
		"x 1 2.0: 10 cpu-clock:\n\tzz f (/x)\n", // bad address
		"x 1 2.0: 10 cpu-clock:\n\t10 f /x\n",   // no binary
		"x 1 2.0 10 cpu-clock:\n",               // no time
		strings.Repeat("x", maxLine+1) + "\n",   // too long
	} {
		if _, err := ParsePerfScript(strings.NewReader(in)); err == nil {
			t.Errorf("%.40q: no error", in)
		}
	}
	// comm with spaces, symbols with spaces and parentheses
	p, err := ParsePerfScript(strings.NewReader("Web Content 12 3.5: 100 cpu-clock:ppp:\n\t 10 operator new(unsigned long) (/usr/lib/libstdc++.so)\n\t 20 [unknown] ([vdso])\n"))
	// Code perf could not name is named by whose it is.
	if err != nil || len(p.Sample) != 1 || p.Sample[0].Location[0].Line[0].Function.Name != "operator new(unsigned long)" ||
		p.Sample[0].Location[1].Line[0].Function.Name != "[unknown] ([vdso])" {
		t.Fatalf("%v %v", p, err)
	}
}

func FuzzParsePerfScript(f *testing.F) {
	b, _ := os.ReadFile("testdata/spin.perf-script")
	f.Add(string(b[:min(len(b), 2000)]))
	f.Add("a 1 2.0: 5 cpu-clock:\n\t ff f (x)\n\n")
	f.Fuzz(func(t *testing.T, in string) {
		p, err := ParsePerfScript(strings.NewReader(in))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := p.Write(&buf); err != nil {
			t.Fatalf("a parsed profile does not write: %v", err)
		}
		Top(p, 10)
	})
}

// A gzipped answer that inflates beyond MaxDecoded is refused before it is all in memory.
func TestParseBoundsDecompression(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	chunk := make([]byte, 1<<20)
	for range MaxDecoded>>20 + 1 {
		_, _ = zw.Write(chunk)
	}
	zw.Close()
	if _, err := Parse(buf.Bytes()); err == nil || !strings.Contains(err.Error(), "decompressed") {
		t.Fatalf("a %d-byte bomb: %v", buf.Len(), err)
	}
}
