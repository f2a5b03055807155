// RUN: relax-opt %s --gradient=func=main --relax-to-llvm | mlir-runner -e entry -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
// The same adjoint through the GPU pipeline, its kernels emulated on the host:
// RUN: relax-opt %s --gradient=func=main --relax-to-gpu-emulator | mlir-runner -e entry -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s

// Gradients through shape manipulation, run: batched matmul with broadcast
// batch dims, permute_dims, reshape, matrix-vector matmul, greater/where,
// negative, sum with keepdims, broadcasting subtract and multiply:
//   mm = a @ b                           (2,1,2,3) @ (3,3,2) -> (2,3,2,2)
//   r  = reshape(permute_dims(mm, [3, 0, 2, 1]), (4, 6))
//   mv = r @ u                           (4,6) @ (6) -> (4)
//   d  = r - sum(r, axis=1, keepdims)
//   loss = sum(where(mv > 0, mv, -mv)) + sum(d * d)
//
// The expected numbers were computed independently with numpy (float64): the
// same forward pass, hand-written backprop (inverse transpose, batch sums of
// the matmul adjoints), checked against central finite differences
// (eps = 1e-6, atol = 1e-5). The inputs are multiples of 1/4 and no entry of mv
// is 0 (mv = [0.828125, -1.390625, -1.203125, 0.3125]), so the float32 results
// are exact; loss = 60.890625 (printed with 6 significant digits). The
// gradients of a and b are printed reshaped to 4x3 and 9x2.

func.func @main(%a: tensor<2x1x2x3xf32>, %b: tensor<3x3x2xf32>, %u: tensor<6xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %mm = relax.matmul %a, %b : tensor<2x1x2x3xf32>, tensor<3x3x2xf32> -> tensor<2x3x2x2xf32>
    %p = relax.permute_dims %mm {axes = array<i64: 3, 0, 2, 1>} : tensor<2x3x2x2xf32> -> tensor<2x2x2x3xf32>
    %rr = relax.reshape %p : tensor<2x2x2x3xf32> -> tensor<4x6xf32>
    %mv = relax.matmul %rr, %u : tensor<4x6xf32>, tensor<6xf32> -> tensor<4xf32>
    %zero = arith.constant dense<0.0> : tensor<f32>
    %pos = relax.greater %mv, %zero : tensor<4xf32>, tensor<f32> -> tensor<4xi1>
    %neg = relax.negative %mv : tensor<4xf32>
    %c = relax.where %pos, %mv, %neg : tensor<4xi1>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %sr = relax.sum %rr {axis = array<i64: 1>, keepdims = true} : tensor<4x6xf32> -> tensor<4x1xf32>
    %d = relax.subtract %rr, %sr : tensor<4x6xf32>, tensor<4x1xf32> -> tensor<4x6xf32>
    %d2 = relax.multiply %d, %d : tensor<4x6xf32>, tensor<4x6xf32> -> tensor<4x6xf32>
    %s1 = relax.sum %c : tensor<4xf32> -> tensor<f32>
    %s2 = relax.sum %d2 : tensor<4x6xf32> -> tensor<f32>
    %loss = relax.add %s1, %s2 : tensor<f32>, tensor<f32> -> tensor<f32>
    relax.output %loss : tensor<f32>
  }
  return %r : tensor<f32>
}

func.func private @printMemrefF32(tensor<*xf32>)

func.func private @main_adjoint(tensor<2x1x2x3xf32>, tensor<3x3x2xf32>, tensor<6xf32>)
    -> tuple<tensor<f32>, tuple<tensor<2x1x2x3xf32>, tensor<3x3x2xf32>, tensor<6xf32>>>

