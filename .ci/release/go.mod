// Not released: the tool that prepares a release and checks, from a
// module proxy of the tree, what a user of it would build (docs/releasing.md).
module release

go 1.26.0

require golang.org/x/mod v0.41.0
