package stats

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func TestBootstrapRatioCI(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	base, head := make([]float64, 8), make([]float64, 8)
	for i := range base {
		base[i] = 1000 + 5*rng.NormFloat64()
		head[i] = 900 + 5*rng.NormFloat64()
	}
	ci, err := BootstrapRatioCI(base, head, 0.95, 0, 42)
	if err != nil {
		t.Fatal(err)
	}
	if !(ci.Low < 0.9 && 0.9 < ci.High) || ci.High-ci.Low > 0.02 || ci.Level != 0.95 {
		t.Errorf("CI of a 0.9 ratio with 0.5%% noise = %+v", ci)
	}
	again, _ := BootstrapRatioCI(base, head, 0.95, 0, 42)
	if again != ci {
		t.Errorf("same seed gave %+v then %+v", ci, again)
	}
	narrower, _ := BootstrapRatioCI(base, head, 0.5, 0, 42)
	if !(narrower.Low > ci.Low && narrower.High < ci.High) {
		t.Errorf("50%% interval %+v not inside 95%% interval %+v", narrower, ci)
	}
}

func TestBootstrapRatioCIRejectsBadInput(t *testing.T) {
	for _, c := range []struct {
		base, head  []float64
		level, want string
	}{
		{nil, []float64{1}, "0.95", "empty sample"},
		{[]float64{1}, []float64{1}, "1.5", "confidence level 1.5 not in (0, 1)"},
		{[]float64{0, 0}, []float64{1}, "0.95", "base mean is zero in every resample"},
	} {
		level, _ := strconv.ParseFloat(c.level, 64)
		if _, err := BootstrapRatioCI(c.base, c.head, level, 10, 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("BootstrapRatioCI(%v, %v, %s) = %v, want %q", c.base, c.head, c.level, err, c.want)
		}
	}
}