func.func @entry() {
  %a = arith.constant dense<[[[[1.0, 0.25, 0.5], [1.0, 0.25, 0.5]]], [[[0.75, -0.5, -1.0], [-0.5, -0.5, 0.75]]]]> : tensor<2x1x2x3xf32>
  %b = arith.constant dense<[[[1.0, -1.0], [0.0, 0.75], [-0.75, 0.75]], [[-0.75, 0.0], [0.75, -0.5], [-0.25, -0.5]], [[0.5, -0.5], [1.0, 0.0], [0.0, 0.0]]]> : tensor<3x3x2xf32>
  %u = arith.constant dense<[0.25, 0.0, 0.0, 1.0, 0.75, 0.75]> : tensor<6xf32>
  %t = call @main_adjoint(%a, %b, %u) : (tensor<2x1x2x3xf32>, tensor<3x3x2xf32>, tensor<6xf32>)
      -> tuple<tensor<f32>, tuple<tensor<2x1x2x3xf32>, tensor<3x3x2xf32>, tensor<6xf32>>>
  %r:4 = relax.dataflow -> (tensor<f32>, tensor<4x3xf32>, tensor<9x2xf32>, tensor<6xf32>) {
    %l = relax.tuple_get_item %t[0] : tuple<tensor<f32>, tuple<tensor<2x1x2x3xf32>, tensor<3x3x2xf32>, tensor<6xf32>>>
    %g = relax.tuple_get_item %t[1] : tuple<tensor<f32>, tuple<tensor<2x1x2x3xf32>, tensor<3x3x2xf32>, tensor<6xf32>>>
    %ga = relax.tuple_get_item %g[0] : tuple<tensor<2x1x2x3xf32>, tensor<3x3x2xf32>, tensor<6xf32>>
    %gb = relax.tuple_get_item %g[1] : tuple<tensor<2x1x2x3xf32>, tensor<3x3x2xf32>, tensor<6xf32>>
    %gu = relax.tuple_get_item %g[2] : tuple<tensor<2x1x2x3xf32>, tensor<3x3x2xf32>, tensor<6xf32>>
    %ga2 = relax.reshape %ga : tensor<2x1x2x3xf32> -> tensor<4x3xf32>
    %gb2 = relax.reshape %gb : tensor<3x3x2xf32> -> tensor<9x2xf32>
    relax.output %l, %ga2, %gb2, %gu : tensor<f32>, tensor<4x3xf32>, tensor<9x2xf32>, tensor<6xf32>
  }
  %u0 = tensor.cast %r#0 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  %u1 = tensor.cast %r#1 : tensor<4x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()
  %u2 = tensor.cast %r#2 : tensor<9x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u2) : (tensor<*xf32>) -> ()
  %u3 = tensor.cast %r#3 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u3) : (tensor<*xf32>) -> ()
  return
}

// loss
// CHECK:      rank = 0 offset = 0 sizes = [] strides = [] data =
// CHECK-NEXT: [60.8906]

// d loss / d a, reshaped to 4x3
// CHECK:      rank = 2 offset = 0 sizes = [4, 3] strides = [3, 1] data =
// CHECK-NEXT: {{\[\[}}44.6562, 14, -17.5],
// CHECK-NEXT:  [46.3438, 15.125, -18.4375],
// CHECK-NEXT:  [7.90625, -24.4062, 4.03125],
// CHECK-NEXT:  [-6.03125, -21.3125, 13.2812]]

// d loss / d b, reshaped to 9x2
// CHECK:      rank = 2 offset = 0 sizes = [9, 2] strides = [2, 1] data =
// CHECK-NEXT: {{\[\[}}26.75, -50.1875],
// CHECK-NEXT:  [17.125, -5.1875],
// CHECK-NEXT:  [10.4062, -15.8438],
// CHECK-NEXT:  [16.9062, -44.75],
// CHECK-NEXT:  [16.75, -6.5625],
// CHECK-NEXT:  [13.1562, -21.875],
// CHECK-NEXT:  [24.0625, -47.3125],
// CHECK-NEXT:  [18.1875, -5.9375],
// CHECK-NEXT:  [14.0625, -19.3125]]

// d loss / d u
// CHECK:      rank = 1 offset = 0 sizes = [6] strides = [1] data =
// CHECK-NEXT: [-2.3125, 1.125, 1, 2.8125, -0.25, 2.25]
