// Package catalogcheck holds only tests: they walk every figure of the catalog (internal/measure)
// through the outputs that show figures (the tables, the result JSON, crank compare, crank bisect's
// lines and crank report's bisect table) and check that each says the catalog's unit and value, so
// that no output can drift from the one catalog.
package catalogcheck
