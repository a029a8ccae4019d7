//go:build go1.27 && goexperiment.jsonv2

package ulidflake

import (
	"encoding/json/jsontext"

	"github.com/fastid/scru128/internal/interop"
)

// UnmarshalJSONFrom implements encoding/json/v2's UnmarshalerFrom, which
// encoding/json and encoding/json/v2 both prefer to UnmarshalJSON in Go
// 1.27. It reads what [ID.UnmarshalJSON] reads. null sets id to zero under
// json/v2 and leaves it as it was under encoding/json, as each package
// does for an integer and for uuid.UUID.
func (id *ID) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return interop.UnmarshalJSONFrom(dec, id)
}
