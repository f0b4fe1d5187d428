//go:build linux

package uring

// A request's user data, as both of this package's users pack it: the connection's slot, its
// generation and the operation. A completion whose generation is not its slot's current one
// (SameGen) is for a connection since closed.

// genMask keeps the 24 bits of a generation a tag holds.
const genMask = 1<<24 - 1

// Tag packs a slot, a generation (its low 24 bits) and an operation into user data.
func Tag(slot int, gen uint32, op uint8) uint64 {
	return uint64(slot)<<32 | uint64(gen&genMask)<<8 | uint64(op)
}

// Untag is Tag's inverse.
func Untag(u uint64) (slot int, gen uint32, op uint8) {
	return int(u >> 32), uint32(u>>8) & genMask, uint8(u)
}

// SameGen says whether gen, from Untag, is the generation cur as Tag kept it.
func SameGen(gen, cur uint32) bool { return gen == cur&genMask }

// Buffer is the id of the provided buffer c carries (valid when c.Flags has CQEFBuffer).
func (c CQE) Buffer() uint16 { return uint16(c.Flags >> CQEBufferShift) }
