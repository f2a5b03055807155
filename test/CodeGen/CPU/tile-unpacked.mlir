// relax-cpu-tile makes no copy: an op whose tiles still ask for one is an
// error that names the pass to run first.
// RUN: not relax-opt %s --relax-cpu-tile 2>&1 | FileCheck %s

// CHECK: error: 'linalg.matmul' op asks for a copy first (pack = columns): run relax-cpu-pack before relax-cpu-tile
func.func @not_packed(%a: tensor<8x16xf32>, %b: tensor<32x16xf32>, %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] {relax_cpu.tiles = #relax_cpu.tiles<contraction = true, pack = columns>} ins(%a, %b : tensor<8x16xf32>, tensor<32x16xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}
