// Package stats holds the statistics behind the performance gates: two-sample tests (Mann-Whitney U,
// Welch's t), a seeded bootstrap confidence interval of a ratio of means, and E-divisive means
// change-point detection with a permutation significance test. Everything here is deterministic:
// randomised procedures take an explicit seed.
package stats
