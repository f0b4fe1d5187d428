package parsers

import "testing"

func TestMillis(t *testing.T) {
	for in, want := range map[string]float64{"583.24us": 0.58324, "1.43ms": 1.43, "1.10s": 1100, "2.00m": 120000, "1.00h": 3600000} {
		if got, err := Millis(in); err != nil || got != want {
			t.Errorf("Millis(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, want := range map[string]string{"5x": `"5x" is not a duration`, "1.2.3ms": `"1.2.3" is not a number`, "": `"" is not a duration`} {
		if _, err := Millis(in); err == nil || err.Error() != want {
			t.Errorf("Millis(%q): %v, want %q", in, err, want)
		}
	}
	if _, err := Number("NaN"); err == nil {
		t.Error("Number(NaN) accepted")
	}
}
