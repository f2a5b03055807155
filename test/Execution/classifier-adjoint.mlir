// RUN: relax-opt %s --gradient=func=main --relax-to-llvm | mlir-runner -e entry -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
// The same adjoint through the GPU pipeline, its kernels emulated on the host:
// RUN: relax-opt %s --gradient=func=main --relax-to-gpu-emulator | mlir-runner -e entry -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s

// A small classifier's loss and its gradients with respect to every float
// parameter, computed by @main_adjoint and run: layer_norm, matmul + bias,
// softmax followed by log, and log_softmax, into two nll_loss (one "mean" with
// class weights, one "sum"); the third target is ignore_index (-100):
//   h  = layer_norm(x, gamma, beta) over the last axis (eps = 1e-5)
//   z  = h @ w + b
//   loss = nll_loss(log(softmax(z)), t, cw) + 0.5 * nll_loss(log_softmax(z), t, "sum")
//
// The expected numbers were computed independently with numpy (float64): the
// same forward pass and hand-written backprop
//   dlp = -onehot(t) * cw[t] / D (D = sum of cw over the valid targets),
//   dcw[c] = sum over valid n with t_n = c of (-lp[n, c] - l1) / D,
//   dz = p * (dp - sum(dp * p)) with dp = dlp / p (softmax then log), plus
//        dls - p * sum(dls) with dls = -0.5 * onehot(t) (log_softmax),
//   dw = h^T dz, db = sum_rows(dz), dh = dz w^T, dgamma = sum_rows(dh * xhat),
//   dbeta = sum_rows(dh), dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)),
// checked against central finite differences (eps = 1e-6, atol = 1e-6).
// The checks keep the first 5 significant digits of numpy's 6-digit values
// (the float32 run agrees with them on those digits). The ignored target's row
// of d x is exactly 0 (printed 0 or -0).

func.func @main(%x: tensor<4x3xf32>, %gamma: tensor<3xf32>, %beta: tensor<3xf32>, %w: tensor<3x3xf32>,
                %b: tensor<3xf32>, %cw: tensor<3xf32>, %t: tensor<4xi64>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %h = relax.layer_norm %x, %gamma, %beta {axes = array<i64: -1>} : tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>
    %mm = relax.matmul %h, %w : tensor<4x3xf32>, tensor<3x3xf32> -> tensor<4x3xf32>
    %z = relax.add %mm, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
    %p = relax.softmax %z : tensor<4x3xf32>
    %lp = relax.log %p : tensor<4x3xf32>
    %l1 = relax.nll_loss %lp, %t, %cw : tensor<4x3xf32>, tensor<4xi64>, tensor<3xf32> -> tensor<f32>
    %ls = relax.log_softmax %z {axis = 1 : i64} : tensor<4x3xf32>
    %l2 = relax.nll_loss %ls, %t {reduction = "sum"} : tensor<4x3xf32>, tensor<4xi64> -> tensor<f32>
    %half = arith.constant dense<0.5> : tensor<f32>
    %l2h = relax.multiply %l2, %half : tensor<f32>, tensor<f32> -> tensor<f32>
    %loss = relax.add %l1, %l2h : tensor<f32>, tensor<f32> -> tensor<f32>
    relax.output %loss : tensor<f32>
  }
  return %r : tensor<f32>
}

func.func private @printMemrefF32(tensor<*xf32>)

func.func private @main_adjoint(tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4xi64>)
    -> tuple<tensor<f32>, tuple<tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3x3xf32>, tensor<3xf32>, tensor<3xf32>>>

