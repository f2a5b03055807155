// The relax-to-nvvm pipeline: host code in the LLVM dialect launching
// kernels that a gpu.binary holds for the chip.
// RUN: relax-opt %s --relax-to-nvvm=format=isa | FileCheck %s
// RUN: relax-opt %s --relax-to-nvvm="format=isa chip=sm_80 features=+ptx70" \
// RUN:   | FileCheck %s --check-prefix=SM80
// RUN: not relax-opt %s --relax-to-nvvm=format=ptx 2>&1 | FileCheck %s --check-prefix=BAD

// An elementwise chain is one kernel of 32x8-thread blocks (1x8 of them:
// threads along the 32 contiguous columns on x; the block size is known to
// ptxas, .maxntid);
// a full reduction of 2048 elements is a block reduction (warp shuffles)
// that starts from the accumulator's fill value (no kernel fills it), then a
// one-thread kernel copies the result out, so the host code only allocates
// device memory, launches and frees.
// CHECK:       llvm.func @elementwise(
// CHECK-NOT:     memref.
// CHECK:         gpu.launch_func <%{{.*}} : !llvm.ptr> @elementwise_kernel::@elementwise_kernel blocks in
// CHECK-NOT:     gpu.launch_func
// CHECK:         llvm.return
// CHECK:       llvm.func @_mlir_ciface_elementwise(
// CHECK:       gpu.binary @elementwise_kernel  [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">,
// CHECK-SAME:    assembly = "{{.*}}.version 8.0\0A.target sm_90\0A
// CHECK-SAME:    .visible .entry elementwise_kernel(
// CHECK-SAME:    .maxntid 32, 8, 1
// CHECK:       llvm.func @reduce(
// CHECK:         llvm.call @mgpuMemAlloc
// CHECK:         gpu.launch_func <%{{.*}} : !llvm.ptr> @reduce_kernel::@reduce_kernel blocks in (%[[ONE:[0-9]+]], %[[ONE]], %[[ONE]]) threads in (%{{[0-9]+}}, %[[ONE]], %[[ONE]])
// CHECK:         gpu.launch_func <%{{.*}} : !llvm.ptr> @reduce_kernel_0::@reduce_kernel blocks in (%[[ONE]], %[[ONE]], %[[ONE]]) threads in (%[[ONE]], %[[ONE]], %[[ONE]])
// CHECK-NOT:     gpu.launch_func
// CHECK:         llvm.call @mgpuMemFree
// CHECK:       gpu.binary @reduce_kernel {{.*}}bar.sync{{.*}}shfl.sync
// CHECK:       gpu.binary @reduce_kernel_0

// A row reduction (accumulated in f64): the fill of its accumulator and the
// reduction loop run over the same 64 rows, so they are one kernel
// (scf-parallel-loop-fusion); a second converts the sums to f32.
// CHECK:       llvm.func @row_sums(
// CHECK:         gpu.launch_func <%{{.*}} : !llvm.ptr> @row_sums_kernel::@row_sums_kernel
// CHECK:         gpu.launch_func <%{{.*}} : !llvm.ptr> @row_sums_kernel_{{[0-9]+}}::@row_sums_kernel
// CHECK-NOT:     gpu.launch_func
// CHECK:         llvm.return

// A column sum (a bias gradient: rows reduced, accumulated in f64): one
// thread per column, 256 a block, folding its rows (relax-gpu-reductions-inside;
// before, the row loop was outside and the whole sum ran in one thread).
// The accumulator's fill and the sums are one kernel; a second rounds to f32.
// CHECK:       llvm.func @col_sums(
// CHECK:         gpu.launch_func <%{{.*}} : !llvm.ptr> @col_sums_kernel::@col_sums_kernel
// CHECK:         gpu.launch_func <%{{.*}} : !llvm.ptr> @col_sums_kernel_{{[0-9]+}}::@col_sums_kernel
// CHECK-NOT:     gpu.launch_func
// CHECK:         llvm.return
// CHECK:       gpu.binary @col_sums_kernel {{.*}}.maxntid 256, 1, 1{{.*}}add.rn.f64

// SM80: gpu.binary @elementwise_kernel  [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx70">,
// SM80-SAME: .target sm_80

// BAD: for the --format option: Cannot find option named 'ptx'

func.func @elementwise(%x: tensor<64x32xf32>, %y: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %0 = relax.add %x, %y : tensor<64x32xf32>, tensor<64x32xf32> -> tensor<64x32xf32>
  %1 = relax.multiply %0, %x : tensor<64x32xf32>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %1 : tensor<64x32xf32>
}

func.func @reduce(%x: tensor<64x32xf32>) -> tensor<f32> {
  %0 = relax.sum %x : tensor<64x32xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

func.func @row_sums(%x: tensor<64x10xf32>) -> tensor<64xf32> {
  %0 = "relax.sum"(%x) {axis = array<i64: 1>, keepdims = false} : (tensor<64x10xf32>) -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

func.func @col_sums(%x: tensor<128x1024xf32>) -> tensor<1024xf32> {
  %0 = "relax.sum"(%x) {axis = array<i64: 0>, keepdims = false} : (tensor<128x1024xf32>) -> tensor<1024xf32>
  return %0 : tensor<1024xf32>
}
