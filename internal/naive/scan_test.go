package naive

import (
	"errors"
	"testing"
)

func TestDecodeUUID(t *testing.T) {
	want := [16]byte{0x01, 0xa2, 0x0a, 0xe5, 0xcd, 0x8b, 0xec, 0x48, 0x3d, 0xa7, 0x86, 0xbb, 0xd7, 0x9a, 0x5a, 0x50}
	for _, s := range []string{"01a20ae5-cd8b-ec48-3da7-86bbd79a5a50", "01A20AE5CD8BEC483DA786BBD79A5A50"} {
		if u, _, err := DecodeUUID([]byte(s)); err != nil || u != want {
			t.Errorf("%s: %x, %v", s, u, err)
		}
	}
	for _, tc := range []struct {
		s      string
		offset int
		err    error
	}{
		{"01a20ae5-cd8b-ec48-3da7-86bbd79a5a5g", 35, ErrInvalidCharacter},
		{"01a20ae5cd8b-ec48-3da7-86bbd79a5a50-", 8, ErrInvalidCharacter},
		{"01a20ae5cd8bec483da786bbd79a5a5-", 31, ErrInvalidCharacter},
		{"01a20ae5", -1, ErrInvalidLength},
	} {
		if _, offset, err := DecodeUUID([]byte(tc.s)); offset != tc.offset || !errors.Is(err, tc.err) {
			t.Errorf("%s: %d, %v", tc.s, offset, err)
		}
	}
}

func TestDecodeDecimal(t *testing.T) {
	if v, _, err := DecodeDecimal([]byte("0018446744073709551615"), 1<<64-1); err != nil || v != 1<<64-1 {
		t.Fatalf("max uint64: %d, %v", v, err)
	}
	for _, tc := range []struct {
		s      string
		offset int
		err    error
	}{{"", -1, ErrInvalidLength}, {"12a", 2, ErrInvalidCharacter}, {"101", -1, ErrOutOfRange}, {"99999999999999999999999", -1, ErrOutOfRange}} {
		if _, offset, err := DecodeDecimal([]byte(tc.s), 100); offset != tc.offset || !errors.Is(err, tc.err) {
			t.Errorf("%q: %d, %v", tc.s, offset, err)
		}
	}
}

func TestScanRules(t *testing.T) {
	text := func([]byte) ([16]byte, int, error) { return [16]byte{1}, -1, nil }
	raw := make([]byte, 16)
	if u, _, err := Scan128(raw, true, 25, text); err != nil || u != [16]byte{} {
		t.Fatal("16 bytes as []byte are the raw form")
	}
	if _, _, err := Scan128(raw, false, 25, text); !errors.Is(err, ErrInvalidLength) {
		t.Fatal("16 bytes as a string are not a form")
	}
	if u, _, _ := Scan128(make([]byte, 25), false, 25, text); u != [16]byte{1} {
		t.Fatal("the text length goes to the text decoder")
	}
	text64 := func([]byte) (uint64, int, error) { return 7, -1, nil }
	if v, _, err := Scan64([]byte{0, 0, 0, 0, 0, 0, 0, 9}, true, 12, text64, 100, false); err != nil || v != 9 {
		t.Fatal("8 bytes as []byte are the binary form")
	}
	if _, _, err := Scan64([]byte{1, 0, 0, 0, 0, 0, 0, 9}, true, 12, text64, 100, false); !errors.Is(err, ErrOutOfRange) {
		t.Fatal("8 bytes above max")
	}
	if v, _, err := Scan64([]byte("12345678"), false, 12, text64, 1e9, false); err != nil || v != 12345678 {
		t.Fatal("8 bytes as a string are decimal")
	}
	if v, _, _ := Scan64([]byte("12345678901a"), false, 12, text64, 1e15, false); v != 7 {
		t.Fatal("the text length goes to the text decoder")
	}
	// All digits: a second reading, as decimal text.
	var amb *AmbiguousError
	if _, _, err := Scan64([]byte("123456789012"), false, 12, text64, 1e15, false); !errors.As(err, &amb) ||
		*amb != (AmbiguousError{false, 7, 123456789012}) {
		t.Fatalf("text and decimal readings that differ: %v", err)
	}
	if v, _, err := Scan64([]byte("123456789012"), false, 12, text64, 1e15, true); err != nil || v != 7 {
		t.Fatal("textDecides: the text length is the text form alone")
	}
	if _, _, err := Scan64([]byte("12345678"), true, 12, text64, 1<<63, false); !errors.As(err, &amb) ||
		*amb != (AmbiguousError{true, 0x3132333435363738, 12345678}) {
		t.Fatalf("binary and decimal readings that differ: %v", err)
	}
	if v, _, err := Scan64([]byte("12345678"), true, 12, text64, 1e9, false); err != nil || v != 12345678 {
		t.Fatal("8 digits whose binary reading is above max are decimal")
	}
	seven := func([]byte) (uint64, int, error) { return 7, -1, nil }
	if v, _, err := Scan64([]byte("000000000007"), false, 12, seven, 1e15, false); err != nil || v != 7 {
		t.Fatal("readings that agree")
	}
	bad := func([]byte) (uint64, int, error) { return 0, -1, ErrOutOfRange }
	if v, _, err := Scan64([]byte("900000000000"), false, 12, bad, 1e15, false); err != nil || v != 9e11 {
		t.Fatal("a text reading that is no ID leaves the decimal one")
	}
	if _, _, err := Scan64([]byte("900000000000"), false, 12, bad, 1e5, false); !errors.Is(err, ErrOutOfRange) {
		t.Fatal("neither reading an ID: the text reading's error")
	}
}
