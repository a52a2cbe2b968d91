//go:build amd64 && !purego

#include "textflag.h"

DATA one<>+0(SB)/4, $0x3f800000
GLOBL one<>(SB), RODATA|NOPTR, $4

// func centreAVX2(x *float32, n int, a, ii float32, trm, tinv *float32, square bool)
//
// x[t] = min(max((x[t] + a - trm[t]) * ii * tinv[t], 0), 1), squared when
// square is set, for t < n (a multiple of 8): the operations of the Go loop
// in the same order, eight lanes at a time.
TEXT ·centreAVX2(SB), NOSPLIT, $0-41
	MOVQ         x+0(FP), DI
	MOVQ         n+8(FP), CX
	VBROADCASTSS a+16(FP), Y1
	VBROADCASTSS ii+20(FP), Y2
	MOVQ         trm+24(FP), SI
	MOVQ         tinv+32(FP), DX
	MOVBLZX      square+40(FP), AX
	VXORPS       Y3, Y3, Y3
	VBROADCASTSS one<>(SB), Y4
	SHRQ         $3, CX
	JZ           done

loop:
	VMOVUPS (DI), Y0
	VADDPS  Y1, Y0, Y0
	VSUBPS  (SI), Y0, Y0
	VMULPS  Y2, Y0, Y0
	VMULPS  (DX), Y0, Y0
	VMAXPS  Y3, Y0, Y0
	VMINPS  Y4, Y0, Y0
	TESTQ   AX, AX
	JZ      store
	VMULPS  Y0, Y0, Y0

store:
	VMOVUPS Y0, (DI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	ADDQ    $32, DX
	DECQ    CX
	JNZ     loop

done:
	VZEROUPPER
	RET
