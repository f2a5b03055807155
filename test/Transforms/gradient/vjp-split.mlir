// mode=vjp: @<f>_fwd returns the result and the residuals, @<f>_bwd takes
// them and a cotangent of the (whole, here tuple) result. A checkpointed
// segment's values are recomputed in @bwd from the kept segment input; the
// segment's output is kept; constants are rebuilt, not kept.
// RUN: relax-opt %s --gradient="func=f mode=vjp" | FileCheck %s
// RUN: relax-opt %s --gradient="func=identity mode=vjp" | FileCheck %s --check-prefix=ID
// RUN: relax-opt %s --gradient="func=f mode=vjp require-grads=1" | FileCheck %s --check-prefix=SUBSET
// RUN: not relax-opt %s --gradient="func=f mode=reverse" 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not relax-opt %s --gradient="func=ints mode=vjp" 2>&1 | FileCheck %s --check-prefix=INTS
// RUN: not relax-opt %s --gradient="func=taken mode=vjp" --mlir-print-ir-after-failure 2>&1 | FileCheck %s --check-prefix=TAKEN

// CHECK-LABEL: func.func @f_fwd(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>, %[[W:.+]]: tensor<3x2xf32>)
// CHECK-SAME:    -> tuple<tuple<tensor<2xf32>, tensor<3xf32>>, tuple<tensor<3xf32>, tensor<3x2xf32>, tensor<3xf32>>>
// CHECK-NOT:     checkpoint
// CHECK:         [[E:%.+]] = relax.exp %[[X]]
// CHECK-NEXT:    [[T:%.+]] = relax.tanh [[E]]
// CHECK:         [[OUT:%.+]] = relax.tuple(
// CHECK-NEXT:    [[RES:%.+]] = relax.tuple([[T]], %[[W]], %[[X]] :
// CHECK-NEXT:    relax.tuple([[OUT]], [[RES]] :
// CHECK-LABEL: func.func @f_bwd(
// CHECK-SAME:    %[[RT:.+]]: tensor<3xf32>, %[[RW:.+]]: tensor<3x2xf32>, %[[RX:.+]]: tensor<3xf32>, %[[CT:.+]]: tuple<tensor<2xf32>, tensor<3xf32>>)
// CHECK-SAME:    -> tuple<tensor<3xf32>, tensor<3x2xf32>>
// CHECK:         arith.constant dense<2.000000e+00>
// CHECK:         relax.tuple_get_item %[[CT]][0]
// CHECK:         relax.exp %[[RX]] {relax.recomputed}
// CHECK-NEXT:    relax.tanh %{{.+}} {relax.recomputed}
func.func @f(%x: tensor<3xf32>, %w: tensor<3x2xf32>) -> tuple<tensor<2xf32>, tensor<3xf32>> {
  %r = relax.dataflow -> (tuple<tensor<2xf32>, tensor<3xf32>>) {
    %s = relax.start_checkpoint %x : tensor<3xf32>
    %e = relax.exp %s : tensor<3xf32>
    %t = relax.tanh %e : tensor<3xf32>
    %en = relax.end_checkpoint %t : tensor<3xf32>
    %y = relax.matmul %en, %w : tensor<3xf32>, tensor<3x2xf32> -> tensor<2xf32>
    %k = arith.constant dense<2.0> : tensor<3xf32>
    %z = relax.multiply %x, %k : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %o = relax.tuple(%y, %z : tensor<2xf32>, tensor<3xf32>)
    relax.output %o : tuple<tensor<2xf32>, tensor<3xf32>>
  }
  return %r : tuple<tensor<2xf32>, tensor<3xf32>>
}

// Only w: the backward half no longer reads the segment, so neither x nor
// the recomputation appear.
// SUBSET-LABEL: func.func @f_bwd(
// SUBSET-SAME:    %{{.+}}: tensor<3xf32>, %{{.+}}: tuple<tensor<2xf32>, tensor<3xf32>>) -> tuple<tensor<3x2xf32>>
// SUBSET-NOT:     relax.recomputed
// SUBSET:         return

// The identity: no residuals, the gradient is the cotangent.
// ID-LABEL: func.func @identity_fwd(
// ID-SAME:    %[[X:.+]]: tensor<3xf32>) -> tuple<tensor<3xf32>, tuple<>>
// ID-LABEL: func.func @identity_bwd(
// ID-SAME:    %[[CT:.+]]: tensor<3xf32>) -> tuple<tensor<3xf32>>
// ID:         relax.tuple(%[[CT]] : tensor<3xf32>)
func.func @identity(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}

// MODE: error: gradient: mode must be 'adjoint' or 'vjp', got 'reverse'

// INTS: error: cannot differentiate '@ints' in vjp mode: its result 'tensor<3xi64>' holds no float tensor to pull a cotangent back from
func.func @ints(%x: tensor<3xf32>, %i: tensor<3xi64>) -> tensor<3xi64> {
  return %i : tensor<3xi64>
}

// TAKEN: error: cannot create '@taken_bwd': the module already has a symbol of that name
// TAKEN: IR Dump After GradientPass Failed
// TAKEN-NOT: @taken_fwd
func.func @taken(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func @taken_bwd(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
