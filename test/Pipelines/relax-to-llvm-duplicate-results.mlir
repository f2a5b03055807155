// A function may return the same tensor in several result positions (a tuple
// holding one value twice, or a gradient that folds to a returned value, such
// as d/db sum(exp(b)) = 1 * exp(b) next to exp(b) itself). Lowering must
// accept it: each position becomes its own out-parameter, and the function
// returns nothing. (A parameter returned twice is covered too.)
// RUN: relax-opt %s --relax-to-llvm | FileCheck %s

// CHECK-LABEL: llvm.func @twice(
// CHECK:         llvm.intr.exp
// CHECK:         llvm.return{{$}}
func.func @twice(%x: tensor<3xf64>) -> tuple<tensor<3xf64>, tensor<3xf64>> {
  %r = relax.dataflow -> (tuple<tensor<3xf64>, tensor<3xf64>>) {
    %a = relax.exp %x : tensor<3xf64>
    %t = relax.tuple(%a, %a : tensor<3xf64>, tensor<3xf64>)
    relax.output %t : tuple<tensor<3xf64>, tensor<3xf64>>
  }
  return %r : tuple<tensor<3xf64>, tensor<3xf64>>
}

// CHECK-LABEL: llvm.func @folded_ones(
// CHECK:         llvm.return{{$}}
func.func @folded_ones(%x: tensor<3xf64>) -> tuple<tensor<3xf64>, tensor<3xf64>> {
  %r = relax.dataflow -> (tuple<tensor<3xf64>, tensor<3xf64>>) {
    %a = relax.exp %x : tensor<3xf64>
    %o = relax.ones : tensor<3xf64>
    %b = relax.multiply %o, %a : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64>
    %t = relax.tuple(%a, %b : tensor<3xf64>, tensor<3xf64>)
    relax.output %t : tuple<tensor<3xf64>, tensor<3xf64>>
  }
  return %r : tuple<tensor<3xf64>, tensor<3xf64>>
}

// CHECK-LABEL: llvm.func @param_twice(
// CHECK:         llvm.return{{$}}
func.func @param_twice(%x: tensor<3xf64>) -> tuple<tensor<3xf64>, tensor<3xf64>> {
  %t = relax.tuple(%x, %x : tensor<3xf64>, tensor<3xf64>)
  return %t : tuple<tensor<3xf64>, tensor<3xf64>>
}
