// relax-cpu-vectorize splits an op whose result's innermost dimension is
// longer than one vector and not a power of two into pieces of power-of-two
// lengths, largest first, each vectorized on its own; LLVM takes a vector of
// another length apart element by element.
// RUN: relax-opt %s --relax-cpu-vectorize=vector-bits=512 --canonicalize | FileCheck %s --check-prefix=ZMM
// RUN: relax-opt %s --relax-cpu-vectorize=vector-bits=256 --canonicalize | FileCheck %s --check-prefix=YMM

#id = affine_map<(i, j) -> (i, j)>

// 56 floats: 32 + 16 + 8 at either width (16 or 8 lanes).
// ZMM-LABEL: func.func @tanh_6x56(
// ZMM-NOT:     vector<6x56xf32>
// ZMM-DAG:     math.tanh {{.*}} : vector<6x32xf32>
// ZMM-DAG:     math.tanh {{.*}} : vector<6x16xf32>
// ZMM-DAG:     math.tanh {{.*}} : vector<6x8xf32>
// ZMM-NOT:     vector<6x56xf32>
// YMM-LABEL: func.func @tanh_6x56(
// YMM-DAG:     math.tanh {{.*}} : vector<6x32xf32>
// YMM-DAG:     math.tanh {{.*}} : vector<6x16xf32>
// YMM-DAG:     math.tanh {{.*}} : vector<6x8xf32>
func.func @tanh_6x56(%x: tensor<6x56xf32>) -> tensor<6x56xf32> {
  %e = tensor.empty() : tensor<6x56xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<6x56xf32>) outs(%e : tensor<6x56xf32>) {
  ^bb0(%a: f32, %b: f32):
    %t = math.tanh %a : f32
    linalg.yield %t : f32
  } -> tensor<6x56xf32>
  return %r : tensor<6x56xf32>
}

// 12 floats: within one vector of 16 lanes (kept whole), 8 + 4 at 8 lanes.
// ZMM-LABEL: func.func @tanh_6x12(
// ZMM:         math.tanh {{.*}} : vector<6x12xf32>
// ZMM-NOT:     math.tanh
// YMM-LABEL: func.func @tanh_6x12(
// YMM-NOT:     vector<6x12xf32>
// YMM-DAG:     math.tanh {{.*}} : vector<6x8xf32>
// YMM-DAG:     math.tanh {{.*}} : vector<6x4xf32>
func.func @tanh_6x12(%x: tensor<6x12xf32>) -> tensor<6x12xf32> {
  %e = tensor.empty() : tensor<6x12xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<6x12xf32>) outs(%e : tensor<6x12xf32>) {
  ^bb0(%a: f32, %b: f32):
    %t = math.tanh %a : f32
    linalg.yield %t : f32
  } -> tensor<6x12xf32>
  return %r : tensor<6x12xf32>
}

// A fill stays whole (one constant stored), so the pieces that accumulate
// into it share its one buffer; a dimension of a power-of-two length (64:
// four registers) stays whole; f64 has half the lanes (24 = 16 + 8 at 8).
// ZMM-LABEL: func.func @fill_and_powers(
// ZMM:         vector.transfer_write {{.*}} : vector<6x56xf32>, tensor<6x56xf32>
// ZMM:         math.tanh {{.*}} : vector<6x64xf32>
// ZMM-DAG:     math.tanh {{.*}} : vector<2x16xf64>
// ZMM-DAG:     math.tanh {{.*}} : vector<2x8xf64>
func.func @fill_and_powers(%x: tensor<6x64xf32>, %y: tensor<2x24xf64>)
    -> (tensor<6x56xf32>, tensor<6x64xf32>, tensor<2x24xf64>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x56xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<6x56xf32>) -> tensor<6x56xf32>
  %e2 = tensor.empty() : tensor<6x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<6x64xf32>) outs(%e2 : tensor<6x64xf32>) {
  ^bb0(%a: f32, %b: f32):
    %t = math.tanh %a : f32
    linalg.yield %t : f32
  } -> tensor<6x64xf32>
  %e3 = tensor.empty() : tensor<2x24xf64>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<2x24xf64>) outs(%e3 : tensor<2x24xf64>) {
  ^bb0(%a: f64, %b: f64):
    %t = math.tanh %a : f64
    linalg.yield %t : f64
  } -> tensor<2x24xf64>
  return %f, %r, %d : tensor<6x56xf32>, tensor<6x64xf32>, tensor<2x24xf64>
}
