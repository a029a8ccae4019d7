//go:build race

package idtest

// RaceEnabled reports whether the race detector is on. Tests use it to skip
// allocation checks, which instrumented builds fail, and to shorten stress
// tests, which it slows down many times.
const RaceEnabled = true
