package gate

// Judge compares head's iterations with base's by crank compare's one test and its rules
// (estimate, decide): the comparison (test, p-value, interval of the ratio head/base at
// 1 - opts.Alpha) and its verdict against opts.Threshold, and for an inconclusive verdict how many
// iterations per side would likely tell (Needed). For a command that holds the iterations in
// memory rather than in files (crank compare --base --head's rounds), so that both judge alike.
// opts.Threshold is taken as given (0: any significant change counts); Alpha 0 is DefaultAlpha.
func Judge(dir Direction, base, head []float64, opts CompareOptions) Comparison {
	if opts.Alpha <= 0 {
		opts.Alpha = DefaultAlpha
	}
	var c Comparison
	estimate(&c, base, head, opts)
	c.Verdict = decide(dir, c, opts.Threshold)
	if c.Verdict == VerdictInconclusive {
		c.Needed, c.AtThreshold = needed(c, opts.Threshold)
	}
	return c
}

// ParseFraction reads a relative amount as crank compare's --threshold does: "5%" or 0.05.
func ParseFraction(s string) (float64, error) {
	var f fraction
	err := f.Set(s)
	return float64(f), err
}
