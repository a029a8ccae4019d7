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
	if v, _, err := Scan64([]byte{0, 0, 0, 0, 0, 0, 0, 9}, true, 12, text64, 100); err != nil || v != 9 {
		t.Fatal("8 bytes as []byte are the binary form")
	}
	if _, _, err := Scan64([]byte{1, 0, 0, 0, 0, 0, 0, 9}, true, 12, text64, 100); !errors.Is(err, ErrOutOfRange) {
		t.Fatal("8 bytes above max")
	}
	if v, _, err := Scan64([]byte("12345678"), false, 12, text64, 1e9); err != nil || v != 12345678 {
		t.Fatal("8 bytes as a string are decimal")
	}
	if v, _, _ := Scan64([]byte("123456789012"), false, 12, text64, 1e15); v != 7 {
		t.Fatal("the text length goes to the text decoder")
	}
}
