// RUN: relax-opt %s --convert-relax-to-linalg | FileCheck %s

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

// The lowering of the elementwise ops sqrt rsqrt sin cos tan abs square erf
// silu gelu softplus leaky_relu clip power maximum minimum: parallel
// linalg.generic ops (broadcasting as the other elementwise ops) with one
// scalar body each; f16 and bf16 math runs in f32.


// CHECK-LABEL: func.func @math(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>) -> tensor<3xf32> {
// CHECK:         [[SQRT:%.+]] = linalg.generic {indexing_maps = [#[[ID1]], #[[ID1]]], iterator_types = ["parallel"]} ins(%[[X]] : tensor<3xf32>) outs(%{{.+}} : tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[A0:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      [[R0:%.+]] = math.sqrt %[[A0]] : f32
// CHECK-NEXT:      linalg.yield [[R0]] : f32
// CHECK:         [[RSQRT:%.+]] = linalg.generic {{.*}} ins([[SQRT]] : tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[A1:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      [[R1:%.+]] = math.rsqrt %[[A1]] : f32
// CHECK-NEXT:      linalg.yield [[R1]] : f32
// CHECK:         [[SIN:%.+]] = linalg.generic {{.*}} ins([[RSQRT]] : tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[A2:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      [[R2:%.+]] = math.sin %[[A2]] : f32
// CHECK-NEXT:      linalg.yield [[R2]] : f32
// CHECK:         [[COS:%.+]] = linalg.generic {{.*}} ins([[SIN]] : tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[A3:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      [[R3:%.+]] = math.cos %[[A3]] : f32
// CHECK-NEXT:      linalg.yield [[R3]] : f32
// CHECK:         [[TAN:%.+]] = linalg.generic {{.*}} ins([[COS]] : tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[A4:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      [[R4:%.+]] = math.tan %[[A4]] : f32
// CHECK-NEXT:      linalg.yield [[R4]] : f32
// CHECK:         [[ERF:%.+]] = linalg.generic {{.*}} ins([[TAN]] : tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[A5:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      [[R5:%.+]] = math.erf %[[A5]] : f32
// CHECK-NEXT:      linalg.yield [[R5]] : f32
// CHECK:         [[ABS:%.+]] = linalg.generic {{.*}} ins([[ERF]] : tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[A6:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      [[R6:%.+]] = math.absf %[[A6]] : f32
// CHECK-NEXT:      linalg.yield [[R6]] : f32
// CHECK:         [[SQUARE:%.+]] = linalg.generic {{.*}} ins([[ABS]] : tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[A7:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      [[R7:%.+]] = arith.mulf %[[A7]], %[[A7]] : f32
// CHECK-NEXT:      linalg.yield [[R7]] : f32
// CHECK-NOT:     relax.
// CHECK:         return [[SQUARE]] : tensor<3xf32>
func.func @math(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = relax.dataflow -> (tensor<3xf32>) {
    %0 = relax.sqrt %x : tensor<3xf32>
    %1 = relax.rsqrt %0 : tensor<3xf32>
    %2 = relax.sin %1 : tensor<3xf32>
    %3 = relax.cos %2 : tensor<3xf32>
    %4 = relax.tan %3 : tensor<3xf32>
    %5 = relax.erf %4 : tensor<3xf32>
    %6 = relax.abs %5 : tensor<3xf32>
    %7 = relax.square %6 : tensor<3xf32>
    relax.output %7 : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// silu = x * sigmoid(x); gelu = x/2 * (1 + erf(x / sqrt 2)) (the exact gelu);
// softplus = max(x, 0) + log1p(exp(-|x|)), finite for every finite x (log1p
// comes out expanded).
// CHECK-LABEL: func.func @activations(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[S:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      [[N:%.+]] = arith.negf %[[S]] : f32
// CHECK-NEXT:      [[E:%.+]] = math.exp [[N]] : f32
// CHECK-NEXT:      [[ONE:%.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      [[D:%.+]] = arith.addf [[ONE]], [[E]] : f32
// CHECK-NEXT:      [[SIG:%.+]] = arith.divf [[ONE]], [[D]] : f32
// CHECK-NEXT:      [[SILU:%.+]] = arith.mulf %[[S]], [[SIG]] : f32
// CHECK-NEXT:      linalg.yield [[SILU]] : f32
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[G:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      [[R2:%.+]] = arith.constant 0.707106769 : f32
// CHECK-NEXT:      [[XS:%.+]] = arith.mulf %[[G]], [[R2]] : f32
// CHECK-NEXT:      [[ERF:%.+]] = math.erf [[XS]] : f32
// CHECK-NEXT:      [[HALF:%.+]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      [[XH:%.+]] = arith.mulf %[[G]], [[HALF]] : f32
// CHECK-NEXT:      [[ONE2:%.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      [[OPE:%.+]] = arith.addf [[ONE2]], [[ERF]] : f32
// CHECK-NEXT:      [[GELU:%.+]] = arith.mulf [[XH]], [[OPE]] : f32
// CHECK-NEXT:      linalg.yield [[GELU]] : f32
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[P:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      [[Z:%.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      [[POS:%.+]] = arith.maximumf %[[P]], [[Z]] : f32
// CHECK-NEXT:      [[ABS:%.+]] = math.absf %[[P]] : f32
// CHECK-NEXT:      [[NABS:%.+]] = arith.negf [[ABS]] : f32
// CHECK-NEXT:      [[EXP:%.+]] = math.exp [[NABS]] : f32
// CHECK:           [[TAIL:%.+]] = arith.select
// CHECK-NEXT:      [[SP:%.+]] = arith.addf [[POS]], [[TAIL]] : f32
// CHECK-NEXT:      linalg.yield [[SP]] : f32
func.func @activations(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %r:3 = relax.dataflow -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
    %0 = relax.silu %x : tensor<3xf32>
    %1 = relax.gelu %x : tensor<3xf32>
    %2 = relax.softplus %x : tensor<3xf32>
    relax.output %0, %1, %2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// log1p(x) = log(u) * x / (u - 1) with u = 1 + x rounded (the rounding of u
// cancels), and x itself where u rounds to 1: accurate for small x, where
// math-to-llvm's log(1 + x) loses every digit. f16 runs in f32.
// CHECK-LABEL: func.func @log1p(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>, %[[H:.+]]: tensor<3xf16>) -> (tensor<3xf32>, tensor<3xf16>) {
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[S:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      [[ONE:%.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      [[U:%.+]] = arith.addf [[ONE]], %[[S]] : f32
// CHECK:           [[UM1:%.+]] = arith.subf [[U]], {{%.+}} : f32
// CHECK-NEXT:      [[LOG:%.+]] = math.log [[U]] : f32
// CHECK-NEXT:      [[NUM:%.+]] = arith.mulf [[LOG]], %[[S]] : f32
// CHECK-NEXT:      [[SCALED:%.+]] = arith.divf [[NUM]], [[UM1]] : f32
// CHECK:           [[EXACT:%.+]] = arith.cmpf oeq, [[UM1]], {{%.+}} : f32
// CHECK-NEXT:      [[R:%.+]] = arith.select [[EXACT]], %[[S]], [[SCALED]] : f32
// CHECK-NEXT:      linalg.yield [[R]] : f32
// CHECK:         linalg.generic {{.*}} ins(%[[H]] : tensor<3xf16>)
// CHECK-NEXT:    ^bb0(%[[SH:.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT:      [[W:%.+]] = arith.extf %[[SH]] : f16 to f32
// CHECK:           [[RH:%.+]] = arith.truncf {{%.+}} : f32 to f16
// CHECK-NEXT:      linalg.yield [[RH]] : f16
func.func @log1p(%x: tensor<3xf32>, %h: tensor<3xf16>) -> (tensor<3xf32>, tensor<3xf16>) {
  %r:2 = relax.dataflow -> (tensor<3xf32>, tensor<3xf16>) {
    %0 = relax.log1p %x : tensor<3xf32>
    %1 = relax.log1p %h : tensor<3xf16>
    relax.output %0, %1 : tensor<3xf32>, tensor<3xf16>
  }
  return %r#0, %r#1 : tensor<3xf32>, tensor<3xf16>
}

// expm1(x) = (u - 1) * x / log(u) with u = exp(x) rounded (Kahan: the rounding
// of u cancels); x where u rounds to 1, -1 where u - 1 does, u where it
// overflows (inf * x / inf would be NaN).
// CHECK-LABEL: func.func @expm1(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>) -> tensor<3xf32> {
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[S:.+]]: f32, %{{.+}}: f32):
// CHECK:           [[U:%.+]] = math.exp %[[S]] : f32
// CHECK-NEXT:      [[UM1:%.+]] = arith.subf [[U]], {{%.+}} : f32
// CHECK-NEXT:      [[LOG:%.+]] = math.log [[U]] : f32
// CHECK-NEXT:      [[NUM:%.+]] = arith.mulf [[UM1]], %[[S]] : f32
// CHECK-NEXT:      [[SCALED:%.+]] = arith.divf [[NUM]], [[LOG]] : f32
// CHECK:           [[M1:%.+]] = arith.cmpf oeq, [[UM1]], {{%.+}} : f32
// CHECK-NEXT:      [[R1:%.+]] = arith.select [[M1]], [[UM1]], [[SCALED]] : f32
// CHECK-NEXT:      [[INF:%.+]] = arith.constant 0x7F800000 : f32
// CHECK-NEXT:      [[OVER:%.+]] = arith.cmpf oeq, [[U]], [[INF]] : f32
// CHECK-NEXT:      [[R2:%.+]] = arith.select [[OVER]], [[U]], [[R1]] : f32
// CHECK:           [[ONE:%.+]] = arith.cmpf oeq, [[U]], {{%.+}} : f32
// CHECK-NEXT:      [[R:%.+]] = arith.select [[ONE]], %[[S]], [[R2]] : f32
// CHECK-NEXT:      linalg.yield [[R]] : f32
func.func @expm1(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = relax.dataflow -> (tensor<3xf32>) {
    %0 = relax.expm1 %x : tensor<3xf32>
    relax.output %0 : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// Shifts are LLVM's where the amount is in [0, width) (read unsigned, so a
// negative amount is outside) and JAX's fill elsewhere: 0, or the sign for an
// arithmetic right shift. bitcast is arith.bitcast.
// CHECK-LABEL: func.func @shifts(
// CHECK:         ^bb0(%[[A:.+]]: i32, %[[B:.+]]: i32, %{{.+}}: i32):
// CHECK-NEXT:      [[W:%.+]] = arith.constant 32 : i32
// CHECK-NEXT:      [[IN:%.+]] = arith.cmpi ult, %[[B]], [[W]] : i32
// CHECK-NEXT:      [[S:%.+]] = arith.shli %[[A]], %[[B]] : i32
// CHECK-NEXT:      [[Z:%.+]] = arith.constant 0 : i32
// CHECK-NEXT:      [[R:%.+]] = arith.select [[IN]], [[S]], [[Z]] : i32
// CHECK-NEXT:      linalg.yield [[R]] : i32
// CHECK:         ^bb0(%[[A2:.+]]: i32, %[[B2:.+]]: i32, %{{.+}}: i32):
// CHECK:           [[IN2:%.+]] = arith.cmpi ult, %[[B2]], {{%.+}} : i32
// CHECK-NEXT:      [[S2:%.+]] = arith.shrsi %[[A2]], %[[B2]] : i32
// CHECK:           [[SIGN:%.+]] = arith.shrsi %[[A2]], {{%.+}} : i32
// CHECK-NEXT:      arith.select [[IN2]], [[S2]], [[SIGN]] : i32
// CHECK:         ^bb0(%[[A3:.+]]: i32, %[[B3:.+]]: i32, %{{.+}}: i32):
// CHECK:           arith.shrui %[[A3]], %[[B3]] : i32
// CHECK:         ^bb0(%[[F:.+]]: f32, %{{.+}}: i32):
// CHECK-NEXT:      [[C:%.+]] = arith.bitcast %[[F]] : f32 to i32
// CHECK-NEXT:      linalg.yield [[C]] : i32
func.func @shifts(%a: tensor<3xi32>, %b: tensor<3xi32>, %f: tensor<3xf32>) -> (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>) {
  %r:4 = relax.dataflow -> (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>) {
    %0 = relax.left_shift %a, %b : tensor<3xi32>, tensor<3xi32> -> tensor<3xi32>
    %1 = relax.right_shift %a, %b : tensor<3xi32>, tensor<3xi32> -> tensor<3xi32>
    %2 = relax.shift_right_logical %a, %b : tensor<3xi32>, tensor<3xi32> -> tensor<3xi32>
    %3 = relax.bitcast %f : tensor<3xf32> -> tensor<3xi32>
    relax.output %0, %1, %2, %3 : tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>
  }
  return %r#0, %r#1, %r#2, %r#3 : tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>
}

// leaky_relu selects x or alpha * x; clip is max then min with the bounds
// (maximumf/minimumf propagate NaN).
// CHECK-LABEL: func.func @attributes(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[L:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      [[Z:%.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      [[GT:%.+]] = arith.cmpf ogt, %[[L]], [[Z]] : f32
// CHECK-NEXT:      [[A:%.+]] = arith.constant 2.000000e-01 : f32
// CHECK-NEXT:      [[LA:%.+]] = arith.mulf %[[L]], [[A]] : f32
// CHECK-NEXT:      [[LR:%.+]] = arith.select [[GT]], %[[L]], [[LA]] : f32
// CHECK-NEXT:      linalg.yield [[LR]] : f32
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[C:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      [[LO:%.+]] = arith.constant -1.000000e+00 : f32
// CHECK-NEXT:      [[M:%.+]] = arith.maximumf %[[C]], [[LO]] : f32
// CHECK-NEXT:      [[HI:%.+]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:      [[CL:%.+]] = arith.minimumf [[M]], [[HI]] : f32
// CHECK-NEXT:      linalg.yield [[CL]] : f32
func.func @attributes(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %r:2 = relax.dataflow -> (tensor<3xf32>, tensor<3xf32>) {
    %0 = relax.leaky_relu %x {alpha = 0.2 : f64} : tensor<3xf32>
    %1 = relax.clip %x {min = -1.0 : f64, max = 2.0 : f64} : tensor<3xf32>
    relax.output %0, %1 : tensor<3xf32>, tensor<3xf32>
  }
  return %r#0, %r#1 : tensor<3xf32>, tensor<3xf32>
}

// power, maximum and minimum broadcast; maximum and minimum propagate NaN.
// CHECK-LABEL: func.func @binary(
// CHECK-SAME:    %[[A:.+]]: tensor<2x3xf32>, %[[B:.+]]: tensor<3xf32>) -> tensor<2x3xf32> {
// CHECK:         [[POW:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[LAST]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<2x3xf32>, tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[P0:.+]]: f32, %[[P1:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      [[PW:%.+]] = math.powf %[[P0]], %[[P1]] : f32
// CHECK-NEXT:      linalg.yield [[PW]] : f32
// CHECK:         [[MAX:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[LAST]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins([[POW]], %[[B]] : tensor<2x3xf32>, tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[M0:.+]]: f32, %[[M1:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      [[MX:%.+]] = arith.maximumf %[[M0]], %[[M1]] : f32
// CHECK-NEXT:      linalg.yield [[MX]] : f32
// CHECK:         [[MIN:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins([[MAX]], %[[A]] : tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[N0:.+]]: f32, %[[N1:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      [[MN:%.+]] = arith.minimumf %[[N0]], %[[N1]] : f32
// CHECK-NEXT:      linalg.yield [[MN]] : f32
// CHECK:         return [[MIN]] : tensor<2x3xf32>
func.func @binary(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %r = relax.dataflow -> (tensor<2x3xf32>) {
    %0 = relax.power %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
    %1 = relax.maximum %0, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
    %2 = relax.minimum %1, %a : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
    relax.output %2 : tensor<2x3xf32>
  }
  return %r : tensor<2x3xf32>
}

// f16 and bf16 math goes through f32 (extf, the f32 op, truncf): erf, sqrt,
// power, gelu. square is a plain multiply in the element type.
// CHECK-LABEL: func.func @half(
// CHECK-SAME:    %[[H:.+]]: tensor<3xf16>, %[[B:.+]]: tensor<3xbf16>) -> (tensor<3xf16>, tensor<3xbf16>) {
// CHECK:         [[ERF:%.+]] = linalg.generic {{.*}} ins(%[[H]] : tensor<3xf16>)
// CHECK-NEXT:    ^bb0(%[[E0:.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT:      [[EW:%.+]] = arith.extf %[[E0]] : f16 to f32
// CHECK-NEXT:      [[EF:%.+]] = math.erf [[EW]] : f32
// CHECK-NEXT:      [[EN:%.+]] = arith.truncf [[EF]] : f32 to f16
// CHECK-NEXT:      linalg.yield [[EN]] : f16
// CHECK:         [[SQRT:%.+]] = linalg.generic {{.*}} ins(%[[B]] : tensor<3xbf16>)
// CHECK-NEXT:    ^bb0(%[[S0:.+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT:      [[SW:%.+]] = arith.extf %[[S0]] : bf16 to f32
// CHECK-NEXT:      [[SF:%.+]] = math.sqrt [[SW]] : f32
// CHECK-NEXT:      [[SN:%.+]] = arith.truncf [[SF]] : f32 to bf16
// CHECK-NEXT:      linalg.yield [[SN]] : bf16
// CHECK:         [[POW:%.+]] = linalg.generic {{.*}} ins([[ERF]], %[[H]] : tensor<3xf16>, tensor<3xf16>)
// CHECK-NEXT:    ^bb0(%[[Q0:.+]]: f16, %[[Q1:.+]]: f16, %{{.+}}: f16):
// CHECK-DAG:       [[QW1:%.+]] = arith.extf %[[Q1]] : f16 to f32
// CHECK-DAG:       [[QW0:%.+]] = arith.extf %[[Q0]] : f16 to f32
// CHECK:           [[QF:%.+]] = math.powf [[QW0]], [[QW1]] : f32
// CHECK-NEXT:      [[QN:%.+]] = arith.truncf [[QF]] : f32 to f16
// CHECK-NEXT:      linalg.yield [[QN]] : f16
// CHECK:         [[GELU:%.+]] = linalg.generic {{.*}} ins([[SQRT]] : tensor<3xbf16>)
// CHECK-NEXT:    ^bb0(%[[G0:.+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT:      [[GW:%.+]] = arith.extf %[[G0]] : bf16 to f32
// CHECK:           math.erf %{{.+}} : f32
// CHECK:           arith.addf %{{.+}}, %{{.+}} : f32
// CHECK-NEXT:      [[GF:%.+]] = arith.mulf %{{.+}}, %{{.+}} : f32
// CHECK-NEXT:      [[GN:%.+]] = arith.truncf [[GF]] : f32 to bf16
// CHECK-NEXT:      linalg.yield [[GN]] : bf16
// CHECK:         [[SQ:%.+]] = linalg.generic {{.*}} ins([[POW]] : tensor<3xf16>)
// CHECK-NEXT:    ^bb0(%[[Y0:.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT:      [[YM:%.+]] = arith.mulf %[[Y0]], %[[Y0]] : f16
// CHECK-NEXT:      linalg.yield [[YM]] : f16
// CHECK:         return [[SQ]], [[GELU]] : tensor<3xf16>, tensor<3xbf16>
func.func @half(%h: tensor<3xf16>, %b: tensor<3xbf16>) -> (tensor<3xf16>, tensor<3xbf16>) {
  %r:2 = relax.dataflow -> (tensor<3xf16>, tensor<3xbf16>) {
    %0 = relax.erf %h : tensor<3xf16>
    %1 = relax.sqrt %b : tensor<3xbf16>
    %2 = relax.power %0, %h : tensor<3xf16>, tensor<3xf16> -> tensor<3xf16>
    %3 = relax.gelu %1 : tensor<3xbf16>
    %4 = relax.square %2 : tensor<3xf16>
    relax.output %4, %3 : tensor<3xf16>, tensor<3xbf16>
  }
  return %r#0, %r#1 : tensor<3xf16>, tensor<3xbf16>
}

// Integer abs (max(x, 0 - x)), square, clip, maximum and minimum use integer arithmetic; the
// clip bounds are rounded inward (ceil(-1.5) = -1) and saturated to the type
// (1e20 -> INT32_MAX).
// CHECK-LABEL: func.func @integer_ops(
// CHECK-SAME:    %[[I:.+]]: tensor<3xi32>) -> tensor<3xi32> {
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[A:.+]]: i32, %{{.+}}: i32):
// CHECK-NEXT:      [[Z:%.+]] = arith.constant 0 : i32
// CHECK-NEXT:      [[NEG:%.+]] = arith.subi [[Z]], %[[A]] : i32
// CHECK-NEXT:      arith.maxsi %[[A]], [[NEG]] : i32
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[S:.+]]: i32, %{{.+}}: i32):
// CHECK-NEXT:      arith.muli %[[S]], %[[S]] : i32
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[C:.+]]: i32, %{{.+}}: i32):
// CHECK-NEXT:      [[LO:%.+]] = arith.constant -1 : i32
// CHECK-NEXT:      [[M:%.+]] = arith.maxsi %[[C]], [[LO]] : i32
// CHECK-NEXT:      [[HI:%.+]] = arith.constant 2147483647 : i32
// CHECK-NEXT:      arith.minsi [[M]], [[HI]] : i32
// CHECK:         linalg.generic
// CHECK:           arith.maxsi %{{.+}}, %{{.+}} : i32
// CHECK:         linalg.generic
// CHECK:           arith.minsi %{{.+}}, %{{.+}} : i32
func.func @integer_ops(%i: tensor<3xi32>) -> tensor<3xi32> {
  %r = relax.dataflow -> (tensor<3xi32>) {
    %0 = relax.abs %i : tensor<3xi32>
    %1 = relax.square %0 : tensor<3xi32>
    %2 = relax.clip %1 {min = -1.5 : f64, max = 1.0e20 : f64} : tensor<3xi32>
    %3 = relax.maximum %2, %i : tensor<3xi32>, tensor<3xi32> -> tensor<3xi32>
    %4 = relax.minimum %3, %i : tensor<3xi32>, tensor<3xi32> -> tensor<3xi32>
    relax.output %4 : tensor<3xi32>
  }
  return %r : tensor<3xi32>
}

// astype as numpy: float to int saturates (out-of-range values give
// INT_MAX/INT_MIN, NaN gives 0) around fptosi; anything to i1 is x != 0; i1 to
// a number is unsigned; integers truncate or sign-extend; f16 <-> bf16 goes
// through f32.
// CHECK-LABEL: func.func @astype(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>, %[[M:.+]]: tensor<3xi1>, %[[I:.+]]: tensor<3xi64>, %[[H:.+]]: tensor<3xf16>)
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : tensor<3xf32>) outs(%{{.+}} : tensor<3xi32>)
// CHECK-NEXT:    ^bb0(%[[F:.+]]: f32, %{{.+}}: i32):
// CHECK-NEXT:      [[LIM:%.+]] = arith.constant 2.14748365E+9 : f32
// CHECK-NEXT:      [[HIGH:%.+]] = arith.cmpf oge, %[[F]], [[LIM]] : f32
// CHECK-NEXT:      [[NLIM:%.+]] = arith.constant -2.14748365E+9 : f32
// CHECK-NEXT:      [[LOW:%.+]] = arith.cmpf olt, %[[F]], [[NLIM]] : f32
// CHECK-NEXT:      [[NAN:%.+]] = arith.cmpf uno, %[[F]], %[[F]] : f32
// CHECK-NEXT:      [[Z:%.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      [[O1:%.+]] = arith.ori [[HIGH]], [[LOW]] : i1
// CHECK-NEXT:      [[O2:%.+]] = arith.ori [[O1]], [[NAN]] : i1
// CHECK-NEXT:      [[SAFE:%.+]] = arith.select [[O2]], [[Z]], %[[F]] : f32
// CHECK-NEXT:      [[T:%.+]] = arith.fptosi [[SAFE]] : f32 to i32
// CHECK-NEXT:      [[MAX:%.+]] = arith.constant 2147483647 : i32
// CHECK-NEXT:      [[T1:%.+]] = arith.select [[HIGH]], [[MAX]], [[T]] : i32
// CHECK-NEXT:      [[MIN:%.+]] = arith.constant -2147483648 : i32
// CHECK-NEXT:      [[T2:%.+]] = arith.select [[LOW]], [[MIN]], [[T1]] : i32
// CHECK-NEXT:      linalg.yield [[T2]] : i32
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : tensor<3xf32>) outs(%{{.+}} : tensor<3xi1>)
// CHECK:           arith.cmpf une, %{{.+}}, %{{.+}} : f32
// CHECK:         linalg.generic {{.*}} ins(%[[M]] : tensor<3xi1>) outs(%{{.+}} : tensor<3xf32>)
// CHECK:           arith.uitofp %{{.+}} : i1 to f32
// CHECK:         linalg.generic {{.*}} ins(%[[I]] : tensor<3xi64>) outs(%{{.+}} : tensor<3xi32>)
// CHECK:           arith.trunci %{{.+}} : i64 to i32
// CHECK:         linalg.generic {{.*}} ins(%[[H]] : tensor<3xf16>) outs(%{{.+}} : tensor<3xbf16>)
// CHECK-NEXT:    ^bb0(%[[HB:.+]]: f16, %{{.+}}: bf16):
// CHECK-NEXT:      [[HW:%.+]] = arith.extf %[[HB]] : f16 to f32
// CHECK-NEXT:      [[HN:%.+]] = arith.truncf [[HW]] : f32 to bf16
// CHECK-NEXT:      linalg.yield [[HN]] : bf16
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : tensor<3xf32>) outs(%{{.+}} : tensor<3xf64>)
// CHECK:           arith.extf %{{.+}} : f32 to f64
// CHECK:         linalg.generic {{.*}} ins(%[[M]] : tensor<3xi1>) outs(%{{.+}} : tensor<3xi64>)
// CHECK:           arith.extui %{{.+}} : i1 to i64
// CHECK:         linalg.generic {{.*}} ins(%[[I]] : tensor<3xi64>) outs(%{{.+}} : tensor<3xf32>)
// CHECK:           arith.sitofp %{{.+}} : i64 to f32
// CHECK:         linalg.generic {{.*}} ins(%[[I]] : tensor<3xi64>) outs(%{{.+}} : tensor<3xi1>)
// CHECK:           [[Z64:%.+]] = arith.constant 0 : i64
// CHECK-NEXT:      arith.cmpi ne, %{{.+}}, [[Z64]] : i64
func.func @astype(%x: tensor<3xf32>, %m: tensor<3xi1>, %i: tensor<3xi64>, %h: tensor<3xf16>)
    -> (tensor<3xi32>, tensor<3xi1>, tensor<3xf32>, tensor<3xi32>, tensor<3xbf16>, tensor<3xf64>, tensor<3xi64>, tensor<3xf32>, tensor<3xi1>) {
  %r:9 = relax.dataflow -> (tensor<3xi32>, tensor<3xi1>, tensor<3xf32>, tensor<3xi32>, tensor<3xbf16>, tensor<3xf64>, tensor<3xi64>, tensor<3xf32>, tensor<3xi1>) {
    %0 = relax.astype %x : tensor<3xf32> -> tensor<3xi32>
    %1 = relax.astype %x : tensor<3xf32> -> tensor<3xi1>
    %2 = relax.astype %m : tensor<3xi1> -> tensor<3xf32>
    %3 = relax.astype %i : tensor<3xi64> -> tensor<3xi32>
    %4 = relax.astype %h : tensor<3xf16> -> tensor<3xbf16>
    %5 = relax.astype %x : tensor<3xf32> -> tensor<3xf64>
    %6 = relax.astype %m : tensor<3xi1> -> tensor<3xi64>
    %7 = relax.astype %i : tensor<3xi64> -> tensor<3xf32>
    %8 = relax.astype %i : tensor<3xi64> -> tensor<3xi1>
    relax.output %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<3xi32>, tensor<3xi1>, tensor<3xf32>, tensor<3xi32>, tensor<3xbf16>, tensor<3xf64>, tensor<3xi64>, tensor<3xf32>, tensor<3xi1>
  }
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7, %r#8 : tensor<3xi32>, tensor<3xi1>, tensor<3xf32>, tensor<3xi32>, tensor<3xbf16>, tensor<3xf64>, tensor<3xi64>, tensor<3xf32>, tensor<3xi1>
}

// An astype to the operand's own type folds away.
// CHECK-LABEL: func.func @astype_same(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>) -> tensor<3xf32> {
// CHECK-NEXT:    return %[[X]] : tensor<3xf32>
func.func @astype_same(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = relax.dataflow -> (tensor<3xf32>) {
    %0 = relax.astype %x : tensor<3xf32> -> tensor<3xf32>
    relax.output %0 : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}
