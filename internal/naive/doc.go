// Package naive is the plain reference implementation that the fast code is
// tested against, one file per format, each named after it. It favours
// being obviously right over being fast: the codecs use math/big, and the
// generator cores follow their specification's algorithm line by line. It
// is imported by tests only.
package naive
