// Package fuzz holds the fuzz targets of the module. Each target compares a
// fast implementation with the plain reference in internal/naive, so a
// finding is a wrong result, not only a crash. Run one with, for example:
//
//	go test ./fuzz -run '^$' -fuzz '^FuzzParse$' -fuzztime 30s
//
// Without -fuzz, go test runs every target over its seed corpus in
// testdata/fuzz.
package fuzz
