//go:build race

package etcdnode_test

const raceEnabled = true
