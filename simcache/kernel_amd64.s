//go:build amd64 && !purego

#include "textflag.h"

// Kernels over packed rows: every row is d float32 (d a multiple of 16,
// zero padded), rows are d apart, and row blocks may read up to 7 zero rows
// past the last candidate (the engine pads the row count to a multiple of 8).

// REDUCE4Z sums the 16 lanes of each of four zmm accumulators into one xmm:
// [sum(z0), sum(z1), sum(z2), sum(z3)] in DST. Uses Z4-Z11 as scratch. The
// 512->256 step extracts the high half into a low register (the extract
// zeroes its upper bits) and adds the whole zmm: the low 256 bits are then
// lo+hi, and everything after stays in VEX-encodable registers (AVX512F only).
#define REDUCE4Z(z0, z1, z2, z3, DST) \
	VEXTRACTF64X4 $1, z0, Y4; \
	VADDPS        z0, Z4, Z4; \
	VEXTRACTF64X4 $1, z1, Y5; \
	VADDPS        z1, Z5, Z5; \
	VEXTRACTF64X4 $1, z2, Y6; \
	VADDPS        z2, Z6, Z6; \
	VEXTRACTF64X4 $1, z3, Y7; \
	VADDPS        z3, Z7, Z7; \
	VEXTRACTF128  $1, Y4, X8; \
	VADDPS        X8, X4, X4; \
	VEXTRACTF128  $1, Y5, X9; \
	VADDPS        X9, X5, X5; \
	VEXTRACTF128  $1, Y6, X10; \
	VADDPS        X10, X6, X6; \
	VEXTRACTF128  $1, Y7, X11; \
	VADDPS        X11, X7, X7; \
	VHADDPS       X5, X4, X4; \
	VHADDPS       X7, X6, X6; \
	VHADDPS       X6, X4, DST

// func gramStripAVX512(a, b *float32, ncols, d int, out, outT *float32, ldo int)
//
// A 4 x ncols strip of dot products: rows a..a+3 against rows b..b+ncols-1
// (ncols a multiple of 4), in 4x4 register blocks: per 16 floats of d, 4 a
// loads and 4 b loads feed 16 FMAs into 16 accumulators (Z16-Z31), so loads
// never limit the two FMA pipes and 16 independent chains cover the FMA
// latency. out[r*ldo+c] = dot(a_r, b_c); when outT is not nil the transposed
// block is written too: outT[c*ldo+r] = dot(a_r, b_c).
TEXT ·gramStripAVX512(SB), NOSPLIT, $0-56
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ ncols+16(FP), CX
	MOVQ d+24(FP), BX
	SHLQ $2, BX                // row stride in bytes
	MOVQ out+32(FP), DX
	MOVQ outT+40(FP), AX
	MOVQ ldo+48(FP), R8
	SHLQ $2, R8                // output row stride in bytes
	LEAQ (SI)(BX*2), R9
	ADDQ BX, R9                // a3 = a + 3 rows

g512block:
	MOVQ SI, R12
	MOVQ R9, R13
	MOVQ DI, R14
	LEAQ (DI)(BX*2), R10
	ADDQ BX, R10               // b3
	MOVQ BX, R11               // bytes of d left
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19
	VPXORD Z20, Z20, Z20
	VPXORD Z21, Z21, Z21
	VPXORD Z22, Z22, Z22
	VPXORD Z23, Z23, Z23
	VPXORD Z24, Z24, Z24
	VPXORD Z25, Z25, Z25
	VPXORD Z26, Z26, Z26
	VPXORD Z27, Z27, Z27
	VPXORD Z28, Z28, Z28
	VPXORD Z29, Z29, Z29
	VPXORD Z30, Z30, Z30
	VPXORD Z31, Z31, Z31

