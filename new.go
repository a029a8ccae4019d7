package scru128

// defaultGenerator backs New, NewString and AppendNew.
var defaultGenerator = NewGenerator()

// New returns a new ID from a package-level Generator: monotonic across the
// whole process, safe for concurrent use, without allocation. It panics only
// if the system clock reads before 1970 or after the year 10889, which no
// ID can represent.
func New() ID {
	id, err := defaultGenerator.Generate()
	if err != nil {
		panic(err)
	}
	return id
}

// NewString returns the text of a new ID from the package-level Generator.
// It makes one allocation, the string.
func NewString() string { return New().String() }

// AppendNew mints a new ID as New does and appends its 25-digit text to b.
// It does not allocate when b has room for 25 more bytes.
func AppendNew(b []byte) []byte {
	b, _ = New().AppendText(b)
	return b
}
