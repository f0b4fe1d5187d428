package flags

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

type fixture struct {
	metrics []string
	alpha   float64
	out     string
	n       int
	since   time.Duration
	list    bool
}

func newFixture() (*Set, *fixture) {
	f := &fixture{alpha: 0.05}
	s := &Set{}
	s.Strings(&f.metrics, "metric to compare (repeatable)", "metric")
	s.Float(&f.alpha, "significance level", "alpha")
	s.String(&f.out, "the file to write", "output", "o")
	s.Int(&f.n, "how many", "rounds")
	s.Duration(&f.since, "how far back", "since")
	s.Bool(&f.list, "only list", "list")
	return s, f
}

func TestParseReadsOneStyle(t *testing.T) {
	s, f := newFixture()
	pos, err := s.Parse([]string{"a.json", "--metric", "rps", "-METRIC=cpu", "b.json", "-o", "x.md", "--Alpha=0.01",
		"--rounds", "7", "--since", "90s", "--list", "--", "--not-a-flag"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.json", "b.json", "--not-a-flag"}; !slices.Equal(pos, want) {
		t.Errorf("positional %q, want %q", pos, want)
	}
	if !slices.Equal(f.metrics, []string{"rps", "cpu"}) || f.alpha != 0.01 || f.out != "x.md" || f.n != 7 ||
		f.since != 90*time.Second || !f.list {
		t.Errorf("read %+v", *f)
	}
	if _, err := s.Parse([]string{"--list=false"}); err != nil || f.list {
		t.Errorf("--list=false: %v, list %v", err, f.list)
	}
}

func TestParseErrorsNameTheFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--metirc", "x"}, "unknown flag --metirc (did you mean --metric?)"},
		{[]string{"--zzzzzzzz"}, "unknown flag --zzzzzzzz"},
		{[]string{"--alpha"}, "flag --alpha needs a value"},
		{[]string{"--alpha", "lots"}, `flag --alpha: invalid value "lots": not a number`},
		{[]string{"--since=90x"}, `flag --since: invalid value "90x": not a duration (write 30s, 2m or 1h30m)`},
		{[]string{"--rounds", "2.5"}, `flag --rounds: invalid value "2.5": not a whole number`},
		{[]string{"--list=maybe"}, `flag --list: invalid value "maybe": not true or false`},
	} {
		s, _ := newFixture()
		_, err := s.Parse(c.args)
		var fe *Error
		if !errors.As(err, &fe) || err.Error() != c.want {
			t.Errorf("%q: error %v, want %q", c.args, err, c.want)
		}
	}
	s, _ := newFixture()
	for _, h := range []string{"-h", "--help", "-help"} {
		if _, err := s.Parse([]string{"a.json", h}); !IsHelp(err) {
			t.Errorf("%s: %v, want ErrHelp", h, err)
		}
	}
}

func TestCaseSetKeepsCase(t *testing.T) {
	var lower, upper int
	s := &Set{CaseSet: true}
	s.Int(&lower, "threads", "t")
	s.Int(&upper, "timeout", "T")
	if _, err := s.Parse([]string{"-t", "2", "-T", "9"}); err != nil || lower != 2 || upper != 9 {
		t.Errorf("-t 2 -T 9: %v, t %d T %d", err, lower, upper)
	}
}

func TestUsageListsEveryFlag(t *testing.T) {
	s, _ := newFixture()
	var b strings.Builder
	s.Usage(&b)
	for _, want := range []string{"--metric VALUE\n", "--alpha VALUE\n      significance level (default 0.05)", "--output, -o VALUE",
		"--list\n      only list\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("usage lacks %q:\n%s", want, b.String())
		}
	}
}

func TestSplitWithNames(t *testing.T) {
	var got []string
	rest, err := Split([]string{"--Good", "a", "--bad=b", "--side-by-side", "--config", "x"}, []string{"good", "bad"},
		[]string{"side-by-side"}, strings.ToLower, func(name, value string, _ bool) error {
			got = append(got, name+"="+value)
			return nil
		})
	if err != nil || !slices.Equal(rest, []string{"--config", "x"}) || !slices.Equal(got, []string{"good=a", "bad=b", "side-by-side="}) {
		t.Errorf("rest %q, got %q, err %v", rest, got, err)
	}
	if _, err := Split([]string{"--good"}, []string{"good"}, nil, nil, nil); err == nil || err.Error() != "flag --good needs a value" {
		t.Errorf("--good without a value: %v", err)
	}
}