g512k:
	VMOVUPS     (R12), Z0
	VMOVUPS     (R12)(BX*1), Z1
	VMOVUPS     (R12)(BX*2), Z2
	VMOVUPS     (R13), Z3
	VMOVUPS     (R14), Z4
	VFMADD231PS Z4, Z0, Z16
	VFMADD231PS Z4, Z1, Z20
	VFMADD231PS Z4, Z2, Z24
	VFMADD231PS Z4, Z3, Z28
	VMOVUPS     (R14)(BX*1), Z5
	VFMADD231PS Z5, Z0, Z17
	VFMADD231PS Z5, Z1, Z21
	VFMADD231PS Z5, Z2, Z25
	VFMADD231PS Z5, Z3, Z29
	VMOVUPS     (R14)(BX*2), Z6
	VFMADD231PS Z6, Z0, Z18
	VFMADD231PS Z6, Z1, Z22
	VFMADD231PS Z6, Z2, Z26
	VFMADD231PS Z6, Z3, Z30
	VMOVUPS     (R10), Z7
	VFMADD231PS Z7, Z0, Z19
	VFMADD231PS Z7, Z1, Z23
	VFMADD231PS Z7, Z2, Z27
	VFMADD231PS Z7, Z3, Z31
	ADDQ        $64, R12
	ADDQ        $64, R13
	ADDQ        $64, R14
	ADDQ        $64, R10
	SUBQ        $64, R11
	JNZ         g512k

	REDUCE4Z(Z16, Z17, Z18, Z19, X0)
	REDUCE4Z(Z20, Z21, Z22, Z23, X1)
	REDUCE4Z(Z24, Z25, Z26, Z27, X2)
	REDUCE4Z(Z28, Z29, Z30, Z31, X3)

	LEAQ    (DX)(R8*2), R12
	ADDQ    R8, R12
	VMOVUPS X0, (DX)
	VMOVUPS X1, (DX)(R8*1)
	VMOVUPS X2, (DX)(R8*2)
	VMOVUPS X3, (R12)

	TESTQ AX, AX
	JZ    g512next
	// Transpose the 4x4 block (rows X0-X3) into columns X8-X11.
	VUNPCKLPS X1, X0, X4
	VUNPCKHPS X1, X0, X5
	VUNPCKLPS X3, X2, X6
	VUNPCKHPS X3, X2, X7
	VMOVLHPS  X6, X4, X8
	VMOVHLPS  X4, X6, X9
	VMOVLHPS  X7, X5, X10
	VMOVHLPS  X5, X7, X11
	LEAQ      (AX)(R8*2), R12
	ADDQ      R8, R12
	VMOVUPS   X8, (AX)
	VMOVUPS   X9, (AX)(R8*1)
	VMOVUPS   X10, (AX)(R8*2)
	VMOVUPS   X11, (R12)
	LEAQ      (AX)(R8*4), AX

g512next:
	ADDQ $16, DX
	LEAQ (DI)(BX*4), DI
	SUBQ $4, CX
	JNZ  g512block
	VZEROUPPER
	RET

// func gramStripAVX2(a, b *float32, ncols, d int, out, outT *float32, ldo int)
//
// The AVX2 form of gramStripAVX512: 4x2 register blocks (8 accumulators,
// 6 loads per 8 FMAs, all 16 ymm registers used).
TEXT ·gramStripAVX2(SB), NOSPLIT, $0-56
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ ncols+16(FP), CX
	MOVQ d+24(FP), BX
	SHLQ $2, BX
	MOVQ out+32(FP), DX
	MOVQ outT+40(FP), AX
	MOVQ ldo+48(FP), R8
	SHLQ $2, R8
	LEAQ (SI)(BX*2), R9
	ADDQ BX, R9

g256block:
	MOVQ   SI, R12
	MOVQ   R9, R13
	MOVQ   DI, R14
	MOVQ   BX, R11
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	VXORPS Y12, Y12, Y12
	VXORPS Y13, Y13, Y13
	VXORPS Y14, Y14, Y14
	VXORPS Y15, Y15, Y15

