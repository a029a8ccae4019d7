package integration

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"strings"
	"testing"
)

// TestSQLParseEncodings gives the SQL parsers the hostile texts of
// TestSQLParseHostile in a database of each kind of encoding: UTF8, whose
// text holds only valid UTF-8, and SQL_ASCII, whose text holds any byte
// but NUL. Whatever bytes reach a parser, it gives the Go parser's value,
// or refuses the text with invalid_text_representation (22P02) naming the
// same length or the same byte at the same offset. The texts come as bytes
// and become text in the database's encoding, as they would from a client
// whose encoding matches it.
func TestSQLParseEncodings(t *testing.T) {
	admin, config := superuserConn(t)
	seed := mrand.Uint64()
	t.Logf("seed %d", seed)
	for _, encoding := range []string{"UTF8", "SQL_ASCII"} {
		t.Run(encoding, func(t *testing.T) {
			c := testDatabase(t, admin, config, "ENCODING '"+encoding+"' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0")
			installAs(t, c, "ids")
			conn := connectConfig(t, c)
			r := mrand.New(mrand.NewPCG(seed, 7))
			for _, f := range funcFormats {
				t.Run(f.name, func(t *testing.T) {
					tested := 0
					for _, s := range f.hostile(t, r) {
						if strings.ContainsRune(s, 0) || encoding == "UTF8" && !utf8Valid(s) {
							continue // text cannot hold it in this encoding
						}
						tested++
						want := f.parse(s)
						var value string
						err := conn.QueryRow(context.Background(), fmt.Sprintf(
							"SELECT ids.%s_from_text(pg_catalog.convert_from($1::pg_catalog.bytea, %s))::pg_catalog.text",
							f.name, quoteLiteral(encoding)), []byte(s)).Scan(&value)
						if err == nil {
							if want.err != "" || value != want.value {
								t.Errorf("%q: SQL %s, Go %+v", s, value, want)
							}
							continue
						}
						code, text := pgError(t, err)
						got := classifySQLParseError(t, f, s, text)
						if code != "22P02" {
							t.Errorf("%q: SQLSTATE %s, want 22P02: %s", s, code, text)
						}
						if got != want {
							t.Errorf("%q: SQL %+v (%s), Go %+v", s, got, text, want)
						}
					}
					if tested < 400 {
						t.Errorf("only %d texts tested", tested)
					}
				})
			}

			// The conversions the other way, in this database too.
			for _, f := range funcFormats {
				values := append([]string(nil), f.edges...)
				for range 200 {
					values = append(values, f.random(r))
				}
				rows, err := conn.Query(context.Background(), fmt.Sprintf(`
					SELECT ids.%[1]s_to_text(v) FROM pg_catalog.unnest($1::pg_catalog.text[]::pg_catalog.%[2]s[]) WITH ORDINALITY AS x(v, n) ORDER BY n`,
					f.name, map[string]string{"uuid": "uuid", "bigint": "int8"}[f.sqlType()]), values)
				if err != nil {
					t.Fatal(err)
				}
				i := 0
				for rows.Next() {
					var text string
					if err := rows.Scan(&text); err != nil {
						t.Fatal(err)
					}
					if want := f.text(values[i]); text != want {
						t.Errorf("%s_to_text(%s) = %q, want %q", f.name, values[i], text, want)
					}
					i++
				}
				if err := rows.Err(); err != nil || i != len(values) {
					t.Errorf("%s: %d rows of %d: %v", f.name, i, len(values), err)
				}
			}
		})
	}
}
