package integration

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fastid/scru128"
	"github.com/fastid/scru128/scru64"
	"github.com/fastid/scru128/ulid"
)

// sqlFunctionsFile is the file users run to install the SQL functions.
const sqlFunctionsFile = "../postgres/scru128.sql"

// sqlFunctions is the SQL file installed in a schema of its own on the test
// server.
type sqlFunctions struct {
	schema string
	config *pgx.ConnConfig // connects with the schema alone on the search_path
}

// installSQLFunctions runs sqlFunctionsFile in a new schema, which it drops
// when the test ends.
func installSQLFunctions(t *testing.T) sqlFunctions {
	t.Helper()
	config, err := pgx.ParseConfig(postgresDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	f := sqlFunctions{schema: "sqlfunc_" + strconv.FormatUint(mrand.Uint64(), 36), config: config.Copy()}
	f.config.RuntimeParams["search_path"] = f.schema
	admin := connectConfig(t, config)
	if _, err := admin.Exec(context.Background(), "CREATE SCHEMA "+f.schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(context.Background(), "DROP SCHEMA "+f.schema+" CASCADE"); err != nil {
			t.Errorf("dropping the test schema: %v", err)
		}
	})
	f.run(t, f.connect(t))
	return f
}

// run executes sqlFunctionsFile on conn, as psql -f would, but in one
// simple-protocol message.
func (f sqlFunctions) run(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	script, err := os.ReadFile(sqlFunctionsFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(context.Background(), string(script)); err != nil {
		t.Fatalf("running %s: %v", sqlFunctionsFile, err)
	}
}

// connect opens a new session with the functions' schema on its
// search_path, closed when the test ends.
func (f sqlFunctions) connect(t *testing.T) *pgx.Conn {
	t.Helper()
	return connectConfig(t, f.config)
}

func connectConfig(t *testing.T, config *pgx.ConnConfig) *pgx.Conn {
	t.Helper()
	conn, err := pgx.ConnectConfig(context.Background(), config)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// pgError returns err's SQLSTATE and message, or fails the test if err is
// not an error from the server.
func pgError(t *testing.T, err error) (code, message string) {
	t.Helper()
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		t.Fatalf("not a PostgreSQL error: %v", err)
	}
	return pe.Code, pe.Message
}

// TestSQLFunctionsInstall checks the file's promises about itself: it runs
// again over an earlier run, with psql as the header says; it declares each
// function IMMUTABLE, STRICT and PARALLEL SAFE where that is true; none
// runs as its owner, and it makes no table or sequence.
func TestSQLFunctionsInstall(t *testing.T) {
	f := installSQLFunctions(t)
	conn := f.connect(t)
	f.run(t, conn) // again, over the first run

	if psql, err := exec.LookPath("psql"); err != nil {
		t.Log("psql not found; the file was run through pgx only")
	} else {
		for range 2 {
			cmd := exec.Command(psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", sqlFunctionsFile, f.config.ConnString())
			cmd.Env = append(os.Environ(), "PGOPTIONS=-c search_path="+f.schema)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("psql -f %s: %v\n%s", sqlFunctionsFile, err, out)
			}
		}
	}

	// volatility, strictness, parallel safety, as pg_proc spells them
	want := map[string]string{
		"scru128_to_text(uuid)":                    "i s s",
		"scru128_from_text(text)":                  "i s s",
		"scru128_time(uuid)":                       "i s s",
		"scru128_min_at(timestamp with time zone)": "i s s",
		"scru128_max_at(timestamp with time zone)": "i s s",
		"scru128_generate()":                       "v - u",
		"ulid_to_text(uuid)":                       "i s s",
		"ulid_from_text(text)":                     "i s s",
		"ulid_time(uuid)":                          "i s s",
		"ulid_min_at(timestamp with time zone)":    "i s s",
		"ulid_max_at(timestamp with time zone)":    "i s s",
		"scru64_to_text(bigint)":                   "i s s",
		"scru64_from_text(text)":                   "i s s",
		"scru64_time(bigint)":                      "i s s",
		"scru64_min_at(timestamp with time zone)":  "i s s",
		"scru64_max_at(timestamp with time zone)":  "i s s",
	}
	rows, err := conn.Query(context.Background(), `
		SELECT p.oid::regprocedure::text, p.provolatile::text || ' ' || CASE WHEN p.proisstrict THEN 's' ELSE '-' END || ' ' || p.proparallel::text
		FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname = $1`, f.schema)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) ([2]string, error) {
		var r [2]string
		return r, row.Scan(&r[0], &r[1])
	})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range got {
		signature := strings.TrimPrefix(r[0], f.schema+".")
		seen[signature] = true
		if w, ok := want[signature]; !ok {
			t.Errorf("%s: not expected", signature)
		} else if r[1] != w {
			t.Errorf("%s: volatility, strictness, parallel safety %q, want %q", signature, r[1], w)
		}
	}
	for signature := range want {
		if !seen[signature] {
			t.Errorf("%s: missing", signature)
		}
	}

	// No function runs as its owner, and none carries settings of its own
	// (a SET clause, which costs every call); the file makes no relation.
	var definers, configured []string
	if err := conn.QueryRow(context.Background(), `
		SELECT coalesce(array_agg(p.proname::text) FILTER (WHERE p.prosecdef), '{}'),
		       coalesce(array_agg(p.proname::text) FILTER (WHERE p.proconfig IS NOT NULL), '{}')
		FROM pg_proc p WHERE p.pronamespace = $1::regnamespace`, f.schema).Scan(&definers, &configured); err != nil {
		t.Fatal(err)
	}
	if len(definers) != 0 || len(configured) != 0 {
		t.Errorf("SECURITY DEFINER: %v; with settings: %v", definers, configured)
	}
	var relations int
	if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM pg_class WHERE relnamespace = $1::regnamespace", f.schema).Scan(&relations); err != nil {
		t.Fatal(err)
	}
	if relations != 0 {
		t.Errorf("%d relations in the schema, want none", relations)
	}
}

