package gate

import (
	"fmt"
	"strconv"
	"strings"
)

// fraction is a relative amount given as "5%" or "0.05".
type fraction float64

func (f *fraction) String() string { return strconv.FormatFloat(float64(*f)*100, 'g', -1, 64) + "%" }

func (f *fraction) Set(v string) error {
	s := strings.TrimSpace(v)
	pct := strings.HasSuffix(s, "%")
	x, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	switch {
	case err != nil:
		return fmt.Errorf("%q is not a number: write 5%% or 0.05", v)
	case pct:
		x /= 100
	case x > 1:
		return fmt.Errorf("%q is ambiguous: write %s%% or a fraction such as 0.05", v, s)
	}
	if x < 0 {
		return fmt.Errorf("%q is negative", v)
	}
	*f = fraction(x)
	return nil
}