func.func @entry() {
  %x = arith.constant dense<[[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [-2.0, 1.0, 0.75], [0.0, 3.0, -1.25]]> : tensor<4x3xf32>
  %gamma = arith.constant dense<[1.5, -0.5, 0.75]> : tensor<3xf32>
  %beta = arith.constant dense<[0.25, 0.0, -0.5]> : tensor<3xf32>
  %w = arith.constant dense<[[1.0, -0.5, 0.25], [0.5, 0.75, -1.0], [-0.25, 1.25, 0.5]]> : tensor<3x3xf32>
  %b = arith.constant dense<[0.1, -0.2, 0.3]> : tensor<3xf32>
  %cw = arith.constant dense<[0.5, 2.0, 1.0]> : tensor<3xf32>
  %t = arith.constant dense<[2, 0, -100, 1]> : tensor<4xi64>
  %a = call @main_adjoint(%x, %gamma, %beta, %w, %b, %cw, %t)
      : (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4xi64>)
      -> tuple<tensor<f32>, tuple<tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3x3xf32>, tensor<3xf32>, tensor<3xf32>>>
  %r:7 = relax.dataflow -> (tensor<f32>, tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3x3xf32>, tensor<3xf32>, tensor<3xf32>) {
    %l = relax.tuple_get_item %a[0] : tuple<tensor<f32>, tuple<tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3x3xf32>, tensor<3xf32>, tensor<3xf32>>>
    %g = relax.tuple_get_item %a[1] : tuple<tensor<f32>, tuple<tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3x3xf32>, tensor<3xf32>, tensor<3xf32>>>
    %gx = relax.tuple_get_item %g[0] : tuple<tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3x3xf32>, tensor<3xf32>, tensor<3xf32>>
    %ggamma = relax.tuple_get_item %g[1] : tuple<tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3x3xf32>, tensor<3xf32>, tensor<3xf32>>
    %gbeta = relax.tuple_get_item %g[2] : tuple<tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3x3xf32>, tensor<3xf32>, tensor<3xf32>>
    %gw = relax.tuple_get_item %g[3] : tuple<tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3x3xf32>, tensor<3xf32>, tensor<3xf32>>
    %gb = relax.tuple_get_item %g[4] : tuple<tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3x3xf32>, tensor<3xf32>, tensor<3xf32>>
    %gcw = relax.tuple_get_item %g[5] : tuple<tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3x3xf32>, tensor<3xf32>, tensor<3xf32>>
    relax.output %l, %gx, %ggamma, %gbeta, %gw, %gb, %gcw : tensor<f32>, tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3x3xf32>, tensor<3xf32>, tensor<3xf32>
  }
  %u0 = tensor.cast %r#0 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  %u1 = tensor.cast %r#1 : tensor<4x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()
  %u2 = tensor.cast %r#2 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%u2) : (tensor<*xf32>) -> ()
  %u3 = tensor.cast %r#3 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%u3) : (tensor<*xf32>) -> ()
  %u4 = tensor.cast %r#4 : tensor<3x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u4) : (tensor<*xf32>) -> ()
  %u5 = tensor.cast %r#5 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%u5) : (tensor<*xf32>) -> ()
  %u6 = tensor.cast %r#6 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%u6) : (tensor<*xf32>) -> ()
  return
}

// loss
// CHECK:      rank = 0 offset = 0 sizes = [] strides = [] data =
// CHECK-NEXT: [4.5026{{[0-9]*}}]

// d loss / d x
// CHECK:      rank = 2 offset = 0 sizes = [4, 3] strides = [3, 1] data =
// CHECK-NEXT: {{\[\[}}0.11302{{[0-9]*}}, -0.056514{{[0-9]*}}, -0.056511{{[0-9]*}}],
// CHECK-NEXT:  [-0.010634{{[0-9]*}}, 0.028355{{[0-9]*}}, -0.017721{{[0-9]*}}],
// CHECK-NEXT:  [{{-?}}0, {{-?}}0, {{-?}}0],
// CHECK-NEXT:  [0.70113{{[0-9]*}}, -0.20621{{[0-9]*}}, -0.49491{{[0-9]*}}]]

// d loss / d gamma
// CHECK:      rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [-0.39476{{[0-9]*}}, -2.8368{{[0-9]*}}, 1.0823{{[0-9]*}}]

// d loss / d beta
// CHECK:      rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [1.0016{{[0-9]*}}, -0.23401{{[0-9]*}}, -1.0016{{[0-9]*}}]

// d loss / d w
// CHECK:      rank = 2 offset = 0 sizes = [3, 3] strides = [3, 1] data =
// CHECK-NEXT: {{\[\[}}-0.12379{{[0-9]*}}, 0.33187{{[0-9]*}}, -0.20808{{[0-9]*}}],
// CHECK-NEXT:  [-0.093787{{[0-9]*}}, 0.89092{{[0-9]*}}, -0.79713{{[0-9]*}}],
// CHECK-NEXT:  [-0.32144{{[0-9]*}}, 1.4285{{[0-9]*}}, -1.1071{{[0-9]*}}]]

// d loss / d b
// CHECK:      rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [0.64709{{[0-9]*}}, -0.68837{{[0-9]*}}, 0.041278{{[0-9]*}}]

// d loss / d cw
// CHECK:      rank = 1 offset = 0 sizes = [3] strides = [1] data =
// CHECK-NEXT: [-0.60086{{[0-9]*}}, 0.23659{{[0-9]*}}, -0.17276{{[0-9]*}}]
