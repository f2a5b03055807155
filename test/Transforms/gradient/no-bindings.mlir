// A function without bindings (no relax.dataflow block, only a returned
// parameter or constant, perhaps packed by tuple glue) is differentiated: the
// adjoint of a returned parameter is the seed (ones), every other parameter
// gets zeros. (This was "it has no relax.dataflow block".)
//
// RUN: relax-opt %s --gradient="func={identity, constant, glue}" > %t
// RUN: FileCheck %s --check-prefix=ID < %t
// RUN: FileCheck %s --check-prefix=CONST < %t
// RUN: FileCheck %s --check-prefix=GLUE < %t

// ID-LABEL: func.func @identity_adjoint(
// ID-SAME:    %[[X:[^:]+]]: tensor<f32>, %[[Y:[^:]+]]: tensor<2xf32>) -> tuple<tensor<f32>, tuple<tensor<f32>, tensor<2xf32>>> {
// ID:         relax.dataflow
// ID:         [[ONE:%[0-9]+]] = relax.ones : tensor<f32>
// ID-NEXT:    [[ZY:%[0-9]+]] = relax.zeros : tensor<2xf32>
// ID-NEXT:    [[G:%[0-9]+]] = relax.tuple([[ONE]], [[ZY]] : tensor<f32>, tensor<2xf32>)
// ID-NEXT:    [[R:%[0-9]+]] = relax.tuple(%[[X]], [[G]] :
// ID-NEXT:    relax.output [[R]]
func.func @identity(%x: tensor<f32>, %y: tensor<2xf32>) -> tensor<f32> {
  return %x : tensor<f32>
}

// CONST-LABEL: func.func @constant_adjoint(
// CONST-SAME:    %{{[^:]+}}: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>> {
// CONST:         relax.dataflow
// CONST-DAG:     [[C:%.+]] = arith.constant dense<2.500000e+00> : tensor<f32>
// CONST-DAG:     [[Z:%[0-9]+]] = relax.zeros : tensor<3xf32>
// CONST:         [[G:%[0-9]+]] = relax.tuple([[Z]] : tensor<3xf32>)
// CONST-NEXT:    relax.tuple([[C]], [[G]] :
// CONST-NOT:     relax.ones
// CONST:         return
func.func @constant(%x: tensor<3xf32>) -> tensor<f32> {
  %c = arith.constant dense<2.5> : tensor<f32>
  return %c : tensor<f32>
}

// The target (field 0) is x, read back out of a tuple built outside any block.
// GLUE-LABEL: func.func @glue_adjoint(
// GLUE-SAME:    %[[X:[^:]+]]: tensor<f32>) -> tuple<tuple<tensor<f32>, tensor<f32>>, tuple<tensor<f32>>> {
// GLUE:         [[ONE:%[0-9]+]] = relax.ones : tensor<f32>
// GLUE-NEXT:    [[G:%[0-9]+]] = relax.tuple([[ONE]] : tensor<f32>)
func.func @glue(%x: tensor<f32>) -> tuple<tensor<f32>, tensor<f32>> {
  %t = relax.tuple(%x, %x : tensor<f32>, tensor<f32>)
  %a = relax.tuple_get_item %t[0] : tuple<tensor<f32>, tensor<f32>>
  %r = relax.tuple(%a, %x : tensor<f32>, tensor<f32>)
  return %r : tuple<tensor<f32>, tensor<f32>>
}