g256k:
	VMOVUPS     (R12), Y0
	VMOVUPS     (R12)(BX*1), Y1
	VMOVUPS     (R12)(BX*2), Y2
	VMOVUPS     (R13), Y3
	VMOVUPS     (R14), Y4
	VFMADD231PS Y4, Y0, Y8
	VFMADD231PS Y4, Y1, Y10
	VFMADD231PS Y4, Y2, Y12
	VFMADD231PS Y4, Y3, Y14
	VMOVUPS     (R14)(BX*1), Y5
	VFMADD231PS Y5, Y0, Y9
	VFMADD231PS Y5, Y1, Y11
	VFMADD231PS Y5, Y2, Y13
	VFMADD231PS Y5, Y3, Y15
	ADDQ        $32, R12
	ADDQ        $32, R13
	ADDQ        $32, R14
	SUBQ        $32, R11
	JNZ         g256k

	VEXTRACTF128 $1, Y8, X0
	VADDPS       X8, X0, X0
	VEXTRACTF128 $1, Y9, X1
	VADDPS       X9, X1, X1
	VEXTRACTF128 $1, Y10, X2
	VADDPS       X10, X2, X2
	VEXTRACTF128 $1, Y11, X3
	VADDPS       X11, X3, X3
	VEXTRACTF128 $1, Y12, X4
	VADDPS       X12, X4, X4
	VEXTRACTF128 $1, Y13, X5
	VADDPS       X13, X5, X5
	VEXTRACTF128 $1, Y14, X6
	VADDPS       X14, X6, X6
	VEXTRACTF128 $1, Y15, X7
	VADDPS       X15, X7, X7
	VHADDPS      X1, X0, X0
	VHADDPS      X3, X2, X2
	VHADDPS      X5, X4, X4
	VHADDPS      X7, X6, X6
	VHADDPS      X2, X0, X0    // [r0c0, r0c1, r1c0, r1c1]
	VHADDPS      X6, X4, X4    // [r2c0, r2c1, r3c0, r3c1]

	LEAQ    (DX)(R8*2), R12
	ADDQ    R8, R12
	VMOVLPS X0, (DX)
	VMOVHPS X0, (DX)(R8*1)
	VMOVLPS X4, (DX)(R8*2)
	VMOVHPS X4, (R12)

	TESTQ   AX, AX
	JZ      g256next
	VSHUFPS $0x88, X4, X0, X1  // column 0: [r0c0, r1c0, r2c0, r3c0]
	VSHUFPS $0xDD, X4, X0, X2  // column 1
	VMOVUPS X1, (AX)
	VMOVUPS X2, (AX)(R8*1)
	LEAQ    (AX)(R8*2), AX

g256next:
	ADDQ $8, DX
	LEAQ (DI)(BX*2), DI
	SUBQ $2, CX
	JNZ  g256block
	VZEROUPPER
	RET

// func dotsAVX512(a, b *float32, ncols, d int, out *float32)
//
// One row against ncols rows (a multiple of 8): out[c] = dot(a, b_c). Eight
// columns at a time: one load of a feeds eight FMAs with memory operands.
TEXT ·dotsAVX512(SB), NOSPLIT, $0-40
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ ncols+16(FP), CX
	MOVQ d+24(FP), BX
	SHLQ $2, BX
	MOVQ out+32(FP), DX

d512block:
	MOVQ   SI, R12
	MOVQ   DI, R13
	LEAQ   (DI)(BX*2), R8
	ADDQ   BX, R8              // b3
	LEAQ   (DI)(BX*4), R14     // b4
	LEAQ   (R14)(BX*2), R9
	ADDQ   BX, R9              // b7
	MOVQ   BX, R11
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19
	VPXORD Z20, Z20, Z20
	VPXORD Z21, Z21, Z21
	VPXORD Z22, Z22, Z22
	VPXORD Z23, Z23, Z23

d512k:
	VMOVUPS     (R12), Z0
	VFMADD231PS (R13), Z0, Z16
	VFMADD231PS (R13)(BX*1), Z0, Z17
	VFMADD231PS (R13)(BX*2), Z0, Z18
	VFMADD231PS (R8), Z0, Z19
	VFMADD231PS (R14), Z0, Z20
	VFMADD231PS (R14)(BX*1), Z0, Z21
	VFMADD231PS (R14)(BX*2), Z0, Z22
	VFMADD231PS (R9), Z0, Z23
	ADDQ        $64, R12
	ADDQ        $64, R13
	ADDQ        $64, R8
	ADDQ        $64, R14
	ADDQ        $64, R9
	SUBQ        $64, R11
	JNZ         d512k

	REDUCE4Z(Z16, Z17, Z18, Z19, X0)
	REDUCE4Z(Z20, Z21, Z22, Z23, X1)
	VMOVUPS X0, (DX)
	VMOVUPS X1, 16(DX)

	ADDQ $32, DX
	LEAQ (DI)(BX*8), DI
	SUBQ $8, CX
	JNZ  d512block
	VZEROUPPER
	RET

