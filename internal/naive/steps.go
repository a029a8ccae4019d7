package naive

// Step is one call of a generator core in a differential test: the
// timestamp and allowance to pass, and whether to call the OrAbort form.
type Step struct {
	Timestamp, Allowance uint64
	Abort                bool
}

// DecodeSteps turns a fuzz input into a sequence of generator calls and the
// random byte stream they draw from. The first byte gives the number of
// calls (1 to 64); each call then takes three bytes: an operation byte (bit
// 0: the OrAbort form; bits 1-3: how the timestamp moves; bits 4-6: the
// allowance) and a 16-bit value v. The moves reach the same millisecond,
// small and large steps forward, rollbacks within and beyond any allowance,
// invalid timestamps and the edges of counter_hi renewal and of 2^48-1.
// What is left of data is the byte stream.
func DecodeSteps(data []byte) ([]Step, []byte) {
	if len(data) == 0 {
		return nil, nil
	}
	n := int(data[0]%64) + 1
	data = data[1:]
	var steps []Step
	prev := uint64(1_700_000_000_000)
	for ; n > 0 && len(data) >= 3; n-- {
		op, v := data[0], uint64(data[1])<<8|uint64(data[2])
		data = data[3:]
		var ts uint64
		switch op >> 1 & 7 {
		case 0:
			ts = prev
		case 1:
			ts = prev + v%4
		case 2:
			ts = prev + v
		case 3:
			ts = prev - v%16
		case 4:
			ts = prev - v*16 // may pass any allowance
		case 5:
			ts = v // includes 0, which is invalid
		case 6:
			ts = MaxTimestamp - v%4 + v>>14 // around the top, and past it
		case 7:
			ts = prev + 1000*(v%3) - v>>2%3 // around counter_hi renewal
		}
		allowances := [8]uint64{10_000, 0, 1, 1000, v, MaxTimestamp, MaxTimestamp + 1, 5}
		steps = append(steps, Step{ts, allowances[op>>4&7], op&1 == 1})
		if ts != 0 && ts <= MaxTimestamp {
			prev = ts
		}
	}
	return steps, data
}
