module benchmarks

go 1.26
