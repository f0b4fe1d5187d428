package proc

import (
	"reflect"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"   ", nil},
		{"-c 256 -d 15s http://127.0.0.1:5000/plaintext", []string{"-c", "256", "-d", "15s", "http://127.0.0.1:5000/plaintext"}},
		{`-H "Accept: text/plain"  --latency`, []string{"-H", "Accept: text/plain", "--latency"}},
		{`'a b' "c 'd'" e'f g'h`, []string{"a b", "c 'd'", "ef gh"}},
		{`"" ''`, []string{"", ""}},
		{`a\ b c\"d`, []string{"a b", `c"d`}},
		{`"x \" \\ \$ \n"`, []string{`x " \ $ \n`}},
		{`'no \escape'`, []string{`no \escape`}},
		{"a|b ; c > d", []string{"a|b", ";", "c", ">", "d"}},
		{"one\ttwo\nthree", []string{"one", "two", "three"}},
	}
	for _, c := range cases {
		got, err := Split(c.in)
		if err != nil {
			t.Errorf("Split(%q): %v", c.in, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Split(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSplitErrors(t *testing.T) {
	for in, want := range map[string]string{`"open`: `unterminated " quote`, `'open`: "unterminated ' quote", `trailing\`: "ends with a backslash"} {
		if got, err := Split(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Split(%q) = %q, %v, want an error saying %q", in, got, err, want)
		}
	}
}
