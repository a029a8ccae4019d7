package etcdhttp

import "testing"

// The Store itself is tested against a real etcd server by the protocol
// tests of the scru64/etcdnode module; this only pins endpoint checking.
func TestNewChecksTheEndpoint(t *testing.T) {
	for _, bad := range []string{"", "localhost:2379", "ftp://host", "http://", "://x"} {
		if _, err := New([]string{"http://127.0.0.1:2379", bad}, nil); err == nil {
			t.Errorf("New accepted %q", bad)
		}
	}
	if _, err := New(nil, nil); err == nil {
		t.Error("New accepted no endpoint")
	}
	s, err := New([]string{"https://etcd.example:2379/some/path", "http://[::1]:2379"}, nil)
	if err != nil || len(s.endpoints) != 2 || s.endpoints[0] != "https://etcd.example:2379" || s.endpoints[1] != "http://[::1]:2379" {
		t.Fatalf("New = %+v, %v", s, err)
	}
}
