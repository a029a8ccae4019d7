package interop

import "time"

// UnixMillis returns t as Unix milliseconds, rounded down, if that is
// within [min, max], and ok false otherwise. t is compared with the bounds
// before it is converted, because time.Time.UnixMilli overflows int64 (and
// wraps to a wrong value of either sign) for times some 292 million years
// from 1970, which a time.Time can hold.
func UnixMillis(t time.Time, min, max int64) (ms int64, ok bool) {
	// UnixMilli rounds down (the nanoseconds within a second are never
	// negative), so ms >= min exactly when t is at or after min's instant,
	// and ms <= max exactly when t is before max+1's.
	if t.Before(time.UnixMilli(min)) || !t.Before(time.UnixMilli(max+1)) {
		return 0, false
	}
	return t.UnixMilli(), true
}
