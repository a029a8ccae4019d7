//go:build go1.27

package bench

import (
	"time"
	"uuid"
)

// sinkStdUUID keeps the standard library's UUIDs alive.
var sinkStdUUID uuid.UUID

// stdlibLibs are the rows of the standard library's uuid package (Go
// 1.27): NewV7, one process-wide stream under a mutex, and New, version 4.
func stdlibLibs() []Lib {
	u := uuid.MustParse("01927e3a-7b39-7c1e-8a6f-2d1b0e9c4f5a")
	text := u.String()
	return []Lib{
		{
			Name:       "stdlib-uuidv7",
			Mint:       func() { sinkStdUUID = uuid.NewV7() },
			MintString: func() string { return uuid.NewV7().String() },
			MintAppend: func(dst []byte) []byte { dst, _ = uuid.NewV7().AppendText(dst); return dst },
			Encode:     func(dst []byte) []byte { dst, _ = u.AppendText(dst); return dst },
			String:     u.String,
			Parse:      func() (err error) { sinkStdUUID, err = uuid.Parse(text); return err },
			Note:       "Go 1.27's uuid: NewV7 (one stream under a mutex); AppendText; Parse",
			Sample:     func() ([]byte, string) { id := uuid.NewV7(); return id[:], id.String() },
			Props: Props{Ordered: true, Resolution: time.Millisecond, TextLen: 36,
				Random: "62 per ID; a sub-ms time in rand_a", Version: true, SortBytes: true, SortText: true},
		},
		{
			Name:       "stdlib-uuidv4",
			Mint:       func() { sinkStdUUID = uuid.New() },
			MintString: func() string { return uuid.New().String() },
			MintAppend: func(dst []byte) []byte { dst, _ = uuid.New().AppendText(dst); return dst },
			Note:       "Go 1.27's uuid: New (version 4); same codec as stdlib-uuidv7",
			Sample:     func() ([]byte, string) { id := uuid.New(); return id[:], id.String() },
			Props:      uuidV4Props,
		},
	}
}
