//go:build !epochhooks

package epoch

// HooksEnabled reports whether this build runs test hooks. Without the
// epochhooks build tag they compile away, so that the hot-path methods
// stay within the inlining budget and cost nothing.
const HooksEnabled = false
