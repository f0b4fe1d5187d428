// Package stats holds the statistics behind the performance gates: Welch's and the paired t-test
// with the confidence interval of the same t (Difference), and E-divisive means change-point
// detection with a permutation significance test. Everything here is deterministic:
// randomised procedures take an explicit seed.
package stats
