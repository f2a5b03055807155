// RUN: relax-opt %s --convert-relax-to-linalg | FileCheck %s
// RUN: relax-opt %s --convert-relax-to-linalg | FileCheck %s --check-prefix=NORELAX

// No relax op is left anywhere in the module.
// NORELAX: module
// NORELAX-NOT: = relax.
// NORELAX-NOT: relax.output
// NORELAX-NOT: relax.dataflow

// Elementwise ops become parallel linalg.generic ops whose indexing maps
// implement numpy broadcasting: leading dims are dropped and a size-1 dim
// that is broadcast reads index 0.

// CHECK-DAG: #[[ID2:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[LAST:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[COL0:map[0-9]*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ROW0:map[0-9]*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-DAG: #[[SCALAR:map[0-9]*]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[ID1:map[0-9]*]] = affine_map<(d0) -> (d0)>

// CHECK-LABEL: func.func @broadcast_binary(
// CHECK-SAME:    %[[A:.+]]: tensor<4x3xf32>, %[[B:.+]]: tensor<3xf32>, %[[C:.+]]: tensor<4x1xf32>, %[[S:.+]]: tensor<f32>) -> tensor<4x3xf32> {
// CHECK:         [[E0:%.+]] = tensor.empty() : tensor<4x3xf32>
// CHECK:         [[ADD:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[LAST]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<4x3xf32>, tensor<3xf32>) outs([[E0]] : tensor<4x3xf32>)
// CHECK:           arith.addf
// CHECK:         [[MUL:%.+]] = linalg.generic {indexing_maps = [#[[COL0]], #[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[C]], [[ADD]] : tensor<4x1xf32>, tensor<4x3xf32>)
// CHECK:           arith.mulf
// CHECK:         [[SUB:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[SCALAR]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins([[MUL]], %[[S]] : tensor<4x3xf32>, tensor<f32>)
// CHECK:           arith.subf
// CHECK:         return [[SUB]] : tensor<4x3xf32>
// CHECK-NOT:     relax.
func.func @broadcast_binary(%a: tensor<4x3xf32>, %b: tensor<3xf32>, %c: tensor<4x1xf32>, %s: tensor<f32>) -> tensor<4x3xf32> {
  %r = relax.dataflow -> (tensor<4x3xf32>) {
    %0 = relax.add %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
    %1 = relax.multiply %c, %0 : tensor<4x1xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
    %2 = relax.subtract %1, %s : tensor<4x3xf32>, tensor<f32> -> tensor<4x3xf32>
    relax.output %2 : tensor<4x3xf32>
  }
  return %r : tensor<4x3xf32>
}

// Both operands broadcast (4x1 against 1x3).
// CHECK-LABEL: func.func @broadcast_both(
// CHECK:         linalg.generic {indexing_maps = [#[[COL0]], #[[ROW0]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%{{.+}}, %{{.+}} : tensor<4x1xf32>, tensor<1x3xf32>) outs(%{{.+}} : tensor<4x3xf32>)
// CHECK-NEXT:    ^bb0(%[[IN0:.+]]: f32, %[[IN1:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      [[Q:%.+]] = arith.divf %[[IN0]], %[[IN1]] : f32
// CHECK-NEXT:      linalg.yield [[Q]] : f32
// CHECK-NOT:     relax.
func.func @broadcast_both(%c: tensor<4x1xf32>, %d: tensor<1x3xf32>) -> tensor<4x3xf32> {
  %r = relax.dataflow -> (tensor<4x3xf32>) {
    %0 = relax.divide %c, %d : tensor<4x1xf32>, tensor<1x3xf32> -> tensor<4x3xf32>
    relax.output %0 : tensor<4x3xf32>
  }
  return %r : tensor<4x3xf32>
}

