// RUN: relax-opt %s --gradient=func=main --relax-to-llvm | mlir-runner -e entry -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
// The same adjoint through the GPU pipeline, its kernels emulated on the host:
// RUN: relax-opt %s --gradient=func=main --relax-to-gpu-emulator | mlir-runner -e entry -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s

// The math lowering (tanh, exp, sigmoid, log, broadcasting divide) in both the
// forward pass and its adjoint:
//   loss = sum(exp(tanh(x)) / sigmoid(y) + log(x) * s)
// with x: (3), y: (2, 3) (x's terms broadcast over the rows), s: 0-d.
//
// The expected numbers were computed independently with numpy (float64), by
// hand-written backprop
//   t = tanh(x), e = exp(t), g = sigmoid(y)
//   dx = sum_rows(1/g) * e * (1 - t^2) + 2 * s / x
//   dy = -(e / g^2) * g * (1 - g)
//   ds = 2 * sum(log(x))
// checked against central finite differences (eps = 1e-6, rtol = atol = 1e-6).
// The checks keep the first 5 significant digits of numpy's 6-digit values
// (a float32 evaluation in numpy agrees with them on those digits):
//   loss = 27.9953
//   dx = [9.64766, 3.18725, 0.772735]
//   dy = [[-4.31509, -1.92543, -0.362988], [-0.962826, -5.23386, -0.768445]]
//   ds = 1.25722

func.func @main(%x: tensor<3xf32>, %y: tensor<2x3xf32>, %s: tensor<f32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %t = relax.tanh %x : tensor<3xf32>
    %e = relax.exp %t : tensor<3xf32>
    %g = relax.sigmoid %y : tensor<2x3xf32>
    %q = relax.divide %e, %g : tensor<3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
    %l = relax.log %x : tensor<3xf32>
    %m = relax.multiply %l, %s : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
    %a = relax.add %q, %m : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
    %loss = relax.sum %a : tensor<2x3xf32> -> tensor<f32>
    relax.output %loss : tensor<f32>
  }
  return %r : tensor<f32>
}

func.func private @printMemrefF32(tensor<*xf32>)

func.func private @main_adjoint(tensor<3xf32>, tensor<2x3xf32>, tensor<f32>)
    -> tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<2x3xf32>, tensor<f32>>>

func.func @entry() {
  %x = arith.constant dense<[0.5, 1.5, 2.5]> : tensor<3xf32>
  %y = arith.constant dense<[[-1.0, 0.25, 2.0], [0.5, -0.75, 1.25]]> : tensor<2x3xf32>
  %s = arith.constant dense<0.75> : tensor<f32>
  %t = call @main_adjoint(%x, %y, %s) : (tensor<3xf32>, tensor<2x3xf32>, tensor<f32>)
      -> tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<2x3xf32>, tensor<f32>>>
  %r:4 = relax.dataflow -> (tensor<f32>, tensor<3xf32>, tensor<2x3xf32>, tensor<f32>) {
    %l = relax.tuple_get_item %t[0] : tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<2x3xf32>, tensor<f32>>>
    %g = relax.tuple_get_item %t[1] : tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<2x3xf32>, tensor<f32>>>
    %gx = relax.tuple_get_item %g[0] : tuple<tensor<3xf32>, tensor<2x3xf32>, tensor<f32>>
    %gy = relax.tuple_get_item %g[1] : tuple<tensor<3xf32>, tensor<2x3xf32>, tensor<f32>>
    %gs = relax.tuple_get_item %g[2] : tuple<tensor<3xf32>, tensor<2x3xf32>, tensor<f32>>
    relax.output %l, %gx, %gy, %gs : tensor<f32>, tensor<3xf32>, tensor<2x3xf32>, tensor<f32>
  }
  %u0 = tensor.cast %r#0 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  %u1 = tensor.cast %r#1 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()
  %u2 = tensor.cast %r#2 : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u2) : (tensor<*xf32>) -> ()
  %u3 = tensor.cast %r#3 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%u3) : (tensor<*xf32>) -> ()
  return
}

// loss
// CHECK:      rank = 0 offset = 0 sizes = [] strides = [] data =
// CHECK-NEXT: [27.995{{[0-9]*}}]

// d loss / d x
// CHECK:      rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [9.6476{{[0-9]*}}, 3.1872{{[0-9]*}}, 0.77273{{[0-9]*}}]

// d loss / d y
// CHECK:      rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK-NEXT: {{\[\[}}-4.3150{{[0-9]*}}, -1.9254{{[0-9]*}}, -0.36298{{[0-9]*}}],
// CHECK-NEXT:  [-0.96282{{[0-9]*}}, -5.2338{{[0-9]*}}, -0.76844{{[0-9]*}}]]

// d loss / d s
// CHECK:      rank = 0 offset = 0 sizes = [] strides = [] data =
// CHECK-NEXT: [1.2572{{[0-9]*}}]
