//go:build !race

package ulid

const raceEnabled = false
