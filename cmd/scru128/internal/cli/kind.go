//go:build (unix && !aix) || windows

package cli

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"time"
)

// idKind is what the commands do with one format's ID type, whatever that
// type is. kind128 and kind64 make one from the functions of the format's
// package.
type idKind interface {
	// read parses an ID's text and describes it.
	read(text string) (description, error)
	// readBytes describes the ID made of the 16 bytes a UUID or hex input
	// gave; a 64-bit format returns errNot128.
	readBytes(raw [16]byte) (description, error)
	// newMinter returns the minter behind gen.
	newMinter(o mintOptions) (minter, error)
	// parseOp and encodeOp return bench's operations on the ID in text,
	// which must be valid: parsing it (a different result is an error),
	// and appending it as text to a reused buffer, which makes encodeOp's
	// operation one goroutine's.
	parseOp(text string) func() error
	encodeOp(text string) func() error
}

// textID is what every format's ID type has.
type textID interface {
	comparable
	AppendText(b []byte) ([]byte, error)
	String() string
	Timestamp() uint64 // in the format's own unit
	Time() time.Time
}

// kind is the idKind of the ID type T.
type kind[T textID] struct {
	parse func(string) (T, error)
	// describe returns inspect's description of an ID: the fields of its
	// format's own. kind fills in its text, timestamp and time and, for a
	// 128-bit ID, its bytes and UUID; inspect adds the format's name.
	describe func(T) description
	// mint returns gen's minter without its encoder, which kind adds.
	mint func(mintOptions) (*idMinter[T], error)
	// appendBytes appends an ID's bytes, big-endian, for -hex; toUUID and
	// fromUUID convert a 128-bit ID and are nil for a 64-bit one.
	appendBytes func(b []byte, id T) []byte
	toUUID      func(T) [16]byte
	fromUUID    func([16]byte) T
}

// id128 is an ID type of a 128-bit format.
type id128 interface {
	textID
	~[16]byte
}

// id64 is an ID type of a 64-bit format.
type id64 interface {
	textID
	~uint64 | ~int64
}

// kind128 returns the idKind of a 128-bit format, whose bytes are a UUID.
func kind128[T id128](parse func(string) (T, error), mint func(mintOptions) (*idMinter[T], error), describe func(T) description) idKind {
	return &kind[T]{
		parse: parse, mint: mint, describe: describe,
		appendBytes: func(b []byte, id T) []byte { return append(b, id[:]...) },
		toUUID:      func(id T) [16]byte { return id },
		fromUUID:    func(b [16]byte) T { return b },
	}
}

// kind64 returns the idKind of a 64-bit format, whose bytes are its
// integer value, big-endian.
func kind64[T id64](parse func(string) (T, error), mint func(mintOptions) (*idMinter[T], error), describe func(T) description) idKind {
	return &kind[T]{
		parse: parse, mint: mint, describe: describe,
		appendBytes: func(b []byte, id T) []byte { return binary.BigEndian.AppendUint64(b, uint64(id)) },
	}
}

func (k *kind[T]) read(text string) (description, error) {
	id, err := k.parse(text)
	if err != nil {
		return description{}, err
	}
	return k.full(id), nil
}

// errNot128 rejects a UUID or 32 hex digits for a 64-bit format.
var errNot128 = errors.New("a UUID or 32 hex digits holds 128 bits; this format has 64")

func (k *kind[T]) readBytes(raw [16]byte) (description, error) {
	if k.fromUUID == nil {
		return description{}, errNot128
	}
	return k.full(k.fromUUID(raw)), nil
}

// full is describe with the fields every ID has.
func (k *kind[T]) full(id T) description {
	d := k.describe(id)
	d.text, d.timestamp, d.time = id.String(), id.Timestamp(), id.Time()
	if k.toUUID != nil {
		uuid := k.toUUID(id)
		d.hex, d.uuid = uuid[:], &uuid
	}
	return d
}

func (k *kind[T]) newMinter(o mintOptions) (minter, error) {
	m, err := k.mint(o)
	if err != nil {
		return nil, err
	}
	m.encode = k.encoder(o.out)
	return m, nil
}

func (k *kind[T]) parseOp(text string) func() error {
	want, _ := k.parse(text)
	return func() error {
		id, err := k.parse(text)
		if err == nil && id != want {
			err = errMismatch
		}
		return err
	}
}

// errMismatch is bench's error for a parse that returned another ID.
var errMismatch = errors.New("parsed to another ID")

func (k *kind[T]) encodeOp(text string) func() error {
	id, _ := k.parse(text)
	buf := make([]byte, 0, 64)
	return func() error {
		var err error
		buf, err = id.AppendText(buf[:0])
		return err
	}
}

// description is what inspect prints of an ID: one JSON object whose
// fields come in this order: format, text, lead, timestamp, time, own,
// hex, uuid (for 128-bit formats) and unixMs. Each name is written once,
// in description.appendJSON or in the format's describe.
type description struct {
	format    string
	text      string
	lead      []field // the format's fields that come before its timestamp
	timestamp uint64
	time      time.Time
	own       []field
	hex       []byte // the ID's bytes, if the format prints them
	uuid      *[16]byte
}

// field is a field of a format's own in a description.
type field struct {
	name  string
	value any // a string or an integer
}

// appendJSON appends d as one line of JSON, its times in loc.
func (d *description) appendJSON(b []byte, loc *time.Location) ([]byte, error) {
	fields := make([]field, 0, 8+len(d.lead)+len(d.own))
	fields = append(fields, field{"format", d.format}, field{"text", d.text})
	fields = append(fields, d.lead...)
	fields = append(fields, field{"timestamp", d.timestamp}, field{"time", formatTime(d.time, loc)})
	fields = append(fields, d.own...)
	if d.hex != nil {
		fields = append(fields, field{"hex", hexString(d.hex)})
	}
	if d.uuid != nil {
		fields = append(fields, field{"uuid", uuidString(*d.uuid)})
	}
	fields = append(fields, field{"unixMs", d.time.UnixMilli()})
	b = append(b, '{')
	for i, f := range fields {
		if i > 0 {
			b = append(b, ',')
		}
		value, err := json.Marshal(f.value)
		if err != nil {
			return b, err
		}
		b = append(b, '"')
		b = append(b, f.name...) // names are plain identifiers: nothing to escape
		b = append(b, '"', ':')
		b = append(b, value...)
	}
	return append(b, "}\n"...), nil
}
