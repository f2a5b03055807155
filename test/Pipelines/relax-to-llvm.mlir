// The calling convention, checked on the plain pipeline (opt-level=0), where
// exp and tanh stay intrinsics (the CPU schedule replaces vectors of them by
// polynomials); both pipelines leave nothing but the llvm dialect.
// RUN: relax-opt %s --relax-to-llvm=opt-level=0 | FileCheck %s
// RUN: relax-opt %s --relax-to-llvm | FileCheck %s --check-prefix=ONLYLLVM
// RUN: relax-opt %s --relax-to-llvm=opt-level=0 | FileCheck %s --check-prefix=ONLYLLVM
// With pooled-alloc, temporaries come from the runtime's pool functions.
// RUN: relax-opt %s --relax-to-llvm=pooled-alloc=true | FileCheck %s --check-prefix=POOL

// The relax-to-llvm pipeline leaves nothing but the llvm dialect.
// ONLYLLVM: module {
// ONLYLLVM-NOT: {{(relax|linalg|tensor|memref|bufferization|arith|math|scf|cf|affine|func)\.[a-z_]+}}
// ONLYLLVM-NOT: builtin.unrealized_conversion_cast
// ONLYLLVM: }

// Public functions get a C interface; a tuple result becomes caller-allocated
// out-parameters, so the functions return nothing. @pair takes 2 input memref
// descriptors and writes 2 out-parameter descriptors (4x3 and 0-d).
// CHECK-LABEL: llvm.func @pair(
// CHECK-SAME:    %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64,
// CHECK-SAME:    %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64,
// CHECK-SAME:    %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64,
// CHECK-SAME:    %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: i64) attributes {llvm.emit_c_interface} {
// CHECK:         llvm.intr.exp
// CHECK:         llvm.return{{$}}
// CHECK-LABEL: llvm.func @_mlir_ciface_pair(
// CHECK-SAME:    %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr) attributes {llvm.emit_c_interface} {
// CHECK:         llvm.call @pair(
// CHECK:         llvm.return{{$}}
func.func @pair(%a: tensor<4x3xf32>, %b: tensor<3xf32>) -> tuple<tensor<4x3xf32>, tensor<f32>> {
  %r:2 = relax.dataflow -> (tensor<4x3xf32>, tensor<f32>) {
    %0 = relax.add %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
    %1 = relax.exp %0 : tensor<4x3xf32>
    %2 = relax.mean %1 : tensor<4x3xf32> -> tensor<f32>
    relax.output %1, %2 : tensor<4x3xf32>, tensor<f32>
  }
  %t = relax.tuple(%r#0, %r#1 : tensor<4x3xf32>, tensor<f32>)
  return %t : tuple<tensor<4x3xf32>, tensor<f32>>
}

// A private helper is inlined: it gets no C interface and does not survive.
// CHECK-NOT: @helper
// CHECK-NOT: _mlir_ciface_helper
func.func private @helper(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = relax.dataflow -> (tensor<3xf32>) {
    %0 = relax.tanh %x : tensor<3xf32>
    relax.output %0 : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// CHECK-LABEL: llvm.func @single(
// CHECK-NOT:     llvm.call @helper
// CHECK:         llvm.intr.tanh
// CHECK:         llvm.return{{$}}
// CHECK-LABEL: llvm.func @_mlir_ciface_single(
// CHECK-SAME:    %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr) attributes {llvm.emit_c_interface} {
func.func @single(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = call @helper(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// A temporary buffer (the matmul result) is allocated and freed in the function.
// CHECK-LABEL: llvm.func @temps(
// CHECK:         [[BUF:%.+]] = llvm.call @malloc(
// CHECK:         llvm.call @free([[BUF]])
// CHECK:         llvm.return{{$}}
// POOL-LABEL: llvm.func @temps(
// POOL-NOT:     @malloc
// POOL:         [[BUF:%.+]] = llvm.call @_mlir_memref_to_llvm_alloc(
// POOL:         llvm.call @_mlir_memref_to_llvm_free([[BUF]])
// POOL:         llvm.return{{$}}
// CHECK-LABEL: llvm.func @_mlir_ciface_temps(
// CHECK-SAME:    %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr) attributes {llvm.emit_c_interface} {
func.func @temps(%a: tensor<4x3xf32>, %b: tensor<3x2xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.matmul %a, %b : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
    %1 = relax.relu %0 : tensor<4x2xf32>
    %2 = relax.sum %1 : tensor<4x2xf32> -> tensor<f32>
    relax.output %2 : tensor<f32>
  }
  return %r : tensor<f32>
}