// TestSQLFunctionsNull checks that NULL in gives NULL out.
func TestSQLFunctionsNull(t *testing.T) {
	conn := installSQLFunctions(t).connect(t)
	for _, call := range []string{
		"scru128_to_text(NULL)", "scru128_from_text(NULL)", "scru128_time(NULL)",
		"scru128_min_at(NULL)", "scru128_max_at(NULL)",
		"ulid_to_text(NULL)", "ulid_from_text(NULL)", "ulid_time(NULL)",
		"ulid_min_at(NULL)", "ulid_max_at(NULL)",
		"scru64_to_text(NULL)", "scru64_from_text(NULL)", "scru64_time(NULL)",
		"scru64_min_at(NULL)", "scru64_max_at(NULL)",
	} {
		var isNull bool
		if err := conn.QueryRow(context.Background(), "SELECT "+call+" IS NULL").Scan(&isNull); err != nil {
			t.Errorf("%s: %v", call, err)
		} else if !isNull {
			t.Errorf("%s is not NULL", call)
		}
	}
}

// TestSQLFunctionsSearchPath calls the functions by qualified name from a
// session whose search_path does not hold their schema.
func TestSQLFunctionsSearchPath(t *testing.T) {
	f := installSQLFunctions(t)
	config := f.config.Copy()
	config.RuntimeParams["search_path"] = "pg_catalog"
	conn := connectConfig(t, config)
	q := fmt.Sprintf(`SELECT %[1]s.scru128_to_text(%[1]s.scru128_from_text('0372hg16csmsm50l8dikcvukc')),
		%[1]s.scru128_time(%[1]s.scru128_generate()) IS NOT NULL,
		%[1]s.ulid_to_text(%[1]s.ulid_from_text('01ARZ3NDEKTSV4RRFFQ69G5FAV')),
		%[1]s.scru64_to_text(%[1]s.scru64_from_text('0u375nxqh5cq'))`, f.schema)
	var text128, textULID, text64 string
	var minted bool
	if err := conn.QueryRow(context.Background(), q).Scan(&text128, &minted, &textULID, &text64); err != nil {
		t.Fatal(err)
	}
	if text128 != "0372hg16csmsm50l8dikcvukc" || !minted || textULID != "01ARZ3NDEKTSV4RRFFQ69G5FAV" || text64 != "0u375nxqh5cq" {
		t.Errorf("got %q, %v, %q, %q", text128, minted, textULID, text64)
	}
}

// parsed is what a parser made of a text: the value, in the text form
// PostgreSQL gives its uuid or bigint, or what was wrong with it.
type parsed struct {
	value  string
	err    string // "", "length", "character" or "range"
	offset int    // of the bad byte, for "character"
}

// funcFormat is one format as its SQL functions and its Go package see it.
type funcFormat struct {
	name   string // the SQL functions' prefix
	corpus string // the Go parser's fuzz corpus
	size   int    // bytes of text
	digits string // as the encoder writes them
	max    string // the largest ID's text
	// parse is the Go parser.
	parse func(s string) parsed
	// text and time are the Go encoder and Time of a value as parsed.value
	// spells it.
	text func(value string) string
	time func(value string) time.Time
	// random returns a random value, uniform over the format's range.
	random func(r *mrand.Rand) string
	// edges are values at the ends of the range and of its fields, and at
	// the boundaries of the digits and of the machine words inside.
	edges []string
	// minAt and maxAt are the Go range bounds, as values.
	minAt, maxAt func(time.Time) (string, error)
}

var funcFormats = []funcFormat{scru128SQL, ulidSQL, scru64SQL}

