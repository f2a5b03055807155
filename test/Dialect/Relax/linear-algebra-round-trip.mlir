// RUN: relax-opt %s | relax-opt | FileCheck %s
// RUN: relax-opt -mlir-print-op-generic %s | relax-opt | FileCheck %s

// Round trips of matmul: the custom form, directly and through the
// generic form.

// CHECK-LABEL: func.func @matmul
// CHECK: relax.matmul %{{.+}}, %{{.+}} : tensor<8x64xf32>, tensor<64x10xf32> -> tensor<8x10xf32>
// CHECK: relax.matmul %{{.+}}, %{{.+}} : tensor<64xf32>, tensor<64x10xf32> -> tensor<10xf32>
// CHECK: relax.matmul %{{.+}}, %{{.+}} : tensor<8x64xf32>, tensor<64xf32> -> tensor<8xf32>
// CHECK: relax.matmul %{{.+}}, %{{.+}} : tensor<64xf32>, tensor<64xf32> -> tensor<f32>
// CHECK: relax.matmul %{{.+}}, %{{.+}} : tensor<2x1x8x64xf32>, tensor<5x64x10xf32> -> tensor<2x5x8x10xf32>
// CHECK: relax.matmul %{{.+}}, %{{.+}} : tensor<64xf32>, tensor<5x64x10xf32> -> tensor<5x10xf32>
// CHECK: relax.matmul %{{.+}}, %{{.+}} : tensor<5x8x64xf32>, tensor<64xf32> -> tensor<5x8xf32>
// CHECK: relax.matmul %{{.+}}, %{{.+}} : tensor<2x3xi32>, tensor<3x4xi32> -> tensor<2x4xi32>
func.func @matmul(%a: tensor<8x64xf32>, %b: tensor<64x10xf32>, %v: tensor<64xf32>,
                  %ba: tensor<2x1x8x64xf32>, %bb: tensor<5x64x10xf32>, %bc: tensor<5x8x64xf32>,
                  %ia: tensor<2x3xi32>, %ib: tensor<3x4xi32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.matmul %a, %b : tensor<8x64xf32>, tensor<64x10xf32> -> tensor<8x10xf32>
    %1 = relax.matmul %v, %b : tensor<64xf32>, tensor<64x10xf32> -> tensor<10xf32>
    %2 = relax.matmul %a, %v : tensor<8x64xf32>, tensor<64xf32> -> tensor<8xf32>
    %3 = relax.matmul %v, %v : tensor<64xf32>, tensor<64xf32> -> tensor<f32>
    %4 = relax.matmul %ba, %bb : tensor<2x1x8x64xf32>, tensor<5x64x10xf32> -> tensor<2x5x8x10xf32>
    %5 = relax.matmul %v, %bb : tensor<64xf32>, tensor<5x64x10xf32> -> tensor<5x10xf32>
    %6 = relax.matmul %bc, %v : tensor<5x8x64xf32>, tensor<64xf32> -> tensor<5x8xf32>
    %7 = relax.matmul %ia, %ib : tensor<2x3xi32>, tensor<3x4xi32> -> tensor<2x4xi32>
    relax.output %3 : tensor<f32>
  }
  return %r : tensor<f32>
}
