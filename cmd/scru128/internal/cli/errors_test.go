//go:build (unix && !aix) || windows

package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/fastid/scru128"
	"github.com/fastid/scru128/internal/nodelease"
	"github.com/fastid/scru128/legacy"
	"github.com/fastid/scru128/scru64"
	"github.com/fastid/scru128/ulid"
	"github.com/fastid/scru128/ulidflake"
)

// TestReasonWordsErrorsFromTheirValues: reason words the errors it knows
// from their fields, never from their texts, so that no message carries a
// package's prefix after the tool's; the others it prints whole.
func TestReasonWordsErrorsFromTheirValues(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&scru128.InvalidCharacterError{Offset: 10, Char: '_', Rune: '_', Size: 1}, "invalid character '_' (0x5f) at offset 10"},
		{&ulid.InvalidCharacterError{Offset: 3, Char: 0xc3, Rune: 'é', Size: 2}, "invalid character 'é' (U+00E9) at offset 3"},
		{&ulidflake.InvalidCharacterError{Offset: 0, Char: 0xff, Rune: 0xfffd, Size: 1}, "invalid character 0xff (not UTF-8) at offset 0"},
		{legacy.ErrOutOfRange, "value out of range"},
		{scru64.ErrOutOfRange, "value out of range"},
		{ulidflake.ErrInvalidTimestamp, "timestamp outside the format's range"},
		{&scru64.NodeSpecError{Input: "0u375nxqh5c_/8", Reason: "the previous ID is not valid",
			Err: &scru64.InvalidCharacterError{Offset: 11, Char: '_', Rune: '_', Size: 1}},
			`invalid node spec "0u375nxqh5c_/8": the previous ID is not valid: invalid character '_' (0x5f) at offset 11 (want `},
		{&nodelease.LostError{NodeID: 3, Lease: 0x2a, Reason: "r"}, "lease lost: node ID 3, lease 2a: r"},
		{errors.New("something else"), "something else"},
	} {
		if got := Reason(tc.err); !strings.HasPrefix(got, tc.want) {
			t.Errorf("reason(%T) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

func TestNodeSpecErrorsCarryOnePrefix(t *testing.T) {
	for _, spec := range []string{"0u375nxqh5c_/8", "0/24", "x/8"} {
		_, errOut, status := runCLI(t, "", "gen", "-format", "scru64", "-node", spec)
		if status != 2 || !strings.HasPrefix(errOut, `scru128 gen: -node: invalid node spec "`+spec+`": `) || containsLibraryPrefix(errOut) {
			t.Errorf("-node %s: status %d, stderr %q", spec, status, errOut)
		}
	}
}
