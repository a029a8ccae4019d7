package pgnode_test

import (
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// A test server that is stopped and started again (a restart, a restore,
// a replica that lags and is then promoted) binds its port again, so the
// port must stay the server's while it is down. Listen("127.0.0.1:0") cannot
// promise that: the kernel hands the released port to the next such
// Listen of any test, or to an outgoing connection as its local port, and
// the server then fails with "Address already in use" (CI saw it, a
// replica's port taken within the 3 s it was down). So freePort draws
// from below the kernel's ephemeral range, where neither draws, and
// reserves what it hands out for the life of the process. A process other
// than this one may still bind such a port, as it may any port; CI runs
// one test process of a server module at a time.

var ports = struct {
	sync.Mutex
	reserved map[int]bool
}{reserved: map[int]bool{}}

// lowestPort is where freePort's ports begin: above the ports services
// are configured on.
const lowestPort = 10000

// freePort returns a loopback port that was free a moment ago and that no
// other call in this process returns: below the ephemeral range where it
// is 1,000 ports or more above lowestPort, else one the kernel picks.
func freePort(t testing.TB) int {
	t.Helper()
	ports.Lock()
	defer ports.Unlock()
	if top := ephemeralStart(); top-lowestPort >= 1000 {
		for range 1000 {
			p := lowestPort + rand.IntN(top-lowestPort)
			if ports.reserved[p] || !free(p) {
				continue
			}
			ports.reserved[p] = true
			return p
		}
	}
	// No room below the ephemeral range (or it is full): a port the kernel
	// picks, which a restart may then lose.
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		p := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if !ports.reserved[p] {
			ports.reserved[p] = true
			return p
		}
	}
	t.Fatal("no free loopback port")
	return 0
}

// free reports whether a listener can bind port on the loopback address.
func free(port int) bool {
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

// ephemeralStart returns the first port of the range the kernel draws
// local ports from (Linux's setting; its default where it cannot be read).
func ephemeralStart() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil {
				return n
			}
		}
	}
	return 32768
}

// TestFreePortsStayReserved: the ports freePort hands out are distinct,
// below the ephemeral range, and one a server gave up is not handed out
// again, even when nothing holds it.
func TestFreePortsStayReserved(t *testing.T) {
	seen := map[int]bool{}
	for range 200 {
		p := freePort(t)
		if seen[p] {
			t.Fatalf("port %d handed out twice", p)
		}
		seen[p] = true
		if top := ephemeralStart(); top-lowestPort >= 1000 && (p < lowestPort || p >= top) {
			t.Fatalf("port %d is outside %d-%d", p, lowestPort, top-1)
		}
	}
}
