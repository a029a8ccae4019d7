package etcdhttp

import "testing"

// The Store itself is tested against a real etcd server by the protocol
// tests of the scru64/etcdnode module; this only pins endpoint checking.
func TestNewChecksTheEndpoint(t *testing.T) {
	for _, bad := range []string{"", "ftp://host", "http://", "://x", "host:port:x/%"} {
		if _, err := New([]string{"http://127.0.0.1:2379", bad}, nil); err == nil {
			t.Errorf("New accepted %q", bad)
		}
	}
	if _, err := New(nil, nil); err == nil {
		t.Error("New accepted no endpoint")
	}
	s, err := New([]string{"https://etcd.example:2379/some/path", "http://[::1]:2379", "10.0.0.1:2379"}, nil)
	want := []string{"https://etcd.example:2379", "http://[::1]:2379", "http://10.0.0.1:2379"}
	if err != nil || len(s.endpoints) != len(want) {
		t.Fatalf("New = %+v, %v", s, err)
	}
	for i := range want {
		if s.endpoints[i] != want[i] {
			t.Errorf("endpoint %d = %q, want %q", i, s.endpoints[i], want[i])
		}
	}
}