// uuidText spells 16 bytes as PostgreSQL prints a uuid.
func uuidText(b [16]byte) string {
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// uuidBytes is the inverse of uuidText.
func uuidBytes(s string) [16]byte {
	var b [16]byte
	if _, err := hex.Decode(b[:], []byte(strings.ReplaceAll(s, "-", ""))); err != nil {
		panic(err)
	}
	return b
}

// parseError classifies a Go parser's error by the package's sentinels and
// character error type.
func parseError[E interface {
	*C
	error
}, C any](err, length, char, outOfRange error, offset func(E) int) parsed {
	var ce E
	switch {
	case err == nil:
		return parsed{}
	case errors.Is(err, length):
		return parsed{err: "length"}
	case errors.As(err, &ce) && errors.Is(err, char):
		return parsed{err: "character", offset: offset(ce)}
	case outOfRange != nil && errors.Is(err, outOfRange):
		return parsed{err: "range"}
	}
	panic(fmt.Sprintf("unclassified parse error %v", err))
}

// edges128 are 128-bit values around the powers of 2 and of 36, and the
// test vectors of the specifications.
func edges128(vectors ...string) []string {
	var out []string
	pow := func(base, k int) (v [16]byte) {
		// v = base^k below 2^128, by repeated multiplication on bytes
		v[15] = 1
		for range k {
			carry := 0
			for i := 15; i >= 0; i-- {
				x := int(v[i])*base + carry
				v[i], carry = byte(x), x>>8
			}
		}
		return v
	}
	minusOne := func(v [16]byte) [16]byte {
		for i := 15; i >= 0; i-- {
			v[i]--
			if v[i] != 0xff {
				break
			}
		}
		return v
	}
	for k := range 128 {
		out = append(out, uuidText(pow(2, k)), uuidText(minusOne(pow(2, k))))
	}
	for k := range 25 { // 36^24 < 2^128 < 36^25
		out = append(out, uuidText(pow(36, k)), uuidText(minusOne(pow(36, k))))
	}
	var zero, max [16]byte
	for i := range max {
		max[i] = 0xff
	}
	return append(append(out, uuidText(zero), uuidText(max)), vectors...)
}

var scru128SQL = funcFormat{
	name: "scru128", corpus: "FuzzParse", size: 25,
	digits: "0123456789abcdefghijklmnopqrstuvwxyz", max: "f5lxx1zz5pnorynqglhzmsp33",
	parse: func(s string) parsed {
		id, err := scru128.Parse(s)
		if err != nil {
			return parseError(err, scru128.ErrInvalidLength, scru128.ErrInvalidCharacter, scru128.ErrOutOfRange,
				func(e *scru128.InvalidCharacterError) int { return e.Offset })
		}
		return parsed{value: uuidText(id)}
	},
	text: func(v string) string { return scru128.ID(uuidBytes(v)).String() },
	time: func(v string) time.Time { return scru128.ID(uuidBytes(v)).Time() },
	random: func(r *mrand.Rand) string {
		var b [16]byte
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return uuidText(b)
	},
	edges: edges128(
		// the specification's test vectors, and each field at its maximum
		"017fee7f-ef41-7e2b-3432-ac2ec553687c", "017fee7f-ef42-7e2b-346c-0ff414bbcffd",
		"017fef39-c264-1ba5-6a94-83188841e05a",
		"ffffffff-ffff-0000-0000-000000000000", "00000000-0000-ffff-ff00-000000000000",
		"00000000-0000-0000-00ff-ffff00000000", "00000000-0000-0000-0000-0000ffffffff",
	),
	minAt: func(t time.Time) (string, error) { id, err := scru128.MinAtTime(t); return uuidText(id), err },
	maxAt: func(t time.Time) (string, error) { id, err := scru128.MaxAtTime(t); return uuidText(id), err },
}

var ulidSQL = funcFormat{
	name: "ulid", corpus: "FuzzULIDParse", size: 26,
	digits: "0123456789ABCDEFGHJKMNPQRSTVWXYZ", max: "7ZZZZZZZZZZZZZZZZZZZZZZZZZ",
	parse: func(s string) parsed {
		id, err := ulid.Parse(s)
		if err != nil {
			return parseError(err, ulid.ErrInvalidLength, ulid.ErrInvalidCharacter, ulid.ErrOutOfRange,
				func(e *ulid.InvalidCharacterError) int { return e.Offset })
		}
		return parsed{value: uuidText(id)}
	},
	text:   func(v string) string { return ulid.ULID(uuidBytes(v)).String() },
	time:   func(v string) time.Time { return ulid.ULID(uuidBytes(v)).Time() },
	random: scru128SQL.random,
	edges:  edges128("01563e3a-b5d3-d676-4c61-efb99302bd5b"), // 01ARZ3NDEKTSV4RRFFQ69G5FAV
	minAt:  func(t time.Time) (string, error) { id, err := ulid.MinAtTime(t); return uuidText(id), err },
	maxAt:  func(t time.Time) (string, error) { id, err := ulid.MaxAtTime(t); return uuidText(id), err },
}

var scru64SQL = funcFormat{
	name: "scru64", corpus: "FuzzSCRU64Parse", size: 12,
	digits: "0123456789abcdefghijklmnopqrstuvwxyz", max: "zzzzzzzzzzzz",
	parse: func(s string) parsed {
		id, err := scru64.Parse(s)
		if err != nil {
			return parseError(err, scru64.ErrInvalidLength, scru64.ErrInvalidCharacter, nil,
				func(e *scru64.InvalidCharacterError) int { return e.Offset })
		}
		return parsed{value: strconv.FormatInt(id.Int64(), 10)}
	},
	text: func(v string) string { return scru64ID(v).String() },
	time: func(v string) time.Time { return scru64ID(v).Time() },
	random: func(r *mrand.Rand) string {
		return strconv.FormatUint(r.Uint64N(uint64(scru64.Max)+1), 10)
	},
	edges: func() []string {
		out := []string{"0", "16777215", "4738381338304839680", "110009624767914842", strconv.FormatUint(uint64(scru64.Max), 10)}
		for k, p := 0, int64(1); k <= 12; k, p = k+1, p*36 {
			out = append(out, strconv.FormatInt(p-1, 10))
			if k < 12 {
				out = append(out, strconv.FormatInt(p, 10))
			}
		}
		for k := range 62 {
			out = append(out, strconv.FormatInt(1<<k, 10), strconv.FormatInt(1<<k-1, 10))
		}
		return out
	}(),
	minAt: func(t time.Time) (string, error) {
		id, err := scru64.MinAtTime(t)
		return strconv.FormatInt(id.Int64(), 10), err
	},
	maxAt: func(t time.Time) (string, error) {
		id, err := scru64.MaxAtTime(t)
		return strconv.FormatInt(id.Int64(), 10), err
	},
}

// scru64ID returns the ID of a decimal value.
func scru64ID(v string) scru64.ID {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		panic(err)
	}
	id, err := scru64.FromInt64(n)
	if err != nil {
		panic(err)
	}
	return id
}

// sqlType is the column type that stores f's IDs.
func (f funcFormat) sqlType() string {
	if f.name == "scru64" {
		return "bigint"
	}
	return "uuid"
}

