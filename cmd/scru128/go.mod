module github.com/fastid/scru128/cmd/scru128

go 1.24.0

require (
	github.com/fastid/scru128 v0.1.0
	github.com/klauspost/cpuid/v2 v2.4.2
)

require golang.org/x/sys v0.41.0 // indirect
