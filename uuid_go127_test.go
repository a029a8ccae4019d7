//go:build go1.27

package scru128_test

import (
	"fmt"
	"testing"
	"time"
	"uuid"

	"github.com/fastid/scru128"
	"github.com/fastid/scru128/legacy"
	"github.com/fastid/scru128/ulid"
)

// TestStandardUUIDConversions pins what docs/migrating.md says of Go 1.27's
// uuid package: an ID and a uuid.UUID convert both ways without copying or
// checking, the two order the same 16 bytes the same way, Scan reads the
// standard package's text, and the 48-bit millisecond timestamp both
// formats begin with survives the conversion.
func TestStandardUUIDConversions(t *testing.T) {
	id := scru128.MustParse("0372hg16csmsm50l8dikcvukc")
	u := uuid.UUID(id)
	if [16]byte(u) != [16]byte(id) || scru128.ID(u) != id || scru128.FromUUID(u) != id || uuid.UUID(id.UUID()) != u {
		t.Fatalf("conversions changed the bytes: %v, %v", u, scru128.ID(u))
	}
	if got := u.String(); got != "017fee7f-ef41-7e2b-3432-ac2ec553687c" || len(got) != 36 || len(id.String()) != 25 {
		t.Errorf("uuid text %q, ID text %q", got, id)
	}
	var scanned scru128.ID
	if err := scanned.Scan(u.String()); err != nil || scanned != id {
		t.Errorf("Scan(uuid.UUID's text) = %v, %v", scanned, err)
	}
	back, err := uuid.Parse(fmt.Sprintf("%x", id))
	if err != nil || back != u {
		t.Errorf("uuid.Parse of the ID's hex = %v, %v", back, err)
	}

	// The same order: both compare the 16 bytes big-endian.
	ids := make([]scru128.ID, 200)
	for i := range ids {
		ids[i] = scru128.NewUnordered()
	}
	for i := 1; i < len(ids); i++ {
		a, b := ids[i-1], ids[i]
		if a.Compare(b) != uuid.UUID(a).Compare(uuid.UUID(b)) {
			t.Fatalf("%v and %v compare otherwise as uuid.UUID", a, b)
		}
	}

	// A version 7 UUID read as an ID keeps its time; an ID read as a
	// uuid.UUID has whatever bits its counters put where RFC 9562 has its
	// version and variant.
	before := time.Now().UnixMilli()
	v7 := uuid.NewV7()
	after := time.Now().UnixMilli()
	if ts := int64(scru128.ID(v7).Timestamp()); ts < before || ts > after {
		t.Errorf("scru128.ID(uuid.NewV7()).Timestamp() = %d, want between %d and %d", ts, before, after)
	}
	if ts := int64(ulid.ULID(v7).Timestamp()); ts < before || ts > after {
		t.Errorf("ulid.ULID(uuid.NewV7()).Timestamp() = %d", ts)
	}
	if u[6]>>4 == 7 && u[8]>>6 == 0b10 {
		t.Errorf("%v happens to carry version 7 bits; pick another example", u)
	}

	// ulid and legacy convert the same way.
	ul := ulid.MustParse("01ARZ3NDEKTSV4RRFFQ69G5FAV")
	if ulid.ULID(uuid.UUID(ul)) != ul || ulid.FromUUID(uuid.UUID(ul)) != ul {
		t.Error("ulid.ULID does not round-trip through uuid.UUID")
	}
	l := legacy.MustParse("00PGHAJ3Q9VAJ7IU6PQBHBUAK4")
	if legacy.ID(uuid.UUID(l)) != l || legacy.FromUUID(uuid.UUID(l)) != l {
		t.Error("legacy.ID does not round-trip through uuid.UUID")
	}
}

func ExampleID_standardUUID() {
	id := scru128.MustParse("0372hg16csmsm50l8dikcvukc")
	u := uuid.UUID(id) // the same 16 bytes; scru128.ID(u) converts back
	fmt.Println(u, scru128.ID(u) == id)

	// A version 7 UUID read as an ID keeps its millisecond timestamp.
	v7 := uuid.MustParse("01927e3a-7b39-7c1e-8a6f-2d1b0e9c4f5a")
	fmt.Println(scru128.ID(v7).Time())
	// Output:
	// 017fee7f-ef41-7e2b-3432-ac2ec553687c true
	// 2024-10-12 00:56:54.841 +0000 UTC
}