// A size-1 dim that meets a size-1 dim is not broadcast: it keeps its dim.
// CHECK-LABEL: func.func @size_one_not_broadcast(
// CHECK:         linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]], #[[ID2]]], {{.*}} ins(%{{.+}}, %{{.+}} : tensor<1x3xf32>, tensor<1x3xf32>) outs(%{{.+}} : tensor<1x3xf32>)
func.func @size_one_not_broadcast(%a: tensor<1x3xf32>, %b: tensor<1x3xf32>) -> tensor<1x3xf32> {
  %r = relax.dataflow -> (tensor<1x3xf32>) {
    %0 = relax.add %a, %b : tensor<1x3xf32>, tensor<1x3xf32> -> tensor<1x3xf32>
    relax.output %0 : tensor<1x3xf32>
  }
  return %r : tensor<1x3xf32>
}

// The scalar body of each unary op.
// CHECK-LABEL: func.func @unary(
// CHECK:         linalg.generic {indexing_maps = [#[[ID1]], #[[ID1]]], iterator_types = ["parallel"]}
// CHECK-NEXT:    ^bb0(%[[X0:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      [[N:%.+]] = arith.negf %[[X0]] : f32
// CHECK-NEXT:      linalg.yield [[N]]
// CHECK:         linalg.generic
// CHECK:           math.exp
// CHECK:         linalg.generic
// CHECK:           math.log
// CHECK:         linalg.generic
// CHECK:           math.tanh
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[X4:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      [[NEG:%.+]] = arith.negf %[[X4]] : f32
// CHECK-NEXT:      [[EXP:%.+]] = math.exp [[NEG]] : f32
// CHECK-NEXT:      [[ONE:%.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      [[DEN:%.+]] = arith.addf [[ONE]], [[EXP]] : f32
// CHECK-NEXT:      [[SIG:%.+]] = arith.divf [[ONE]], [[DEN]] : f32
// CHECK-NEXT:      linalg.yield [[SIG]] : f32
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[X5:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      [[ZERO:%.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      [[RELU:%.+]] = arith.maximumf %[[X5]], [[ZERO]] : f32
// CHECK-NEXT:      linalg.yield [[RELU]] : f32
// CHECK-NOT:     relax.
func.func @unary(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = relax.dataflow -> (tensor<3xf32>) {
    %0 = relax.negative %x : tensor<3xf32>
    %1 = relax.exp %0 : tensor<3xf32>
    %2 = relax.log %1 : tensor<3xf32>
    %3 = relax.tanh %2 : tensor<3xf32>
    %4 = relax.sigmoid %3 : tensor<3xf32>
    %5 = relax.relu %4 : tensor<3xf32>
    relax.output %5 : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// Integer element types use integer arithmetic.
// CHECK-LABEL: func.func @integer(
// CHECK:         linalg.generic
// CHECK:           [[Z:%.+]] = arith.constant 0 : i32
// CHECK-NEXT:      arith.subi [[Z]], %{{.+}} : i32
// CHECK:         linalg.generic
// CHECK:           arith.maxsi
// CHECK:         linalg.generic
// CHECK:           arith.addi
// CHECK:         linalg.generic
// CHECK:           arith.subi
// CHECK:         linalg.generic
// CHECK:           arith.muli
// CHECK:         linalg.generic
// CHECK:           arith.divsi
// CHECK-NOT:     relax.
func.func @integer(%i: tensor<3xi32>) -> tensor<3xi32> {
  %r = relax.dataflow -> (tensor<3xi32>) {
    %0 = relax.negative %i : tensor<3xi32>
    %1 = relax.relu %0 : tensor<3xi32>
    %2 = relax.add %1, %i : tensor<3xi32>, tensor<3xi32> -> tensor<3xi32>
    %3 = relax.subtract %2, %i : tensor<3xi32>, tensor<3xi32> -> tensor<3xi32>
    %4 = relax.multiply %3, %i : tensor<3xi32>, tensor<3xi32> -> tensor<3xi32>
    %5 = relax.divide %4, %i : tensor<3xi32>, tensor<3xi32> -> tensor<3xi32>
    relax.output %5 : tensor<3xi32>
  }
  return %r : tensor<3xi32>
}

// Integer division never traps: the divisor is replaced by 1 where it is 0
// (result 0) or where INT_MIN is divided by -1 (result INT_MIN, as numpy wraps).
// CHECK-LABEL: func.func @integer_divide(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[A:.+]]: i64, %[[B:.+]]: i64, %{{.+}}: i64):
// CHECK-DAG:       [[ZERO:%.+]] = arith.constant 0 : i64
// CHECK-DAG:       [[ONE:%.+]] = arith.constant 1 : i64
// CHECK-DAG:       [[M1:%.+]] = arith.constant -1 : i64
// CHECK-DAG:       [[MIN:%.+]] = arith.constant -9223372036854775808 : i64
// CHECK:           [[BZ:%.+]] = arith.cmpi eq, %[[B]], [[ZERO]] : i64
// CHECK:           [[AMIN:%.+]] = arith.cmpi eq, %[[A]], [[MIN]] : i64
// CHECK:           [[BM1:%.+]] = arith.cmpi eq, %[[B]], [[M1]] : i64
// CHECK:           [[OV:%.+]] = arith.andi [[AMIN]], [[BM1]] : i1
// CHECK:           [[UNSAFE:%.+]] = arith.ori [[BZ]], [[OV]] : i1
// CHECK:           [[D:%.+]] = arith.select [[UNSAFE]], [[ONE]], %[[B]] : i64
// CHECK:           [[Q:%.+]] = arith.divsi %[[A]], [[D]] : i64
// CHECK:           [[R:%.+]] = arith.select [[BZ]], [[ZERO]], [[Q]] : i64
// CHECK:           linalg.yield [[R]] : i64
func.func @integer_divide(%a: tensor<3xi64>, %b: tensor<3xi64>) -> tensor<3xi64> {
  %r = relax.dataflow -> (tensor<3xi64>) {
    %0 = relax.divide %a, %b : tensor<3xi64>, tensor<3xi64> -> tensor<3xi64>
    relax.output %0 : tensor<3xi64>
  }
  return %r : tensor<3xi64>
}

// greater gives an i1 tensor; where selects with three broadcast inputs.
// CHECK-LABEL: func.func @compare_select(
// CHECK-SAME:    %[[A:.+]]: tensor<4x3xf32>, %[[S:.+]]: tensor<f32>, %[[I:.+]]: tensor<3xi64>) -> (tensor<4x3xf32>, tensor<3xi1>) {
// CHECK:         [[EM:%.+]] = tensor.empty() : tensor<4x3xi1>
// CHECK:         [[M:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[SCALAR]], #[[ID2]]], {{.*}} ins(%[[A]], %[[S]] : tensor<4x3xf32>, tensor<f32>) outs([[EM]] : tensor<4x3xi1>)
// CHECK:           arith.cmpf ogt, %{{.+}}, %{{.+}} : f32
// CHECK:         [[W:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[SCALAR]], #[[ID2]], #[[ID2]]], {{.*}} ins([[M]], %[[S]], %[[A]] : tensor<4x3xi1>, tensor<f32>, tensor<4x3xf32>) outs(%{{.+}} : tensor<4x3xf32>)
// CHECK-NEXT:    ^bb0(%[[C0:.+]]: i1, %[[T0:.+]]: f32, %[[F0:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      [[SEL:%.+]] = arith.select %[[C0]], %[[T0]], %[[F0]] : f32
// CHECK:         linalg.generic
// CHECK:           arith.cmpi sgt, %{{.+}}, %{{.+}} : i64
// CHECK-NOT:     relax.
func.func @compare_select(%a: tensor<4x3xf32>, %s: tensor<f32>, %i: tensor<3xi64>) -> (tensor<4x3xf32>, tensor<3xi1>) {
  %r:2 = relax.dataflow -> (tensor<4x3xf32>, tensor<3xi1>) {
    %0 = relax.greater %a, %s : tensor<4x3xf32>, tensor<f32> -> tensor<4x3xi1>
    %1 = relax.where %0, %s, %a : tensor<4x3xi1>, tensor<f32>, tensor<4x3xf32> -> tensor<4x3xf32>
    %2 = relax.greater %i, %i : tensor<3xi64>, tensor<3xi64> -> tensor<3xi1>
    relax.output %1, %2 : tensor<4x3xf32>, tensor<3xi1>
  }
  return %r#0, %r#1 : tensor<4x3xf32>, tensor<3xi1>
}
