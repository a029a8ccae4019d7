//go:build !go1.27

package bench

func stdlibSinks() []any { return nil }