// randomCase changes the case of the letters of s at random.
func randomCase(r *mrand.Rand, s string) string {
	b := []byte(s)
	for i, c := range b {
		if r.IntN(2) == 0 {
			b[i] = byte(strings.ToUpper(string(c))[0])
		} else {
			b[i] = byte(strings.ToLower(string(c))[0])
		}
	}
	return string(b)
}

// TestSQLConversions converts 100,000 random IDs of each format and the
// edge values both ways in SQL and compares the results with the Go
// package's: the text of each value, and the value of the text in a random
// mix of cases.
func TestSQLConversions(t *testing.T) {
	conn := installSQLFunctions(t).connect(t)
	seed := mrand.Uint64()
	t.Logf("seed %d", seed)
	r := mrand.New(mrand.NewPCG(seed, 0))
	for _, f := range funcFormats {
		t.Run(f.name, func(t *testing.T) {
			values := append([]string(nil), f.edges...)
			for range 100_000 {
				values = append(values, f.random(r))
			}
			texts := make([]string, len(values))
			for i, v := range values {
				texts[i] = randomCase(r, f.text(v))
			}
			rows, err := conn.Query(context.Background(), fmt.Sprintf(`
				SELECT %[1]s_to_text(v), %[1]s_from_text(s)::text
				FROM unnest($1::text[]::%[2]s[], $2::text[]) WITH ORDINALITY AS x(v, s, n)
				ORDER BY n`, f.name, f.sqlType()), values, texts)
			if err != nil {
				t.Fatal(err)
			}
			i, failures := 0, 0
			for rows.Next() {
				var text, value string
				if err := rows.Scan(&text, &value); err != nil {
					t.Fatal(err)
				}
				if want := f.text(values[i]); text != want && failures < 10 {
					failures++
					t.Errorf("%s_to_text(%s) = %q, want %q", f.name, values[i], text, want)
				}
				if value != values[i] && failures < 10 {
					failures++
					t.Errorf("%s_from_text(%q) = %s, want %s", f.name, texts[i], value, values[i])
				}
				i++
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if i != len(values) {
				t.Fatalf("%d rows, want %d", i, len(values))
			}
		})
	}
}

// corpusStrings returns the inputs of a fuzz corpus of the root module: one
// quoted string or byte slice per file after the header line.
func corpusStrings(t *testing.T, name string) []string {
	t.Helper()
	dir := filepath.Join("..", "fuzz", "testdata", "fuzz", name)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	entry := regexp.MustCompile(`^(?:\[\]byte|string)\((".*")\)$`)
	var out []string
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) != 2 || lines[0] != "go test fuzz v1" {
			t.Fatalf("%s: not a corpus entry of one input", e.Name())
		}
		m := entry.FindStringSubmatch(lines[1])
		if m == nil {
			t.Fatalf("%s: cannot read %q", e.Name(), lines[1])
		}
		s, err := strconv.Unquote(m[1])
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		t.Fatalf("%s: empty corpus", dir)
	}
	return out
}

// hostile returns texts that test a parser's edges: f's corpus; wrong
// lengths; every byte value in the first, a middle and the last place of a
// valid text; multi-byte characters, which change the length in bytes or
// keep it; and texts just above the largest value, one digit up at each
// place.
func (f funcFormat) hostile(t *testing.T, r *mrand.Rand) []string {
	out := corpusStrings(t, f.corpus)
	valid := f.text(f.random(r))
	for n := range 2*f.size + 2 {
		out = append(out, strings.Repeat("0", n), strings.Repeat(f.digits[len(f.digits)-1:], n))
	}
	out = append(out, valid[:f.size-1], valid+"0", " "+valid, valid+" ", valid+"\n", strings.ToLower(f.max), strings.ToUpper(f.max))
	for c := range 256 {
		for _, at := range []int{0, f.size / 2, f.size - 1} {
			out = append(out, valid[:at]+string([]byte{byte(c)})+valid[at+1:])
		}
	}
	for _, mb := range []string{"é", "€", "😀", "\u00a0", "Ａ", "٣"} {
		out = append(out,
			valid[:3]+mb+valid[3+len(mb):], // the same length in bytes
			valid[:3]+mb+valid[4:],         // the same length in characters
			mb+valid[len(mb):],
			valid[:f.size-len(mb)]+mb,
		)
	}
	for at := range f.size {
		if i := strings.IndexByte(f.digits, f.max[at]); i >= 0 && i+1 < len(f.digits) {
			out = append(out, f.max[:at]+f.digits[i+1:i+2]+f.max[at+1:])
		}
	}
	return out
}

// sqlParse is what the SQL parser made of s, read from its error: the
// length it names, or the offset of the bad byte, or that the value is out
// of range, all raised as invalid_text_representation. text is the message.
func sqlParse(t *testing.T, conn *pgx.Conn, f funcFormat, s string) (p parsed, code, text string) {
	t.Helper()
	err := conn.QueryRow(context.Background(), fmt.Sprintf("SELECT %s_from_text($1)::text", f.name), s).Scan(&p.value)
	if err == nil {
		return p, "", ""
	}
	code, text = pgError(t, err)
	return classifySQLParseError(t, f, s, text), code, text
}

