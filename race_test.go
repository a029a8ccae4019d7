//go:build race

package scru128

const raceEnabled = true
