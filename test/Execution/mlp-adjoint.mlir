// RUN: relax-opt %s --gradient=func=main --relax-to-llvm | mlir-runner -e entry -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
// The same adjoint through the GPU pipeline, its kernels emulated on the host
// with every memory access checked:
// RUN: relax-opt %s --gradient=func=main --relax-to-gpu-emulator=check-bounds=1 | mlir-runner -e entry -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s

// A two-layer MLP loss, mean(relu(relu(x @ w1 + b1) @ w2 + b2)), and its
// gradients with respect to every parameter, computed by @main_adjoint and run.
//
// The expected numbers were computed independently with numpy (float64):
// forward pass, hand-written backprop
//   gz2 = (1/8) * (z2 > 0); gw2 = h^T gz2; gb2 = sum_rows(gz2); gh = gz2 w2^T
//   gz1 = gh * (z1 > 0);    gw1 = x^T gz1; gb1 = sum_rows(gz1); gx = gz1 w1^T
// checked against central finite differences (eps = 1e-6, atol = 1e-6).
// The inputs are dyadic and no pre-activation is 0, so the float32 results are
// exact: z1 = [[-0.375, 2.25], [0.375, 3.75], [-1.25, 2.25], [1.375, -0.25]],
// z2 = [[1.1875, 0.8125], [2.6875, 1], [1.1875, 0.8125], [0.875, -0.4375]],
// loss = 8.5625 / 8 = 1.0703125 (printed with 6 significant digits).

func.func @main(%x: tensor<4x3xf32>, %w1: tensor<3x2xf32>, %b1: tensor<2xf32>,
                %w2: tensor<2x2xf32>, %b2: tensor<2xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.matmul %x, %w1 : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
    %1 = relax.add %0, %b1 : tensor<4x2xf32>, tensor<2xf32> -> tensor<4x2xf32>
    %2 = relax.relu %1 : tensor<4x2xf32>
    %3 = relax.matmul %2, %w2 : tensor<4x2xf32>, tensor<2x2xf32> -> tensor<4x2xf32>
    %4 = relax.add %3, %b2 : tensor<4x2xf32>, tensor<2xf32> -> tensor<4x2xf32>
    %5 = relax.relu %4 : tensor<4x2xf32>
    %6 = relax.mean %5 : tensor<4x2xf32> -> tensor<f32>
    relax.output %6 : tensor<f32>
  }
  return %r : tensor<f32>
}

func.func private @printMemrefF32(tensor<*xf32>)

func.func private @main_adjoint(tensor<4x3xf32>, tensor<3x2xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<2xf32>)
    -> tuple<tensor<f32>, tuple<tensor<4x3xf32>, tensor<3x2xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<2xf32>>>

func.func @entry() {
  %x = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [-1.0, 0.5, 2.0], [0.0, 1.0, -2.0]]> : tensor<4x3xf32>
  %w1 = arith.constant dense<[[0.5, -1.0], [0.25, 1.0], [-0.5, 0.5]]> : tensor<3x2xf32>
  %b1 = arith.constant dense<[0.125, -0.25]> : tensor<2xf32>
  %w2 = arith.constant dense<[[1.0, -0.5], [0.75, 0.25]]> : tensor<2x2xf32>
  %b2 = arith.constant dense<[-0.5, 0.25]> : tensor<2xf32>
  %t = call @main_adjoint(%x, %w1, %b1, %w2, %b2)
      : (tensor<4x3xf32>, tensor<3x2xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<2xf32>)
      -> tuple<tensor<f32>, tuple<tensor<4x3xf32>, tensor<3x2xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<2xf32>>>
  %r:6 = relax.dataflow -> (tensor<f32>, tensor<4x3xf32>, tensor<3x2xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<2xf32>) {
    %l = relax.tuple_get_item %t[0] : tuple<tensor<f32>, tuple<tensor<4x3xf32>, tensor<3x2xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<2xf32>>>
    %g = relax.tuple_get_item %t[1] : tuple<tensor<f32>, tuple<tensor<4x3xf32>, tensor<3x2xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<2xf32>>>
    %gx = relax.tuple_get_item %g[0] : tuple<tensor<4x3xf32>, tensor<3x2xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<2xf32>>
    %gw1 = relax.tuple_get_item %g[1] : tuple<tensor<4x3xf32>, tensor<3x2xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<2xf32>>
    %gb1 = relax.tuple_get_item %g[2] : tuple<tensor<4x3xf32>, tensor<3x2xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<2xf32>>
    %gw2 = relax.tuple_get_item %g[3] : tuple<tensor<4x3xf32>, tensor<3x2xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<2xf32>>
    %gb2 = relax.tuple_get_item %g[4] : tuple<tensor<4x3xf32>, tensor<3x2xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<2xf32>>
    relax.output %l, %gx, %gw1, %gb1, %gw2, %gb2 : tensor<f32>, tensor<4x3xf32>, tensor<3x2xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<2xf32>
  }
  %u0 = tensor.cast %r#0 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  %u1 = tensor.cast %r#1 : tensor<4x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()
  %u2 = tensor.cast %r#2 : tensor<3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u2) : (tensor<*xf32>) -> ()
  %u3 = tensor.cast %r#3 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%u3) : (tensor<*xf32>) -> ()
  %u4 = tensor.cast %r#4 : tensor<2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u4) : (tensor<*xf32>) -> ()
  %u5 = tensor.cast %r#5 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%u5) : (tensor<*xf32>) -> ()
  return
}

// loss
// CHECK:      rank = 0 offset = 0 sizes = [] strides = [] data =
// CHECK-NEXT: [1.07031]

// d loss / d x
// CHECK:      rank = 2 offset = 0 sizes = [4, 3] strides = [3, 1] data =
// CHECK-NEXT: {{\[\[}}-0.125, 0.125, 0.0625],
// CHECK-NEXT:  [-0.09375, 0.140625, 0.03125],
// CHECK-NEXT:  [-0.125, 0.125, 0.0625],
// CHECK-NEXT:  [0.0625, 0.03125, -0.0625]]

// d loss / d w1
// CHECK:      rank = 2 offset = 0 sizes = [3, 2] strides = [2, 1] data =
// CHECK-NEXT: {{\[\[}}0.25, 0.5],
// CHECK-NEXT:  [0.4375, 0.9375],
// CHECK-NEXT:  [0.125, 1.375]]

// d loss / d b1
// CHECK:      rank = 1 offset = 0 sizes = [2] strides = [1] data =
// CHECK-NEXT: [0.1875, 0.375]

// d loss / d w2
// CHECK:      rank = 2 offset = 0 sizes = [2, 2] strides = [2, 1] data =
// CHECK-NEXT: {{\[\[}}0.21875, 0.046875],
// CHECK-NEXT:  [1.03125, 1.03125]]

// d loss / d b2
// CHECK:      rank = 1 offset = 0 sizes = [2] strides = [1] data =
// CHECK-NEXT: [0.5, 0.375]
