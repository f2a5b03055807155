// The gradient pass and ops holding regions, and glue ops around the block:
// glue before the dataflow block keeps its order when moved into the adjoint's
// block; a nested relax.dataflow only groups bindings and is differentiated
// through; any other op that reads an active value inside its regions is
// reported (it used to be skipped, giving zero gradients and exit 0).
//
// RUN: relax-opt %s --gradient="func={glue_chain, glue_const_tuple, nested, region_off_path}" > %t
// RUN: FileCheck %s --check-prefix=CHAIN < %t
// RUN: FileCheck %s --check-prefix=CONST < %t
// RUN: FileCheck %s --check-prefix=NESTED < %t
// RUN: FileCheck %s --check-prefix=OFFPATH < %t
// RUN: not relax-opt %s --gradient="func=captured" 2>&1 | FileCheck %s --check-prefix=CAPTURED
// RUN: not relax-opt %s --gradient="func=captured_in_nested" 2>&1 | FileCheck %s --check-prefix=CAPNESTED

// A tuple_get_item of a tuple_get_item before the block: the outer read comes
// first in the adjoint (the reversed order did not verify: "operand #0 does
// not dominate this use").
// CHAIN-LABEL: func.func @glue_chain_adjoint(
// CHAIN-SAME:    %[[T:.+]]: tuple<tuple<tensor<3xf32>, tensor<f32>>, tensor<2xf32>>)
// CHAIN:         relax.dataflow
// CHAIN-NEXT:      [[IN:%.+]] = relax.tuple_get_item %[[T]][0]
// CHAIN-NEXT:      [[X:%.+]] = relax.tuple_get_item [[IN]][0]
// CHAIN-NEXT:      relax.sum [[X]]
// CHAIN:           [[DX:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHAIN:           relax.tuple([[DX]], %{{.+}} : tensor<3xf32>, tensor<f32>)
func.func @glue_chain(%t: tuple<tuple<tensor<3xf32>, tensor<f32>>, tensor<2xf32>>) -> tensor<f32> {
  %inner = relax.tuple_get_item %t[0] : tuple<tuple<tensor<3xf32>, tensor<f32>>, tensor<2xf32>>
  %x = relax.tuple_get_item %inner[0] : tuple<tensor<3xf32>, tensor<f32>>
  %r = relax.dataflow -> (tensor<f32>) {
    %s = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  return %r : tensor<f32>
}

// A tuple holding a constant, built before the block from a constant defined
// before it.
// CONST-LABEL: func.func @glue_const_tuple_adjoint(
// CONST:         relax.dataflow
// CONST-NEXT:      [[C:%.+]] = arith.constant dense<2.000000e+00> : tensor<3xf32>
// CONST:           relax.multiply [[C]], %{{.+}}
// CONST:           relax.output
func.func @glue_const_tuple(%x: tensor<3xf32>) -> tensor<f32> {
  %c = arith.constant dense<2.0> : tensor<3xf32>
  %t = relax.tuple(%c, %x : tensor<3xf32>, tensor<3xf32>)
  %r = relax.dataflow -> (tensor<f32>) {
    %a = relax.tuple_get_item %t[0] : tuple<tensor<3xf32>, tensor<3xf32>>
    %b = relax.tuple_get_item %t[1] : tuple<tensor<3xf32>, tensor<3xf32>>
    %m = relax.multiply %a, %b : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %s = relax.sum %m : tensor<3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  return %r : tensor<f32>
}

// A nested dataflow block: its bindings are spliced into the adjoint's block
// and differentiated: d sum(exp(x)) = exp(x), not zeros.
// NESTED-LABEL: func.func @nested_adjoint(
// NESTED-SAME:    %[[X:.+]]: tensor<3xf32>)
// NESTED:         relax.dataflow
// NESTED-NOT:     relax.dataflow
// NESTED:           [[E:%.+]] = relax.exp %[[X]]
// NESTED:           relax.sum [[E]]
// NESTED-NOT:       relax.zeros
// NESTED:           [[G:%.+]] = relax.multiply %{{.+}}, [[E]]
// NESTED:           relax.tuple([[G]] : tensor<3xf32>)
func.func @nested(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %e = relax.dataflow -> (tensor<3xf32>) {
      %0 = relax.exp %x : tensor<3xf32>
      relax.output %0 : tensor<3xf32>
    }
    %s = relax.sum %e : tensor<3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  return %r : tensor<f32>
}

// An op whose region reads the parameter: reported at the op.
// CAPTURED: regions.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: 'scf.execute_region' is on the path to the target through values its regions read; the gradient pass does not differentiate through regions
func.func @captured(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %e = scf.execute_region -> tensor<3xf32> {
      %0 = relax.exp %x : tensor<3xf32>
      scf.yield %0 : tensor<3xf32>
    }
    %s = relax.sum %e : tensor<3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  return %r : tensor<f32>
}

// The same inside a nested dataflow block.
// CAPNESTED: regions.mlir:[[# @LINE + 4]]:{{[0-9]+}}: error: 'scf.execute_region' is on the path
func.func @captured_in_nested(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %e = relax.dataflow -> (tensor<3xf32>) {
      %0 = scf.execute_region -> tensor<3xf32> {
        %1 = relax.exp %x : tensor<3xf32>
        scf.yield %1 : tensor<3xf32>
      }
      relax.output %0 : tensor<3xf32>
    }
    %s = relax.sum %e : tensor<3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  return %r : tensor<f32>
}

// A region op off the path to the target (it only feeds the other field of
// the result) is no error: it stays in the forward bindings, undifferentiated.
// OFFPATH-LABEL: func.func @region_off_path_adjoint(
// OFFPATH:         scf.execute_region
// OFFPATH:         relax.sum
// OFFPATH:         relax.broadcast_to
// OFFPATH:         relax.output
func.func @region_off_path(%x: tensor<3xf32>) -> tuple<tensor<f32>, tensor<3xf32>> {
  %r:2 = relax.dataflow -> (tensor<f32>, tensor<3xf32>) {
    %e = scf.execute_region -> tensor<3xf32> {
      %0 = relax.exp %x : tensor<3xf32>
      scf.yield %0 : tensor<3xf32>
    }
    %s = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %s, %e : tensor<f32>, tensor<3xf32>
  }
  %t = relax.tuple(%r#0, %r#1 : tensor<f32>, tensor<3xf32>)
  return %t : tuple<tensor<f32>, tensor<3xf32>>
}
