package stats

// The permutation tests. Both count how many of perms shuffled series reach the observed
// statistic and return the p-value (k+1)/(done+1). They stop early once the p-value can no longer
// reach level, so pure noise costs a handful of permutations and only real changes pay for all.

// segmentsPValue tests the split step's candidate: values are shuffled within each segment and the
// null statistic is the best split over all segments, as the candidate was chosen.
func (d *detector) segmentsPValue(bounds [][2]int, observed, level float64, perms int) float64 {
	d.scratch = append(d.scratch[:0], d.series...)
	exceed := 0
	for i := range perms {
		for _, b := range bounds {
			seg := d.scratch[b[0]:b[1]]
			d.rng.Shuffle(len(seg), func(x, y int) { seg[x], seg[y] = seg[y], seg[x] })
		}
		if _, q := d.bestOver(d.scratch, bounds); q >= observed {
			exceed++
			if float64(exceed+1)/float64(perms+1) > level {
				return float64(exceed+1) / float64(i+2)
			}
		}
	}
	return float64(exceed+1) / float64(perms+1)
}

// pairPValue tests the merge step's change point at cp between segments [a, cp) and [cp, b): the
// observed statistic is Q of that split; the null statistic is the best split (over tau, with the
// right part running to b) of the shuffled segment [a, b).
func (d *detector) pairPValue(a, cp, b int, level float64, perms int) float64 {
	d.scratch = append(d.scratch[:0], d.series[a:b]...)
	d.en.build(d.scratch)
	observed := d.en.q(cp-a, b-a)
	exceed := 0
	for i := range perms {
		d.rng.Shuffle(len(d.scratch), func(x, y int) { d.scratch[x], d.scratch[y] = d.scratch[y], d.scratch[x] })
		if _, q := d.en.bestSplit(d.scratch, d.opts.MinSize, true); q >= observed {
			exceed++
			if float64(exceed+1)/float64(perms+1) > level {
				return float64(exceed+1) / float64(i+2)
			}
		}
	}
	return float64(exceed+1) / float64(perms+1)
}
