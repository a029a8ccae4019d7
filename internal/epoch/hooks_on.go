//go:build epochhooks

package epoch

// HooksEnabled reports whether this build runs test hooks: the epochhooks
// build tag turns them on for the interleaving tests.
const HooksEnabled = true
