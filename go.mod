module github.com/fastid/scru128

go 1.24
