//go:build !race

package ulidflake

const raceEnabled = false
