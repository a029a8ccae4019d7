// Not released: the tool CI builds a module proxy of the tree with
// (docs/releasing.md).
module modproxy

go 1.26.0

require golang.org/x/mod v0.41.0
