package embed

import "math"

// Float16ToFloat32 decodes an IEEE 754 half-precision value (binary16:
// 1 sign bit, 5 exponent bits with bias 15, 10 fraction bits), including
// subnormals, infinities and NaN. Every half value is exactly representable
// as a float32, so the conversion is lossless.
func Float16ToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // infinity or NaN; keep the payload bits
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp == 0 && frac == 0: // signed zero
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: value = frac * 2^-24
		v := float32(frac) * (1.0 / (1 << 24))
		if sign != 0 {
			return -v
		}
		return v
	default: // normal: rebias exponent from 15 to 127
		return math.Float32frombits(sign | (exp+127-15)<<23 | frac<<13)
	}
}
