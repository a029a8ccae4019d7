//go:build !race

package etcdnode_test

const raceEnabled = false
