package clock

import (
	"testing"
	"time"
)

func TestMillisMonoAgreesWithMillisAndMono(t *testing.T) {
	c := New()
	for range 100 {
		monoBefore := Mono()
		before := uint64(time.Now().UnixMilli())
		ms, mono := c.MillisMono()
		after := uint64(time.Now().UnixMilli())
		monoAfter := Mono()
		if ms+1 < before || ms > after+1 {
			t.Fatalf("MillisMono millis = %d, outside [%d, %d]", ms, before, after)
		}
		if mono < monoBefore || mono > monoAfter {
			t.Fatalf("MillisMono mono = %d, outside [%d, %d]", mono, monoBefore, monoAfter)
		}
	}
}

// The monotonic reading ignores the wall clock: a Clock whose wall clock is
// an hour behind reports the same monotonic time as one that follows
// time.Now.
func TestMillisMonoIgnoresWallClock(t *testing.T) {
	behind := NewWithWall(func() time.Time { return time.Now().Add(-time.Hour) }, time.Hour)
	start := Mono()
	ms, mono := behind.MillisMono()
	if want := uint64(time.Now().Add(-time.Hour).UnixMilli()); ms > want+1 || ms+1000 < want {
		t.Fatalf("millis = %d, want about %d", ms, want)
	}
	if d := time.Duration(mono - start); d < 0 || d > time.Second {
		t.Fatalf("mono moved by %v during one read", d)
	}
}

func TestMillisMonoBeforeEpoch(t *testing.T) {
	c := NewWithWall(func() time.Time { return time.Unix(-10, 0) }, time.Hour)
	if ms, mono := c.MillisMono(); ms != 0 || mono <= 0 {
		t.Fatalf("MillisMono before 1970 = %d, %d; want 0 and a positive reading", ms, mono)
	}
}
