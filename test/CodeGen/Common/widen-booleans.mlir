// relax-widen-booleans: an i1 tensor that a linalg.generic computes into a
// tensor.empty and that only linalg.generics read becomes an i8 tensor (the
// bit extended); each reader truncates it back in its body. Other i1 tensors
// stay: a function's i1 result, an i1 function argument, an init the body
// reads (a reduction's).
// RUN: relax-opt %s --pass-pipeline='builtin.module(func.func(relax-widen-booleans))' | FileCheck %s
// The CPU schedule then vectorizes the mask and its readers (no scalar loop).
// RUN: relax-opt %s --pass-pipeline='builtin.module(func.func(relax-widen-booleans,relax-cpu-select-tiles,relax-cpu-tile,relax-cpu-vectorize))' | FileCheck %s --check-prefix=VEC

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// A causal mask read twice (by two wheres), one of which broadcasts it.
// CHECK-LABEL: func.func @mask(
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<64x64xi8>
// CHECK:         %[[M:.*]] = linalg.generic {{.*}} outs(%[[E]] : tensor<64x64xi8>)
// CHECK-NEXT:    ^bb0(%[[OUT:.*]]: i8):
// CHECK:           %[[LE:.*]] = arith.cmpi ule
// CHECK-NEXT:      %[[B:.*]] = arith.extui %[[LE]] : i1 to i8
// CHECK-NEXT:      linalg.yield %[[B]] : i8
// CHECK:         linalg.generic {{.*}} ins(%[[M]], %{{.*}} : tensor<64x64xi8>, tensor<64x64xf32>)
// CHECK-NEXT:    ^bb0(%[[W:.*]]: i8, %[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[T:.*]] = arith.trunci %[[W]] : i8 to i1
// CHECK-NEXT:      arith.select %[[T]], %[[X]]
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %[[M]] : tensor<64xf32>, tensor<64x64xi8>)
// CHECK-NEXT:    ^bb0(%{{.*}}: f32, %[[W2:.*]]: i8, %{{.*}}: f32):
// CHECK-NEXT:      %[[T2:.*]] = arith.trunci %[[W2]] : i8 to i1
// VEC-LABEL: func.func @mask(
// VEC-NOT:     linalg.generic
// VEC:         arith.trunci {{.*}} : vector<{{.*}}xi8> to vector<{{.*}}xi1>
// VEC:         arith.select {{.*}} : vector<{{.*}}xi1>, vector<{{.*}}xf32>
// VEC-LABEL: func.func @returned(
func.func @mask(%x: tensor<64x64xf32>, %b: tensor<64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %e = tensor.empty() : tensor<64x64xi1>
  %m = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<64x64xi1>) {
  ^bb0(%out: i1):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %le = arith.cmpi ule, %j, %i : index
    linalg.yield %le : i1
  } -> tensor<64x64xi1>
  %zero = arith.constant 0.0 : f32
  %f = tensor.empty() : tensor<64x64xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%m, %x : tensor<64x64xi1>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) {
  ^bb0(%w: i1, %v: f32, %out: f32):
    %s = arith.select %w, %v, %zero : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  %z = linalg.generic {indexing_maps = [#row, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%b, %m : tensor<64xf32>, tensor<64x64xi1>) outs(%f : tensor<64x64xf32>) {
  ^bb0(%v: f32, %w: i1, %out: f32):
    %s = arith.select %w, %v, %zero : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  return %y, %z : tensor<64x64xf32>, tensor<64x64xf32>
}

// Returned as well as read: stays i1.
// CHECK-LABEL: func.func @returned(
// CHECK-NOT:     i8
// CHECK:         return
func.func @returned(%x: tensor<64xf32>) -> (tensor<64xi1>, tensor<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xi1>
  %m = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<64xf32>) outs(%e : tensor<64xi1>) {
  ^bb0(%v: f32, %out: i1):
    %gt = arith.cmpf ogt, %v, %zero : f32
    linalg.yield %gt : i1
  } -> tensor<64xi1>
  %f = tensor.empty() : tensor<64xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%m, %x : tensor<64xi1>, tensor<64xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%w: i1, %v: f32, %out: f32):
    %s = arith.select %w, %v, %zero : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %m, %y : tensor<64xi1>, tensor<64xf32>
}

// An i1 argument read by a generic, and an "any" reduction whose i1 init
// (a fill) the body reads: both stay i1.
// CHECK-LABEL: func.func @argument_and_reduction(
// CHECK-NOT:     i8
// CHECK:         return
func.func @argument_and_reduction(%m: tensor<64xi1>) -> tensor<i1> {
  %false = arith.constant false
  %e = tensor.empty() : tensor<i1>
  %init = linalg.fill ins(%false : i1) outs(%e : tensor<i1>) -> tensor<i1>
  %any = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%m : tensor<64xi1>) outs(%init : tensor<i1>) {
  ^bb0(%w: i1, %acc: i1):
    %o = arith.ori %w, %acc : i1
    linalg.yield %o : i1
  } -> tensor<i1>
  return %any : tensor<i1>
}