// classifySQLParseError reads what a SQL parser found wrong with s from
// the message it raised: the length it names, or the offset of the bad
// byte, or that the value is out of range.
func classifySQLParseError(t *testing.T, f funcFormat, s, text string) (p parsed) {
	t.Helper()
	lengthMsg := regexp.MustCompile(`: length (\d+) bytes, want ` + strconv.Itoa(f.size) + `$`)
	charMsg := regexp.MustCompile(`(?s): invalid character .* \(byte 0x([0-9a-f]{2})\) at offset (\d+)$`)
	switch {
	case lengthMsg.MatchString(text):
		n, _ := strconv.Atoi(lengthMsg.FindStringSubmatch(text)[1])
		if n != len(s) {
			t.Errorf("%q: the error names length %d, not its %d bytes: %s", s, n, len(s), text)
		}
		p.err = "length"
	case charMsg.MatchString(text):
		m := charMsg.FindStringSubmatch(text)
		p.err = "character"
		p.offset, _ = strconv.Atoi(m[2])
		if p.offset < len(s) && m[1] != fmt.Sprintf("%02x", s[p.offset]) {
			t.Errorf("%q: the error names byte 0x%s at offset %d, which is 0x%02x: %s", s, m[1], p.offset, s[p.offset], text)
		}
	case strings.Contains(text, ": above the largest "):
		p.err = "range"
	default:
		p.err = "unrecognized"
	}
	return p
}

// TestSQLParseHostile gives the SQL parsers every string of the Go
// parsers' fuzz corpora and a few thousand more made to break them, and
// requires what the Go parser does: the same value where it accepts the
// text, and where it refuses it, invalid_text_representation naming the
// same failure at the same offset. PostgreSQL's text holds neither NUL nor
// invalid UTF-8, which the Go parsers refuse anyway: for those the test
// requires that the server refuses the string before the function sees it.
func TestSQLParseHostile(t *testing.T) {
	conn := installSQLFunctions(t).connect(t)
	seed := mrand.Uint64()
	t.Logf("seed %d", seed)
	r := mrand.New(mrand.NewPCG(seed, 1))
	for _, f := range funcFormats {
		t.Run(f.name, func(t *testing.T) {
			accepted, refused := 0, 0
			for _, s := range f.hostile(t, r) {
				want := f.parse(s)
				got, code, text := sqlParse(t, conn, f, s)
				if !utf8Valid(s) {
					if want.err == "" {
						t.Errorf("%q: Go accepts a string PostgreSQL cannot hold", s)
					}
					if code != "22021" { // character_not_in_repertoire
						t.Errorf("%q: the server took a string with NUL or invalid UTF-8: %q %s", s, code, text)
					}
					continue
				}
				if want.err == "" {
					accepted++
				} else {
					refused++
					if code != "22P02" {
						t.Errorf("%q: SQLSTATE %s, want 22P02: %s", s, code, text)
					}
				}
				if got != want {
					t.Errorf("%q: SQL %+v (%s), Go %+v", s, got, text, want)
				}
			}
			if accepted == 0 || refused == 0 {
				t.Errorf("%d accepted, %d refused: the inputs do not cover both", accepted, refused)
			}
		})
	}
}