// func dotsAVX2(a, b *float32, ncols, d int, out *float32)
//
// The AVX2 form of dotsAVX512: four columns at a time, d unrolled twice
// (16 floats per step) for eight independent accumulators.
TEXT ·dotsAVX2(SB), NOSPLIT, $0-40
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ ncols+16(FP), CX
	MOVQ d+24(FP), BX
	SHLQ $2, BX
	MOVQ out+32(FP), DX

d256block:
	MOVQ   SI, R12
	MOVQ   DI, R13
	LEAQ   (DI)(BX*2), R8
	ADDQ   BX, R8
	MOVQ   BX, R11
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	VXORPS Y12, Y12, Y12
	VXORPS Y13, Y13, Y13
	VXORPS Y14, Y14, Y14
	VXORPS Y15, Y15, Y15

d256k:
	VMOVUPS     (R12), Y0
	VMOVUPS     32(R12), Y1
	VFMADD231PS (R13), Y0, Y8
	VFMADD231PS 32(R13), Y1, Y12
	VFMADD231PS (R13)(BX*1), Y0, Y9
	VFMADD231PS 32(R13)(BX*1), Y1, Y13
	VFMADD231PS (R13)(BX*2), Y0, Y10
	VFMADD231PS 32(R13)(BX*2), Y1, Y14
	VFMADD231PS (R8), Y0, Y11
	VFMADD231PS 32(R8), Y1, Y15
	ADDQ        $64, R12
	ADDQ        $64, R13
	ADDQ        $64, R8
	SUBQ        $64, R11
	JNZ         d256k

	VADDPS       Y12, Y8, Y8
	VADDPS       Y13, Y9, Y9
	VADDPS       Y14, Y10, Y10
	VADDPS       Y15, Y11, Y11
	VEXTRACTF128 $1, Y8, X0
	VADDPS       X8, X0, X0
	VEXTRACTF128 $1, Y9, X1
	VADDPS       X9, X1, X1
	VEXTRACTF128 $1, Y10, X2
	VADDPS       X10, X2, X2
	VEXTRACTF128 $1, Y11, X3
	VADDPS       X11, X3, X3
	VHADDPS      X1, X0, X0
	VHADDPS      X3, X2, X2
	VHADDPS      X2, X0, X0
	VMOVUPS      X0, (DX)

	ADDQ $16, DX
	LEAQ (DI)(BX*4), DI
	SUBQ $4, CX
	JNZ  d256block
	VZEROUPPER
	RET

