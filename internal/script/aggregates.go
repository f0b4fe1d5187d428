package script

// aggregates are the functions crank defines for result definitions' aggregate and reduce
// (max, min, avg, sum, first, last, all, median, count, delta, percentile and percentile50,
// 75, 90, 95, 99). A configuration's own scripts may redefine them, as in crank.
const aggregates = `
function max(values) { return Math.max.apply(null, values); }
function min(values) { return Math.min.apply(null, values); }
function first(values) { return values.length ? values[0] : null; }
function last(values) { return values.length ? values[values.length - 1] : null; }
function all(values) { return values; }
function count(values) { return values.length; }
function sum(values) { var s = 0; for (var i = 0; i < values.length; i++) { s += values[i]; } return s; }
function avg(values) { return values.length ? sum(values) / values.length : null; }
function delta(values) { return max(values) - min(values); }
// nearest rank, as crank: the value at round(n * p / 100), 1-based
function percentile(values, p) {
  var sorted = values.slice().sort(function (a, b) { return a - b; });
  var i = Math.max(0, Math.round(sorted.length * p / 100) - 1);
  return sorted[i];
}
function median(values) { return percentile(values, 50); }
var percentile50 = function (v) { return percentile(v, 50); };
var percentile75 = function (v) { return percentile(v, 75); };
var percentile90 = function (v) { return percentile(v, 90); };
var percentile95 = function (v) { return percentile(v, 95); };
var percentile99 = function (v) { return percentile(v, 99); };
`
