// RUN: relax-opt %s --convert-relax-to-linalg | FileCheck %s

// debug_print: the printer's JSON (the op's format object and each value's
// shape and element type) as a NUL-terminated i8 constant; each value copied
// into a fresh contiguous tensor and its address passed to relaxDebug with
// its index; then relaxDebug with index -1 prints. The callee is declared once.
// CHECK-LABEL: func.func private @relaxDebug(i64, i64, i64)
// CHECK-NOT:   func.func private @relaxDebug
// CHECK-LABEL: func.func @debug_print(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xf32>)
// The 55 bytes of {"spec": {"format": "{}"}, "leaves": [[[2, 3], "f32"]]} and a 0:
// CHECK:         [[SPEC:%.+]] = arith.constant dense<[123, 34, 115, 112, 101, 99, 34, {{.*}}, 91, 91, 91, 50, 44, 32, 51, 93, 44, 32, 34, 102, 51, 50, 34, 93, 93, 125, 0]> : tensor<56xi8>
// CHECK-NEXT:    [[SB:%.+]] = bufferization.to_buffer [[SPEC]] read_only
// CHECK-NEXT:    [[SP:%.+]] = memref.extract_aligned_pointer_as_index [[SB]]
// CHECK-NEXT:    [[S:%.+]] = arith.index_cast [[SP]] : index to i64
// CHECK:         [[C:%.+]] = linalg.copy ins(%[[X]] : tensor<2x3xf32>)
// CHECK-NEXT:    [[B:%.+]] = bufferization.to_buffer [[C]] read_only : tensor<2x3xf32> to memref<2x3xf32>
// CHECK-NEXT:    [[P:%.+]] = memref.extract_aligned_pointer_as_index [[B]]
// CHECK-NEXT:    [[A:%.+]] = arith.index_cast [[P]] : index to i64
// CHECK-NEXT:    [[I0:%.+]] = arith.constant 0 : i64
// CHECK-NEXT:    call @relaxDebug([[S]], [[I0]], [[A]])
// CHECK:         [[END:%.+]] = arith.constant -1 : i64
// CHECK-NEXT:    call @relaxDebug([[S]], [[END]], {{%.+}})
// CHECK:         call @relaxDebug
// CHECK:         return %[[X]]
func.func @debug_print(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = relax.dataflow -> (tensor<2x3xf32>) {
    relax.debug_print "{\"format\": \"{}\"}" %x : tensor<2x3xf32>
    relax.debug_print "{\"format\": \"again\"}"
    relax.output %x : tensor<2x3xf32>
  }
  return %r : tensor<2x3xf32>
}
