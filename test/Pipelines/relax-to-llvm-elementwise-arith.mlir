// RUN: relax-opt %s --relax-to-llvm | FileCheck %s
// RUN: relax-opt %s --relax-to-llvm | mlir-runner -e entry -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s --check-prefix=EXEC

// An elementwise arith op on tensors beside the relax ops lowers with them (it
// was left unbufferized: "op was not bufferized").
// CHECK-LABEL: llvm.func @negate_then_exp(
// CHECK-NOT:     arith.negf
func.func @negate_then_exp(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = relax.dataflow -> (tensor<3xf32>) {
    %n = arith.negf %x : tensor<3xf32>
    %e = relax.exp %n : tensor<3xf32>
    relax.output %e : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

func.func private @printMemrefF32(tensor<*xf32>)

// exp(-[0, 1, 2]) = [1, 0.367879, 0.135335]
// EXEC: rank = 1 offset = 0 sizes = [3] strides = [1] data =
// EXEC-NEXT: [1, 0.36787{{[0-9]*}}, 0.13533{{[0-9]*}}]
func.func @entry() {
  %x = arith.constant dense<[0.0, 1.0, 2.0]> : tensor<3xf32>
  %y = call @negate_then_exp(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %u = tensor.cast %y : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