// utf8Valid reports whether PostgreSQL's text can hold s.
func utf8Valid(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// TestSQLTime compares the *_time functions with the Go packages' Time
// for random IDs and the edge values.
func TestSQLTime(t *testing.T) {
	conn := installSQLFunctions(t).connect(t)
	r := mrand.New(mrand.NewPCG(mrand.Uint64(), 2))
	for _, f := range funcFormats {
		t.Run(f.name, func(t *testing.T) {
			values := append([]string(nil), f.edges...)
			for range 10_000 {
				values = append(values, f.random(r))
			}
			rows, err := conn.Query(context.Background(), fmt.Sprintf(`
				SELECT %[1]s_time(v) FROM unnest($1::text[]::%[2]s[]) WITH ORDINALITY AS x(v, n) ORDER BY n`,
				f.name, f.sqlType()), values)
			if err != nil {
				t.Fatal(err)
			}
			times, err := pgx.CollectRows(rows, pgx.RowTo[time.Time])
			if err != nil {
				t.Fatal(err)
			}
			for i, got := range times {
				if want := f.time(values[i]); !got.Equal(want) {
					t.Errorf("%s_time(%s) = %v, want %v", f.name, values[i], got.UTC(), want)
				}
			}
		})
	}
}

// rangeTimes returns times to bound ranges at: random ones to the
// microsecond across each format's range and a little beyond, and the
// edges: the Unix epoch and the last instant a format holds, each with its
// neighbours a microsecond away.
func rangeTimes(r *mrand.Rand) []time.Time {
	const maxMs128 = 1<<48 - 1
	const maxMs64 = (scru64.MaxTimestamp+1)<<8 - 1
	edge := func(ms int64) []time.Time {
		at := time.UnixMilli(ms)
		return []time.Time{at, at.Add(-time.Microsecond), at.Add(999 * time.Microsecond), at.Add(time.Millisecond)}
	}
	var out []time.Time
	for _, ms := range []int64{0, maxMs128, maxMs64, maxMs64 + 1 - 256, 1_647_765_241_409} {
		out = append(out, edge(ms)...)
	}
	out = append(out, time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(200000, 1, 1, 0, 0, 0, 0, time.UTC))
	for range 5000 {
		us := r.Int64N(maxMs128*1000*11/10) - maxMs128*1000/20
		out = append(out, time.UnixMicro(us))
	}
	return out
}

// TestSQLMinMaxAt compares the *_min_at and *_max_at functions with the Go
// packages' MinAtTime and MaxAtTime, values and refusals: a time no ID can
// hold raises datetime_field_overflow. The infinities are refused too.
func TestSQLMinMaxAt(t *testing.T) {
	conn := installSQLFunctions(t).connect(t)
	r := mrand.New(mrand.NewPCG(mrand.Uint64(), 3))
	times := rangeTimes(r)
	for _, f := range funcFormats {
		t.Run(f.name, func(t *testing.T) {
			for _, bound := range []struct {
				name string
				goFn func(time.Time) (string, error)
			}{{"min_at", f.minAt}, {"max_at", f.maxAt}} {
				q := fmt.Sprintf("SELECT %s_%s($1)::text", f.name, bound.name)
				for _, at := range times {
					want, wantErr := bound.goFn(at)
					var got string
					err := conn.QueryRow(context.Background(), q, at).Scan(&got)
					switch {
					case wantErr == nil && err != nil:
						t.Errorf("%s_%s(%v): %v, want %s", f.name, bound.name, at.UTC(), err, want)
					case wantErr != nil && err == nil:
						t.Errorf("%s_%s(%v) = %s, want an error as Go's %v", f.name, bound.name, at.UTC(), got, wantErr)
					case err != nil:
						if code, text := pgError(t, err); code != "22008" {
							t.Errorf("%s_%s(%v): SQLSTATE %s, want 22008: %s", f.name, bound.name, at.UTC(), code, text)
						}
					case got != want:
						t.Errorf("%s_%s(%v) = %s, want %s", f.name, bound.name, at.UTC(), got, want)
					}
				}
				for _, inf := range []string{"infinity", "-infinity"} {
					_, err := conn.Exec(context.Background(), fmt.Sprintf("SELECT %s_%s('%s')", f.name, bound.name, inf))
					if err == nil {
						t.Errorf("%s_%s(%s): no error", f.name, bound.name, inf)
					} else if code, text := pgError(t, err); code != "22008" {
						t.Errorf("%s_%s(%s): SQLSTATE %s, want 22008: %s", f.name, bound.name, inf, code, text)
					}
				}
			}
		})
	}
}

// TestSQLSCRU64Range checks that the SCRU64 functions taking a bigint
// refuse the values outside 0 to 36^12-1, as scru64.FromInt64 does, with
// numeric_value_out_of_range.
func TestSQLSCRU64Range(t *testing.T) {
	conn := installSQLFunctions(t).connect(t)
	for _, v := range []int64{-1, -1 << 63, int64(scru64.Max) + 1, 1<<63 - 1, 0, int64(scru64.Max)} {
		_, goErr := scru64.FromInt64(v)
		for _, fn := range []string{"scru64_to_text", "scru64_time"} {
			_, err := conn.Exec(context.Background(), "SELECT "+fn+"($1::bigint)", v)
			if (err == nil) != (goErr == nil) {
				t.Errorf("%s(%d): %v; Go: %v", fn, v, err, goErr)
			} else if err != nil {
				if code, text := pgError(t, err); code != "22003" {
					t.Errorf("%s(%d): SQLSTATE %s, want 22003: %s", fn, v, code, text)
				}
			}
		}
	}
}

// sqlFunctionsGuide is the user's guide to the SQL functions.
const sqlFunctionsGuide = "../docs/postgresql-functions.md"

// TestSQLFunctionsGuide runs the psql session of the guide, statement by
// statement, with psql as the guide says it ran, and requires psql's output
// to be the guide's. IDs minted in the session differ from run to run, so
// SCRU128 texts of a time after 2023 (the session's fixed IDs are older)
// are compared as "<minted ID>".
func TestSQLFunctionsGuide(t *testing.T) {
	f := installSQLFunctions(t)
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Skip("psql not found")
	}
	doc, err := os.ReadFile(sqlFunctionsGuide)
	if err != nil {
		t.Fatal(err)
	}
	_, session, found := strings.Cut(string(doc), "```psql\n")
	if !found {
		t.Fatalf("%s has no psql session", sqlFunctionsGuide)
	}
	session, _, _ = strings.Cut(session, "```")
	type step struct {
		statement string
		output    []string
	}
	var steps []step
	for _, line := range strings.Split(session, "\n") {
		if stmt, ok := strings.CutPrefix(line, "=> "); ok {
			steps = append(steps, step{statement: stmt})
		} else if len(steps) > 0 {
			steps[len(steps)-1].output = append(steps[len(steps)-1].output, line)
		}
	}
	if len(steps) < 10 {
		t.Fatalf("%d statements in the session", len(steps))
	}
	for _, s := range steps {
		cmd := exec.Command(psql, "-X", "-v", "SHOW_CONTEXT=never", "-c", s.statement, f.config.ConnString())
		// LC_ALL=C keeps psql in English.
		cmd.Env = append(os.Environ(), "PGOPTIONS=-c search_path="+f.schema, "PGTZ=UTC", "LC_ALL=C")
		out, _ := cmd.CombinedOutput() // psql exits 1 on the errors the session shows
		got, want := psqlOutput(string(out)), psqlOutput(strings.Join(s.output, "\n"))
		if got != want {
			t.Errorf("%s\nprints:\n%s\nthe guide shows:\n%s", s.statement, got, want)
		}
	}
}

