//go:build race

package ulid

const raceEnabled = true
