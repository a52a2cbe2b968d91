package embed

import (
	"math"
	"testing"

	"github.com/x448/float16"
)

// vectors.f16 is decoded by github.com/x448/float16; these tests pin its
// decoding of binary16 (subnormals, infinities, NaN, signed zero), which
// every GloVe vector depends on.
func TestFloat16Decoding(t *testing.T) {
	tests := []struct {
		name string
		bits uint16
		want float32
	}{
		{"zero", 0x0000, 0},
		{"one", 0x3c00, 1},
		{"minus two", 0xc000, -2},
		{"half", 0x3800, 0.5},
		{"one third (rounded)", 0x3555, 0.333251953125},
		{"pi (rounded)", 0x4248, 3.140625},
		{"largest normal", 0x7bff, 65504},
		{"smallest normal", 0x0400, 1.0 / 16384},       // 2^-14
		{"smallest subnormal", 0x0001, 1.0 / 16777216}, // 2^-24
		{"largest subnormal", 0x03ff, 1023.0 / 16777216},
		{"negative subnormal", 0x8001, -1.0 / 16777216},
		{"glove-like value", 0xc412, -4.0703125},
		{"plus infinity", 0x7c00, float32(math.Inf(1))},
		{"minus infinity", 0xfc00, float32(math.Inf(-1))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := float16.Frombits(tt.bits).Float32(); got != tt.want {
				t.Errorf("Frombits(%#04x).Float32() = %v, want %v", tt.bits, got, tt.want)
			}
		})
	}
}

func TestFloat16SpecialBits(t *testing.T) {
	if got := float16.Frombits(0x8000).Float32(); got != 0 || !math.Signbit(float64(got)) {
		t.Errorf("0x8000 = %v, want -0", got)
	}
	if got := float16.Frombits(0x7e00).Float32(); !math.IsNaN(float64(got)) {
		t.Errorf("0x7e00 = %v, want NaN", got)
	}
}

// Positive finite halves are ordered like their bit patterns, so a decoder
// that is exact must be strictly increasing over them and odd in the sign
// bit; this catches exponent-rebias and subnormal-boundary mistakes.
func TestFloat16ExhaustiveMonotone(t *testing.T) {
	prev := float32(0)
	for b := uint16(0x0001); b < 0x7c00; b++ {
		got := float16.Frombits(b).Float32()
		if !(got > prev) {
			t.Fatalf("not strictly increasing at %#04x: %v after %v", b, got, prev)
		}
		if neg := float16.Frombits(b | 0x8000).Float32(); neg != -got {
			t.Fatalf("sign bit at %#04x: %v vs %v", b, neg, got)
		}
		prev = got
	}
}