// func fmaPeakAVX512(n int)
//
// n iterations of 16 independent register-only FMAs on 16 float32 lanes: no
// loads, no dependencies beyond each chain, so the loop runs at the FMA
// pipes' throughput. The benchmark times it to get the core's FMA peak.
TEXT ·fmaPeakAVX512(SB), NOSPLIT, $0-8
	MOVQ   n+0(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19
	VPXORD Z20, Z20, Z20
	VPXORD Z21, Z21, Z21
	VPXORD Z22, Z22, Z22
	VPXORD Z23, Z23, Z23
	VPXORD Z24, Z24, Z24
	VPXORD Z25, Z25, Z25
	VPXORD Z26, Z26, Z26
	VPXORD Z27, Z27, Z27
	VPXORD Z28, Z28, Z28
	VPXORD Z29, Z29, Z29
	VPXORD Z30, Z30, Z30
	VPXORD Z31, Z31, Z31

p512loop:
	VFMADD231PS Z0, Z1, Z16
	VFMADD231PS Z0, Z1, Z17
	VFMADD231PS Z0, Z1, Z18
	VFMADD231PS Z0, Z1, Z19
	VFMADD231PS Z0, Z1, Z20
	VFMADD231PS Z0, Z1, Z21
	VFMADD231PS Z0, Z1, Z22
	VFMADD231PS Z0, Z1, Z23
	VFMADD231PS Z0, Z1, Z24
	VFMADD231PS Z0, Z1, Z25
	VFMADD231PS Z0, Z1, Z26
	VFMADD231PS Z0, Z1, Z27
	VFMADD231PS Z0, Z1, Z28
	VFMADD231PS Z0, Z1, Z29
	VFMADD231PS Z0, Z1, Z30
	VFMADD231PS Z0, Z1, Z31
	DECQ        CX
	JNZ         p512loop
	VZEROUPPER
	RET

// func fmaPeakAVX2(n int)
//
// As fmaPeakAVX512 with 12 independent chains on 8 lanes.
TEXT ·fmaPeakAVX2(SB), NOSPLIT, $0-8
	MOVQ   n+0(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	VXORPS Y12, Y12, Y12
	VXORPS Y13, Y13, Y13
	VXORPS Y14, Y14, Y14
	VXORPS Y15, Y15, Y15

p256loop:
	VFMADD231PS Y0, Y1, Y4
	VFMADD231PS Y0, Y1, Y5
	VFMADD231PS Y0, Y1, Y6
	VFMADD231PS Y0, Y1, Y7
	VFMADD231PS Y0, Y1, Y8
	VFMADD231PS Y0, Y1, Y9
	VFMADD231PS Y0, Y1, Y10
	VFMADD231PS Y0, Y1, Y11
	VFMADD231PS Y0, Y1, Y12
	VFMADD231PS Y0, Y1, Y13
	VFMADD231PS Y0, Y1, Y14
	VFMADD231PS Y0, Y1, Y15
	DECQ        CX
	JNZ         p256loop
	VZEROUPPER
	RET

// func dotAVX512(a, b *float32, d int) float32
//
// One dot product: four accumulators over 64 floats per step, then 16 at a time.
TEXT ·dotAVX512(SB), NOSPLIT, $0-28
	MOVQ   a+0(FP), SI
	MOVQ   b+8(FP), DI
	MOVQ   d+16(FP), CX
	SHLQ   $2, CX
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19

dot512by4:
	CMPQ        CX, $256
	JLT         dot512by1
	VMOVUPS     (SI), Z0
	VMOVUPS     64(SI), Z1
	VMOVUPS     128(SI), Z2
	VMOVUPS     192(SI), Z3
	VFMADD231PS (DI), Z0, Z16
	VFMADD231PS 64(DI), Z1, Z17
	VFMADD231PS 128(DI), Z2, Z18
	VFMADD231PS 192(DI), Z3, Z19
	ADDQ        $256, SI
	ADDQ        $256, DI
	SUBQ        $256, CX
	JMP         dot512by4

dot512by1:
	TESTQ       CX, CX
	JZ          dot512done
	VMOVUPS     (SI), Z0
	VFMADD231PS (DI), Z0, Z16
	ADDQ        $64, SI
	ADDQ        $64, DI
	SUBQ        $64, CX
	JMP         dot512by1

dot512done:
	VADDPS Z17, Z16, Z16
	VADDPS Z19, Z18, Z18
	VADDPS Z18, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19
	REDUCE4Z(Z16, Z17, Z18, Z19, X0)
	VMOVSS X0, ret+24(FP)
	VZEROUPPER
	RET

// func dotAVX2(a, b *float32, d int) float32
TEXT ·dotAVX2(SB), NOSPLIT, $0-28
	MOVQ   a+0(FP), SI
	MOVQ   b+8(FP), DI
	MOVQ   d+16(FP), CX
	SHLQ   $2, CX
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11

dot256by4:
	CMPQ        CX, $128
	JLT         dot256by1
	VMOVUPS     (SI), Y0
	VMOVUPS     32(SI), Y1
	VMOVUPS     64(SI), Y2
	VMOVUPS     96(SI), Y3
	VFMADD231PS (DI), Y0, Y8
	VFMADD231PS 32(DI), Y1, Y9
	VFMADD231PS 64(DI), Y2, Y10
	VFMADD231PS 96(DI), Y3, Y11
	ADDQ        $128, SI
	ADDQ        $128, DI
	SUBQ        $128, CX
	JMP         dot256by4

dot256by1:
	TESTQ       CX, CX
	JZ          dot256done
	VMOVUPS     (SI), Y0
	VFMADD231PS (DI), Y0, Y8
	ADDQ        $32, SI
	ADDQ        $32, DI
	SUBQ        $32, CX
	JMP         dot256by1

dot256done:
	VADDPS       Y9, Y8, Y8
	VADDPS       Y11, Y10, Y10
	VADDPS       Y10, Y8, Y8
	VEXTRACTF128 $1, Y8, X0
	VADDPS       X8, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VMOVSS       X0, ret+24(FP)
	VZEROUPPER
	RET

// func scaleAVX512(dst, src *float32, d int, s float32)
//
// dst[i] = src[i] * s for the d floats of src (d a multiple of 16; dst may
// be src).
TEXT ·scaleAVX512(SB), NOSPLIT, $0-28
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         d+16(FP), CX
	SHLQ         $2, CX
	VBROADCASTSS s+24(FP), Z1

scale512loop:
	TESTQ   CX, CX
	JZ      scale512done
	VMULPS  (SI), Z1, Z0
	VMOVUPS Z0, (DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	SUBQ    $64, CX
	JMP     scale512loop

scale512done:
	VZEROUPPER
	RET

// func scaleAVX2(dst, src *float32, d int, s float32)
TEXT ·scaleAVX2(SB), NOSPLIT, $0-28
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         d+16(FP), CX
	SHLQ         $2, CX
	VBROADCASTSS s+24(FP), Y1

scale256loop:
	TESTQ   CX, CX
	JZ      scale256done
	VMULPS  (SI), Y1, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	SUBQ    $32, CX
	JMP     scale256loop

scale256done:
	VZEROUPPER
	RET

// func sumRowsAVX2(mu *float64, a *float32, n, stride, d int)
//
// mu[k] += float64(a[i*stride+k]) for every row i < n in order, k < d (a
// multiple of 32): each component is summed row after row as the Go loop
// does, 32 components (eight ymm of four float64) per pass over the rows.
TEXT ·sumRowsAVX2(SB), NOSPLIT, $0-40
	MOVQ mu+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ stride+24(FP), BX
	SHLQ $2, BX
	MOVQ d+32(FP), DX
	SHRQ $5, DX
	JZ   sumdone
	TESTQ CX, CX
	JZ   sumdone

sumblock:
	VMOVUPD 0(DI), Y0
	VMOVUPD 32(DI), Y1
	VMOVUPD 64(DI), Y2
	VMOVUPD 96(DI), Y3
	VMOVUPD 128(DI), Y8
	VMOVUPD 160(DI), Y9
	VMOVUPD 192(DI), Y10
	VMOVUPD 224(DI), Y11
	MOVQ    SI, R8
	MOVQ    CX, R9

sumrow:
	VCVTPS2PD 0(R8), Y4
	VCVTPS2PD 16(R8), Y5
	VCVTPS2PD 32(R8), Y6
	VCVTPS2PD 48(R8), Y7
	VADDPD    Y4, Y0, Y0
	VADDPD    Y5, Y1, Y1
	VADDPD    Y6, Y2, Y2
	VADDPD    Y7, Y3, Y3
	VCVTPS2PD 64(R8), Y4
	VCVTPS2PD 80(R8), Y5
	VCVTPS2PD 96(R8), Y6
	VCVTPS2PD 112(R8), Y7
	VADDPD    Y4, Y8, Y8
	VADDPD    Y5, Y9, Y9
	VADDPD    Y6, Y10, Y10
	VADDPD    Y7, Y11, Y11
	ADDQ      BX, R8
	DECQ      R9
	JNZ       sumrow

	VMOVUPD Y0, 0(DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VMOVUPD Y8, 128(DI)
	VMOVUPD Y9, 160(DI)
	VMOVUPD Y10, 192(DI)
	VMOVUPD Y11, 224(DI)
	ADDQ    $256, DI
	ADDQ    $128, SI
	DECQ    DX
	JNZ     sumblock

sumdone:
	VZEROUPPER
	RET