// psqlOutput is psql's output without trailing spaces and blank lines at the
// end, with the SCRU128 texts of times after 2023 replaced by "<minted ID>".
func psqlOutput(s string) string {
	since := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	s = scru128Text.ReplaceAllStringFunc(s, func(text string) string {
		if id, err := scru128.Parse(text); err == nil && id.Time().After(since) {
			return "<minted ID>"
		}
		return text
	})
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

var scru128Text = regexp.MustCompile(`\b[0-9a-z]{25}\b`)

// sqlFunctionsRemoval is how the guide says to remove what the file made.
const sqlFunctionsRemoval = `DROP FUNCTION scru128_to_text, scru128_from_text, scru128_time, scru128_min_at, scru128_max_at,
  scru128_generate, ulid_to_text, ulid_from_text, ulid_time, ulid_min_at, ulid_max_at,
  scru64_to_text, scru64_from_text, scru64_time, scru64_min_at, scru64_max_at;`

// TestSQLFunctionsRemoval runs the guide's removal statements and checks
// that they leave nothing of the file in its schema.
func TestSQLFunctionsRemoval(t *testing.T) {
	f := installSQLFunctions(t)
	doc, err := os.ReadFile(sqlFunctionsGuide)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), sqlFunctionsRemoval) {
		t.Fatalf("%s does not show the removal statements:\n%s", sqlFunctionsGuide, sqlFunctionsRemoval)
	}
	conn := f.connect(t)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, sqlFunctionsRemoval); err != nil {
		t.Fatal(err)
	}
	var left int
	err = conn.QueryRow(ctx, `
		SELECT (SELECT count(*) FROM pg_proc WHERE pronamespace = $1::regnamespace) +
		       (SELECT count(*) FROM pg_class WHERE relnamespace = $1::regnamespace)`, f.schema).Scan(&left)
	if err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("%d functions and relations left in the schema", left)
	}
}

