package nodelease

import (
	"context"
	"slices"
	"sort"
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
	// Keys that are not this package's: skipped.
	store.keys = append(store.keys, prefix+"node/00000x1", prefix+"node/0000001junk", prefix+"size")
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
