//go:build !race

package scru64

const raceEnabled = false