// TestSQLFunctionsInQueries checks what the guide says IMMUTABLE buys: a
// call on a constant is worked out when the query is planned, so that an
// index serves it, and the functions fit generated columns and expression
// indexes.
func TestSQLFunctionsInQueries(t *testing.T) {
	conn := installSQLFunctions(t).connect(t)
	ctx := context.Background()
	for _, q := range []string{
		`CREATE TABLE items (
			id uuid PRIMARY KEY DEFAULT scru128_generate(),
			text_id text GENERATED ALWAYS AS (scru128_to_text(id)) STORED)`,
		"CREATE INDEX ON items (scru128_time(id))",
		"INSERT INTO items (id) VALUES (scru128_from_text('0372hg16csmsm50l8dikcvukc'))",
		"INSERT INTO items SELECT FROM generate_series(1, 100)",
		"ANALYZE items",
		"SET enable_seqscan = off",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var textID string
	if err := conn.QueryRow(ctx, "SELECT text_id FROM items WHERE id = '017fee7f-ef41-7e2b-3432-ac2ec553687c'").Scan(&textID); err != nil {
		t.Fatal(err)
	}
	if textID != "0372hg16csmsm50l8dikcvukc" {
		t.Errorf("generated column: %q", textID)
	}
	for q, want := range map[string]string{
		"SELECT * FROM items WHERE id = scru128_from_text('0372HG16CSMSM50L8DIKCVUKC')":                      "'017fee7f-ef41-7e2b-3432-ac2ec553687c'::uuid",
		"SELECT * FROM items WHERE scru128_time(id) >= scru128_time('017fee7f-ef41-7e2b-3432-ac2ec553687c')": "'2022-04-03 08:17:16.097+00'::timestamp with time zone",
	} {
		rows, err := conn.Query(ctx, "EXPLAIN (COSTS OFF) "+q)
		if err != nil {
			t.Fatal(err)
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		plan := strings.Join(lines, "\n")
		if !strings.Contains(plan, "Index") || !strings.Contains(plan, want) {
			t.Errorf("%s: the plan does not use an index with the constant %s:\n%s", q, want, plan)
		}
	}
}

// TestSQLFunctionsGuideUsage runs the guide's example of scru128_generate()
// in a column default, a trigger and a migration, on tables made for it,
// and checks the IDs each gave.
func TestSQLFunctionsGuideUsage(t *testing.T) {
	conn := installSQLFunctions(t).connect(t)
	ctx := context.Background()
	doc, err := os.ReadFile(sqlFunctionsGuide)
	if err != nil {
		t.Fatal(err)
	}
	var example string
	for _, block := range strings.Split(string(doc), "```sql\n")[1:] {
		block, _, _ = strings.Cut(block, "```")
		if strings.Contains(block, "CREATE TABLE events") {
			example = block
		}
	}
	if example == "" {
		t.Fatalf("%s has no example of scru128_generate() in a table", sqlFunctionsGuide)
	}
	exec := func(q string) {
		t.Helper()
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("CREATE TABLE audit (seq serial, id uuid, what text)")
	exec("CREATE TABLE legacy (n int)")
	exec("INSERT INTO legacy SELECT generate_series(1, 100)")
	exec(example)
	exec(`INSERT INTO events (body) VALUES ('{}'), ('{}')`)
	exec(`INSERT INTO audit (what) VALUES ('a'), ('b')`)
	exec(`INSERT INTO audit (id, what) VALUES ('017fee7f-ef41-7e2b-3432-ac2ec553687c', 'given')`)
	for q, want := range map[string]int{
		"SELECT count(DISTINCT id) FROM events":                                            2,
		"SELECT count(DISTINCT id) FROM audit":                                             3,
		"SELECT count(*) FROM audit WHERE id = '017fee7f-ef41-7e2b-3432-ac2ec553687c'":     1,
		"SELECT count(DISTINCT id) FROM legacy":                                            100,
		"SELECT count(*) FROM legacy WHERE scru128_time(id) > now() - interval '1 minute'": 100,
	} {
		var got int
		if err := conn.QueryRow(ctx, q).Scan(&got); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if got != want {
			t.Errorf("%s = %d, want %d", q, got, want)
		}
	}
	m := generateQuery(t, conn, "SELECT id FROM audit WHERE what <> 'given' ORDER BY seq")
	if len(m.ids) != 2 || m.ids[1].Compare(m.ids[0]) <= 0 {
		t.Errorf("the trigger's IDs: %v", m.ids)
	}
}

// TestSQLFunctionsMeasureScript runs postgres/measure.sql over a thousand
// rows, for what it prints rather than for the figures: a row with a number
// for each function of the guide's cost table, and a figure in the guide
// for each function measured.
func TestSQLFunctionsMeasureScript(t *testing.T) {
	f := installSQLFunctions(t)
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Skip("psql not found")
	}
	cmd := exec.Command(psql, "-X", "-v", "ON_ERROR_STOP=1", "-v", "rows=1000", "-f", "../postgres/measure.sql", f.config.ConnString())
	cmd.Env = append(os.Environ(), "PGOPTIONS=-c search_path="+f.schema)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	measured := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\| -?[0-9]+\\.[0-9]{2} \\|$").FindAllStringSubmatch(string(out), -1) {
		measured[m[1]] = true
	}
	doc, err := os.ReadFile(sqlFunctionsGuide)
	if err != nil {
		t.Fatal(err)
	}
	listed := regexp.MustCompile("(?m)^\\| `([^`]+)` \\| [0-9]+\\.[0-9]{2} \\|$").FindAllStringSubmatch(string(doc), -1)
	if len(listed) == 0 || len(listed) != len(measured) {
		t.Errorf("the guide's table has %d functions, the script measured %d:\n%s", len(listed), len(measured), out)
	}
	for _, l := range listed {
		if !measured[l[1]] {
			t.Errorf("the script does not measure %s:\n%s", l[1], out)
		}
	}
}

// previousSQLFunctions is the file as released before scru128_generate()
// dropped its call sequence, high-water mark and lock table, for the
// upgrade test.
const previousSQLFunctions = "testdata/scru128-before-issue32.sql"

// TestSQLFunctionsUpgrade runs the file over the previous version, while a
// session sits in a transaction that called the old generator (and so
// holds locks on its sequences) and another session keeps calling: the
// first run replaces the function and leaves the old relations, with a
// notice; the second leaves them too, with a warning, after waiting at most
// lock_timeout (100 ms) for each; no call fails or waits long meanwhile.
// Run again once the transaction ended, the file drops them.
func TestSQLFunctionsUpgrade(t *testing.T) {
	admin, config := superuserConn(t)
	c := testDatabase(t, admin, config, "")
	c.RuntimeParams["search_path"] = "public"
	conn := connectConfig(t, c)
	ctx := context.Background()
	old, err := os.ReadFile(previousSQLFunctions)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, string(old)); err != nil {
		t.Fatalf("installing the previous version: %v", err)
	}
	holder := connectConfig(t, c)
	mustExec(t, holder, "BEGIN", "SELECT scru128_generate()")

	// Callers beside the upgrade, each statement bounded.
	callerConfig := c.Copy()
	callerConfig.RuntimeParams["statement_timeout"] = "2s"
	caller := connectConfig(t, callerConfig)
	stop := make(chan struct{})
	callerErr := make(chan error, 1)
	var slowest time.Duration
	go func() {
		var err error
		defer func() { callerErr <- err }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			start := time.Now()
			if _, err = caller.Exec(ctx, "SELECT public.scru128_generate()"); err != nil {
				return
			}
			slowest = max(slowest, time.Since(start))
		}
	}()

	var notices []string
	upgraderConfig := c.Copy()
	upgraderConfig.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notices = append(notices, n.Message) }
	upgrader := connectConfig(t, upgraderConfig)
	mustExec(t, upgrader, "SET statement_timeout = '10s'")
	var took []time.Duration
	for range 2 {
		start := time.Now()
		sqlFunctions{schema: "public", config: c}.run(t, upgrader)
		took = append(took, time.Since(start))
	}
	time.Sleep(100 * time.Millisecond)
	close(stop)
	if err := <-callerErr; err != nil {
		t.Errorf("a caller beside the upgrade: %v", err)
	}
	// Three relations wait 100 ms each; the margin is for a loaded machine.
	if took[1] > 2*time.Second {
		t.Errorf("the second run took %v beside an open transaction", took[1])
	}
	if slowest > time.Second {
		t.Errorf("a call beside the upgrade took %v", slowest)
	}
	all := strings.Join(notices, "\n")
	if !strings.Contains(all, "run the file again to drop them") || !strings.Contains(all, "left for the next run") {
		t.Errorf("no notice of the first run or warning of the second about the relations left: %q", notices)
	}
	var prosecdef bool
	var proconfig *string
	if err := conn.QueryRow(ctx, "SELECT prosecdef, proconfig::text FROM pg_proc WHERE oid = 'public.scru128_generate()'::regprocedure").Scan(&prosecdef, &proconfig); err != nil {
		t.Fatal(err)
	}
	if prosecdef || proconfig != nil {
		t.Errorf("scru128_generate() after the upgrade: SECURITY DEFINER %v, settings %v", prosecdef, orNULL(proconfig))
	}
	checkMinted(t, generateQuery(t, conn, "SELECT public.scru128_generate() FROM generate_series(1, 10)"))

	mustExec(t, holder, "COMMIT")
	sqlFunctions{schema: "public", config: c}.run(t, upgrader)
	var left []string
	if err := conn.QueryRow(ctx, `SELECT coalesce(array_agg(relname::text), '{}') FROM pg_class
		WHERE relnamespace = 'public'::regnamespace AND relname LIKE 'scru128_generate%'`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("the previous version's relations left after the second run: %v", left)
	}
}
