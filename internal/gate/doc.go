// Package gate holds the performance gates: `crank compare` (a pull request's runs against its
// base, with significance tests) and `crank regressions` (change points over a history of nightly
// results). Entry points take their arguments and writers, so they run in-process in tests.
package gate
