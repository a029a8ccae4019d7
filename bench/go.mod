module github.com/fastid/scru128/bench

go 1.25

require (
	github.com/fastid/scru128 v0.0.0
	github.com/gofrs/uuid/v5 v5.5.1
	github.com/google/uuid v1.6.0
	github.com/klauspost/cpuid/v2 v2.4.2
	github.com/oklog/ulid/v2 v2.1.2
	github.com/rs/xid v1.6.0
	github.com/segmentio/ksuid v1.0.4
)

require golang.org/x/sys v0.41.0 // indirect

replace github.com/fastid/scru128 => ../
