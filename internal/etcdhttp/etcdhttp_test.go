package etcdhttp

import "testing"

// The Store itself is tested against a real etcd server by the protocol
// tests of the scru64/etcdnode module; this only pins endpoint checking.
func TestNewChecksTheEndpoint(t *testing.T) {
	for _, bad := range []string{"", "localhost:2379", "ftp://host", "http://", "://x"} {
		if _, err := New(bad, nil); err == nil {
			t.Errorf("New(%q) accepted", bad)
		}
	}
	s, err := New("https://etcd.example:2379/some/path", nil)
	if err != nil || s.endpoint != "https://etcd.example:2379" {
		t.Fatalf("New = %+v, %v", s, err)
	}
}
