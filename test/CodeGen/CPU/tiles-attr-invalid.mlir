// #relax_cpu.tiles is verified on its own and against the op it is on.
// RUN: relax-opt %s --split-input-file --verify-diagnostics

func.func @round_trip(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>, %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %0 = linalg.matmul {relax_cpu.tiles = #relax_cpu.tiles<panel_cols = 16, pack = panels, contraction = true, outer = [8, 16, 0], inner = [0, 0, 1]>} ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

func.func @negative(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'outer' has a negative tile size}}
  %0 = linalg.exp {relax_cpu.tiles = #relax_cpu.tiles<outer = [-1]>} ins(%a : tensor<8xf32>) outs(%a : tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @lengths(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'inner' has 2 sizes where 'outer' has 1}}
  %0 = linalg.exp {relax_cpu.tiles = #relax_cpu.tiles<outer = [8], inner = [0, 1]>} ins(%a : tensor<8xf32>) outs(%a : tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @split_k(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'split_k' applies to a contraction only}}
  %0 = linalg.exp {relax_cpu.tiles = #relax_cpu.tiles<outer = [8], split_k = 4>} ins(%a : tensor<8xf32>) outs(%a : tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @panel_cols(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>, %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  // expected-error @+1 {{'panel_cols' goes with pack = panels, and only with it}}
  %0 = linalg.matmul {relax_cpu.tiles = #relax_cpu.tiles<contraction = true, pack = panels>} ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

func.func @im2col_tiles(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{a convolution packed as im2col has no tiles of its own}}
  %0 = linalg.exp {relax_cpu.tiles = #relax_cpu.tiles<outer = [8], pack = im2col_batch>} ins(%a : tensor<8xf32>) outs(%a : tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @rows_not_contraction(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{pack = rows applies to a contraction only}}
  %0 = linalg.exp {relax_cpu.tiles = #relax_cpu.tiles<pack = rows>} ins(%a : tensor<8xf32>) outs(%a : tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @unknown_field(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{duplicate or unknown struct parameter name: outr}}
  %0 = linalg.exp {relax_cpu.tiles = #relax_cpu.tiles<outr = [8]>} ins(%a : tensor<8xf32>) outs(%a : tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @not_linalg(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{carries 'relax_cpu.tiles' but is not a linalg op}}
  %0 = tensor.empty() {relax_cpu.tiles = #relax_cpu.tiles<outer = [8]>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @loops(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{has 1 loops but its tiles give 2 sizes}}
  %0 = linalg.exp {relax_cpu.tiles = #relax_cpu.tiles<outer = [8, 1]>} ins(%a : tensor<8xf32>) outs(%a : tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @inner_parallel(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>, %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  // expected-error @+1 {{tiles its parallel loop 0 in 'inner'}}
  %0 = linalg.matmul {relax_cpu.tiles = #relax_cpu.tiles<outer = [8, 16, 0], inner = [1, 0, 1], contraction = true>} ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

func.func @no_reduction(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{is tiled as a contraction but has no reduction loop}}
  %0 = linalg.exp {relax_cpu.tiles = #relax_cpu.tiles<outer = [8], contraction = true>} ins(%a : tensor<8xf32>) outs(%a : tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @im2col_on_matmul(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>, %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  // expected-error @+1 {{pack = im2col_image applies to linalg.conv_2d_nchw_fchw only}}
  %0 = linalg.matmul {relax_cpu.tiles = #relax_cpu.tiles<pack = im2col_image>} ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

func.func @unknown_attribute(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{has unknown attribute 'relax_cpu.tile' of the relax_cpu dialect}}
  %0 = linalg.exp {relax_cpu.tile = #relax_cpu.tiles<outer = [8]>} ins(%a : tensor<8xf32>) outs(%a : tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

