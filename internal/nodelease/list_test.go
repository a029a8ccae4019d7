package nodelease

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
)

// sortedKeys implements only Store.Keys, over a sorted list in memory: the
// listing logic is plain code, tested here over pages of every shape; the
// protocol is tested against a real etcd by the etcdnode module.
type sortedKeys struct {
	Store
	keys  []string
	calls int
}

func (s *sortedKeys) Keys(_ context.Context, from, end string, limit int64) ([]string, error) {
	s.calls++
	i := sort.SearchStrings(s.keys, from)
	var out []string
	for ; i < len(s.keys) && s.keys[i] < end && int64(len(out)) < limit; i++ {
		out = append(out, s.keys[i])
	}
	return out, nil
}

func TestFreeNodeIDsAcrossPages(t *testing.T) {
	const prefix = "/p/"
	held := map[uint32]bool{}
	for id := uint32(0); id < 3000; id++ {
		held[id] = true
	}
	// Gaps: in the first page, at a page boundary, deep in the third page.
	for _, id := range []uint32{5, 1023, 1024, 2500, 2501} {
		delete(held, id)
	}
	store := &sortedKeys{}
	for id := range held {
		store.keys = append(store.keys, holderKey(prefix, id))
	}
	// A key outside every range listed: never answered.
	store.keys = append(store.keys, prefix+"size")
	sort.Strings(store.keys)
	n := &Node{store: store}

	for _, tc := range []struct {
		lo, hi uint32
		want   []uint32
	}{
		{0, 255, []uint32{5}},
		{0, 1<<23 - 1, []uint32{5, 1023, 1024, 2500, 2501, 3000, 3001, 3002, 3003, 3004, 3005, 3006, 3007, 3008, 3009, 3010}},
		{6, 1022, nil},
		{1000, 3002, []uint32{1023, 1024, 2500, 2501, 3000, 3001, 3002}},
		{2999, 2999, nil},
		{5, 5, []uint32{5}},
	} {
		got, err := n.freeNodeIDs(context.Background(), prefix, tc.lo, tc.hi)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("free in %d..%d = %v, want %v", tc.lo, tc.hi, got, tc.want)
		}
	}
	store.calls = 0
	if _, err := n.freeNodeIDs(context.Background(), prefix, 0, 999); err != nil || store.calls != 1 {
		t.Errorf("listing 1,000 node IDs took %d requests, want 1", store.calls)
	}
}

// answeredKeys implements only Store.Keys, answering the same keys to
// every listing: what a misbehaving server, or a proxy that rewrites its
// answers, can send.
type answeredKeys struct {
	Store
	keys []string
}

func (s *answeredKeys) Keys(context.Context, string, string, int64) ([]string, error) {
	return s.keys, nil
}

// TestFreeNodeIDsRefusesKeysItDidNotAskFor: a listing's answer is data
// from the server. A key shorter than the prefix, outside the range asked
// for, out of order or not of this package's form, or more keys than the
// limit, is a *DataError that names it, never a panic and never a node
// ID outside the range.
func TestFreeNodeIDsRefusesKeysItDidNotAskFor(t *testing.T) {
	const prefix = "/p/"
	held := func(ids ...uint32) []string {
		var keys []string
		for _, id := range ids {
			keys = append(keys, holderKey(prefix, id))
		}
		return keys
	}
	tooMany := held()
	for id := range uint32(keysPage + 1) {
		tooMany = append(tooMany, holderKey(prefix, id))
	}
	for _, tc := range []struct {
		name   string
		keys   []string
		lo, hi uint32
		key    string // the key the error names ("" for none)
	}{
		{"shorter than the prefix", []string{"/x"}, 0, 255, "/x"},
		{"the prefix alone", []string{prefix}, 0, 255, prefix},
		{"above the range", append(held(10, 11), holderKey(prefix, 300)), 10, 11, holderKey(prefix, 300)},
		{"below the range", held(3, 10), 10, 11, holderKey(prefix, 3)},
		{"under another prefix", []string{"/q/node/0000010"}, 10, 11, "/q/node/0000010"},
		{"out of order", held(11, 10), 10, 11, holderKey(prefix, 10)},
		{"twice", held(10, 10), 10, 11, holderKey(prefix, 10)},
		{"not digits", []string{prefix + "node/00000x1"}, 0, 255, prefix + "node/00000x1"},
		{"longer", []string{prefix + "node/0000001junk"}, 0, 255, prefix + "node/0000001junk"},
		{"a sign", []string{prefix + "node/+000001"}, 0, 255, prefix + "node/+000001"},
		{"control characters", []string{prefix + "node/\x1b[31m"}, 0, 255, prefix + "node/\x1b[31m"},
		{"more than the limit", tooMany, 0, 1<<23 - 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := &Node{store: &answeredKeys{keys: tc.keys}}
			var free []uint32
			var err error
			func() {
				defer func() {
					if p := recover(); p != nil {
						err = fmt.Errorf("panic: %v", p)
					}
				}()
				free, err = n.freeNodeIDs(context.Background(), prefix, tc.lo, tc.hi)
			}()
			var de *DataError
			if !errors.As(err, &de) || !errors.Is(err, ErrBadData) || de.Key != tc.key {
				t.Fatalf("free node IDs in %d..%d = %v, %v; want a *DataError naming %q", tc.lo, tc.hi, free, err, tc.key)
			}
			if strings.ContainsAny(err.Error(), "\x1b\x00") {
				t.Fatalf("the error shows the server's control characters: %q", err)
			}
			t.Log(err)
		})
	}
}
