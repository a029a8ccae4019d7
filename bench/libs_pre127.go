//go:build !go1.27

package bench

// stdlibLibs is empty before Go 1.27, which has no uuid package.
func stdlibLibs() []Lib { return nil }
