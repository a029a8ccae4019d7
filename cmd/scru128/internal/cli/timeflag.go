//go:build (unix && !aix) || windows

package cli

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// timeUnits are the units gen -time takes after an integer, in
// milliseconds as a fraction: multiply, then divide (rounding down).
var timeUnits = []struct {
	suffix   string
	mul, div int64
}{
	{"ms", 1, 1},
	{"us", 1, 1000},
	{"ns", 1, 1_000_000},
	{"s", 1000, 1}, // last: the other suffixes end in s too
}

// Bare integers in [secondsLookingMin, secondsLookingMax) are refused: as
// Unix seconds they are 1973-03-03 to 5138-11-16, as the milliseconds a
// bare integer means, 1970-01-02 to 1973-03-03, a range no backfill is
// likely to want and `date +%s` always gives.
const (
	secondsLookingMin = 100_000_000
	secondsLookingMax = 100_000_000_000
)

// timeError is a -time value gen cannot use.
type timeError struct {
	input  string
	reason string
}

func (e *timeError) Error() string { return fmt.Sprintf("-time %q: %s", e.input, e.reason) }

// dateLayout is the form of a -time date: a day, read as its midnight.
const dateLayout = "2006-01-02"

// parseTime reads gen -time: a date (2024-05-01), its midnight in loc; RFC
// 3339 with an optional fraction; a duration from now, signed (-1h, +30m:
// time.ParseDuration's units); an integer of Unix time followed by its
// unit, s, ms, us or ns; or a bare integer of Unix milliseconds, unless it
// looks like Unix seconds (see secondsLookingMin). It returns Unix
// milliseconds, rounded down, or a *timeError.
func parseTime(s string, now time.Time, loc *time.Location) (int64, error) {
	digits, mul, div := s, int64(1), int64(1)
	for _, u := range timeUnits {
		if d, ok := strings.CutSuffix(s, u.suffix); ok {
			digits, mul, div = d, u.mul, u.div
			break
		}
	}
	if digits != "" && strings.Trim(digits, "0123456789") == "" {
		n, err := strconv.ParseInt(digits, 10, 64)
		switch {
		case err != nil || n > math.MaxInt64/mul:
			return 0, &timeError{s, "out of range"}
		case digits == s && n >= secondsLookingMin && n < secondsLookingMax:
			return 0, &timeError{s, fmt.Sprintf(
				"a bare integer is Unix milliseconds (%s), but this looks like Unix seconds (%s): write %ss for seconds, or %sms if you mean milliseconds",
				time.UnixMilli(n).UTC().Format(rfc3339Milli), time.Unix(n, 0).UTC().Format(time.RFC3339), s, s)}
		}
		return n * mul / div, nil
	}
	if s != "" && (s[0] == '-' || s[0] == '+') {
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, &timeError{s, "a duration from now wants a unit, as in -1h, +30m, -90s or -1h30m"}
		}
		return now.Add(d).UnixMilli(), nil
	}
	if t, err := time.ParseInLocation(dateLayout, s, loc); err == nil {
		return t.UnixMilli(), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UnixMilli(), nil
	}
	return 0, &timeError{s, "want a date, such as 2024-05-01 (midnight UTC, or local with -local), " +
		"RFC 3339, such as 2024-05-01T12:00:00Z or 2024-05-01T14:00:00.123+02:00, " +
		"a duration from now, such as -1h or +30m, " +
		"Unix time with a unit, such as 1714564800s or 1714564800123ms, or Unix milliseconds, such as 1714564800000"}
}

// isDate reports whether a -time value is a date, which -local applies to.
func isDate(s string) bool {
	_, err := time.Parse(dateLayout, s)
	return err == nil
}
