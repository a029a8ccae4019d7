// Not released: benchmarks against other ID libraries, kept out of the
// library's requirements (docs/releasing.md).
module github.com/fastid/scru128/bench

go 1.26.0

require (
	github.com/fastid/scru128 v0.1.0
	github.com/gofrs/uuid/v5 v5.5.1
	github.com/google/uuid v1.6.0
	github.com/klauspost/cpuid/v2 v2.4.2
	github.com/oklog/ulid/v2 v2.1.2
	github.com/rs/xid v1.6.0
	github.com/segmentio/ksuid v1.0.4
	golang.org/x/perf v0.0.0-20260908200009-22c9c6c9d4da
)

require (
	github.com/aclements/go-moremath v0.0.0-20210112150236-f10218a38794 // indirect
	golang.org/x/sys v0.48.0 // indirect
)

