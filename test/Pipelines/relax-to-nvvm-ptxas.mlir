// The MLP adjoint (matmul, bias, tanh through libdevice, mean) lowers to a
// GPU binary: PTX for sm_90 with every libdevice call resolved, and, with
// ptxas, a cubin and a fatbin (cubin plus PTX) that ptxas accepted.
// REQUIRES: libdevice
// RUN: relax-opt %s --pass-pipeline="builtin.module(func.func(relax-convert-to-dataflow), gradient)" \
// RUN:   | relax-opt --relax-to-nvvm=format=isa | FileCheck %s
// RUN: relax-opt %s --pass-pipeline="builtin.module(func.func(relax-convert-to-dataflow), gradient)" \
// RUN:   | relax-opt --relax-to-nvvm=format=isa | FileCheck %s --check-prefix=NOCALL
// RUN: %if ptxas %{ relax-opt %s --pass-pipeline="builtin.module(func.func(relax-convert-to-dataflow), gradient)" \
// RUN:   | relax-opt --relax-to-nvvm=format=bin | FileCheck %s --check-prefix=BIN %}
// RUN: %if ptxas %{ relax-opt %s --pass-pipeline="builtin.module(func.func(relax-convert-to-dataflow), gradient)" \
// RUN:   | relax-opt --relax-to-nvvm=format=fatbin | FileCheck %s --check-prefix=FATBIN %}

// CHECK: llvm.func @main_adjoint(
// CHECK: gpu.launch_func
// CHECK: llvm.func @_mlir_ciface_main_adjoint(
// CHECK: gpu.binary @main_adjoint_kernel
// CHECK-SAME: .target sm_90

// NOCALL-NOT: __nv_

// BIN: gpu.binary @main_adjoint_kernel {{.*}}ISAToBinaryTimeInMs{{.*}} bin = "
// FATBIN: gpu.binary @main_adjoint_kernel {{.*}}ISAToBinaryTimeInMs{{.*}}}, "

func.func @main(%x: tensor<64x32xf32>, %w: tensor<32x16xf32>, %b: tensor<16xf32>) -> tensor<f32> {
  %0 = relax.matmul %x, %w : tensor<64x32xf32>, tensor<32x16xf32> -> tensor<64x16xf32>
  %1 = relax.add %0, %b : tensor<64x16xf32>, tensor<16xf32> -> tensor<64x16xf32>
  %2 = relax.tanh %1 : tensor<64x16xf32>
  %3 = relax.mean %2 : tensor<64x16xf32> -> tensor<f32>
  return %3 : tensor<f32>
}
