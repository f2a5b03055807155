// RUN: relax-opt %s --split-input-file --relax-outline-tensor-kernels | FileCheck %s
// RUN: relax-opt %s --split-input-file --relax-outline-tensor-kernels \
// RUN:   --relax-inline-tensor-kernels | FileCheck %s --check-prefix=INLINED
// RUN: relax-opt %s --split-input-file \
// RUN:   --relax-outline-tensor-kernels=min-iterations=0 | FileCheck %s --check-prefix=MIN0

// Two layers of tanh(x @ w + b) of equal shapes: one kernel, called twice.
// A kernel is the contraction with its own fill (the fill was shared by
// both layers: each gets a copy) and its epilogue with its own empty; the
// values it reads are arguments, the fill's constant is re-created.
// CHECK-LABEL: func.func @layers(
// CHECK-NOT:     linalg.
// CHECK:         %[[H:.*]] = call @[[K:layers_tensor_kernel[0-9]+]](%arg0, %arg1, %arg3)
// CHECK-NEXT:    %[[Y:.*]] = call @[[K]](%[[H]], %arg2, %arg3)
// CHECK-NEXT:    return %[[Y]]
// CHECK:       func.func private @[[K]](%{{.*}}: tensor<64x128xf32>, %{{.*}}: tensor<128x128xf32>, %{{.*}}: tensor<128xf32>) -> tensor<64x128xf32> attributes {relax.kernel} {
// CHECK-NEXT:    arith.constant 0.0
// CHECK-NEXT:    tensor.empty() : tensor<64x128xf32>
// CHECK-NEXT:    linalg.fill
// CHECK-NEXT:    linalg.matmul
// CHECK-NEXT:    tensor.empty() : tensor<64x128xf32>
// CHECK-NEXT:    linalg.generic
// CHECK:           math.tanh
// CHECK:         return
// CHECK-NOT:   func.func private @layers_tensor_kernel

// Inlined again (the kernel's second call returns its result, which must
// stay in the function: it may be computed in the out-parameter and streamed
// there): the function as it was, each contraction with its own fill, and
// no kernel left.
// INLINED-LABEL: func.func @layers(
// INLINED-NOT:     call
// INLINED-COUNT-2: linalg.fill
// INLINED-NOT:     call
// INLINED:         return
// INLINED-NOT:   func.func private
#rows = affine_map<(i, j) -> (i, j)>
#bias = affine_map<(i, j) -> (j)>
func.func @layers(%x: tensor<64x128xf32>, %w1: tensor<128x128xf32>, %w2: tensor<128x128xf32>,
                  %b: tensor<128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %m1 = linalg.matmul ins(%x, %w1 : tensor<64x128xf32>, tensor<128x128xf32>)
                      outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
  %h = linalg.generic {indexing_maps = [#rows, #bias, #rows],
                       iterator_types = ["parallel", "parallel"]}
      ins(%m1, %b : tensor<64x128xf32>, tensor<128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %s = arith.addf %v, %c : f32
    %t = math.tanh %s : f32
    linalg.yield %t : f32
  } -> tensor<64x128xf32>
  %m2 = linalg.matmul ins(%h, %w2 : tensor<64x128xf32>, tensor<128x128xf32>)
                      outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
  %y = linalg.generic {indexing_maps = [#rows, #bias, #rows],
                       iterator_types = ["parallel", "parallel"]}
      ins(%m2, %b : tensor<64x128xf32>, tensor<128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %s = arith.addf %v, %c : f32
    %t = math.tanh %s : f32
    linalg.yield %t : f32
  } -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}

// -----

// An elementwise op consuming two contractions is the epilogue of the first
// only (moved down to it), the second a kernel of its own. Ops of at most
// 4096 iterations stay (the 16x16 row sum), as do fills left to
// themselves. A fill of a reshaped empty is copied with its reshape.
// Both kernels are inlined back after the schedule: each is called once.
// CHECK-LABEL: func.func @shared_epilogue(
// CHECK:         %[[B:.*]] = call @[[KB:shared_epilogue_tensor_kernel[0-9]+]](%arg0, %arg2)
// CHECK-NEXT:    %[[S:.*]] = call @[[KA:shared_epilogue_tensor_kernel[0-9]+]](%arg0, %arg1, %[[B]])
// CHECK-NEXT:    tensor.empty
// CHECK-NEXT:    linalg.fill
// CHECK-NEXT:    %[[R:.*]] = linalg.generic
// CHECK-SAME:      ins(%arg3
// CHECK:         return %[[S]], %[[R]]
// CHECK:       func.func private @[[KB]]({{.*}}) -> tensor<64x256xf32> attributes {relax.kernel} {
// CHECK:         tensor.empty() : tensor<16384xf32>
// CHECK-NEXT:    tensor.expand_shape
// CHECK-NEXT:    linalg.fill
// CHECK-NEXT:    linalg.matmul
// CHECK-NEXT:    return
// CHECK:       func.func private @[[KA]]({{.*}}) -> tensor<64x256xf32> attributes {relax.kernel} {
// CHECK:         linalg.fill
// CHECK-NEXT:    linalg.matmul
// CHECK-NEXT:    tensor.empty
// CHECK-NEXT:    linalg.generic
// CHECK:         arith.addf
// CHECK:         return
#rows = affine_map<(i, j) -> (i, j)>
#sum = affine_map<(i, j) -> (i)>
func.func @shared_epilogue(%x: tensor<64x128xf32>, %wa: tensor<128x256xf32>,
                           %wb: tensor<128x256xf32>, %z: tensor<16x16xf32>)
    -> (tensor<64x256xf32>, tensor<16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256xf32>
  %flat = tensor.empty() : tensor<16384xf32>
  %shaped = tensor.expand_shape %flat [[0, 1]] output_shape [64, 256]
      : tensor<16384xf32> into tensor<64x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %g = linalg.fill ins(%zero : f32) outs(%shaped : tensor<64x256xf32>) -> tensor<64x256xf32>
  %a = linalg.matmul ins(%x, %wa : tensor<64x128xf32>, tensor<128x256xf32>)
                     outs(%f : tensor<64x256xf32>) -> tensor<64x256xf32>
  %b = linalg.matmul ins(%x, %wb : tensor<64x128xf32>, tensor<128x256xf32>)
                     outs(%g : tensor<64x256xf32>) -> tensor<64x256xf32>
  %s = linalg.generic {indexing_maps = [#rows, #rows, #rows],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<64x256xf32>, tensor<64x256xf32>) outs(%e : tensor<64x256xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %t = arith.addf %u, %v : f32
    linalg.yield %t : f32
  } -> tensor<64x256xf32>
  %re = tensor.empty() : tensor<16xf32>
  %rf = linalg.fill ins(%zero : f32) outs(%re : tensor<16xf32>) -> tensor<16xf32>
  %r = linalg.generic {indexing_maps = [#rows, #sum], iterator_types = ["parallel", "reduction"]}
      ins(%z : tensor<16x16xf32>) outs(%rf : tensor<16xf32>) {
  ^bb0(%u: f32, %o: f32):
    %t = arith.addf %u, %o : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  return %s, %r : tensor<64x256xf32>, tensor<16xf32>
}


// With min-iterations=0 the 256-iteration row sum is a kernel too (the fill
// of its init copied in).
// MIN0-LABEL: func.func @shared_epilogue(
// MIN0:         call @shared_epilogue_tensor_kernel{{[0-9]+}}(%arg0, %arg2)
// MIN0-NEXT:    call @shared_epilogue_tensor_kernel{{[0-9]+}}(%arg0, %arg1,
// MIN0-NEXT:    %[[R:.*]] = call @[[KR:shared_epilogue_tensor_kernel[0-9]+]](%arg3)
// MIN0-NEXT:    return %{{.*}}, %[[R]]
// MIN0:       func.func private @[[KR]](%{{.*}}: tensor<16x16xf32>) -> tensor<16xf32>
// MIN0-NEXT:    arith.constant
// MIN0-NEXT:    tensor.empty() : tensor<16xf32>
// MIN0-NEXT:    linalg.fill
// MIN0-NEXT:    linalg.generic

// -----

// Two equal products of whole buffers (arguments) whose results are only
// read, by the row sum: their kernel, called twice, stays a function
// (`relax.kept_kernel`, noinline), so that bufferization and what follows
// also run once for it. The sum's kernel returns its result: inlined back.
// (A kernel called once is inlined too: keeping it saves nothing; the
// second matmul of @shared_epilogue above.)
// CHECK-LABEL: func.func @kept(
// CHECK:         %[[P:.*]] = call @[[K:kept_tensor_kernel[0-9]+]](%arg0, %arg1)
// CHECK-NEXT:    %[[Q:.*]] = call @[[K]](%arg0, %arg2)
// CHECK-NEXT:    %[[S:.*]] = call @{{kept_tensor_kernel[0-9]+}}(%[[P]], %[[Q]])
// CHECK-NEXT:    return %[[S]]
// CHECK:       func.func private @[[K]]({{.*}}) -> tensor<64x128xf32> attributes {passthrough = ["noinline"], relax.kept_kernel, relax.kernel}
// INLINED-LABEL: func.func @kept(
// INLINED:         %[[P:.*]] = call @[[K:kept_tensor_kernel[0-9]+]](%arg0, %arg1)
// INLINED-NEXT:    %[[Q:.*]] = call @[[K]](%arg0, %arg2)
// INLINED-NOT:     call
// INLINED:         linalg.generic
// INLINED-SAME:      ins(%[[P]], %[[Q]] :
// INLINED:         return
// INLINED:       func.func private @[[K]]({{.*}}) -> tensor<64x128xf32> attributes {passthrough = ["noinline"], relax.kept_kernel, relax.kernel}
// INLINED-NOT:   func.func private
#rows = affine_map<(i, j) -> (i, j)>
#sum = affine_map<(i, j) -> (i)>
func.func @kept(%x: tensor<64x128xf32>, %w1: tensor<128x128xf32>, %w2: tensor<128x128xf32>)
    -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %p = linalg.matmul ins(%x, %w1 : tensor<64x128xf32>, tensor<128x128xf32>)
                     outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
  %q = linalg.matmul ins(%x, %w2 : tensor<64x128xf32>, tensor<128x128xf32>)
                     outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
  %re = tensor.empty() : tensor<64xf32>
  %rf = linalg.fill ins(%zero : f32) outs(%re : tensor<64xf32>) -> tensor<64xf32>
  %s = linalg.generic {indexing_maps = [#rows, #rows, #sum],
                       iterator_types = ["parallel", "reduction"]}
      ins(%p, %q : tensor<64x128xf32>, tensor<64x128xf32>) outs(%rf : tensor<64xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %t = arith.mulf %u, %v : f32
    %a = arith.addf %t, %o : f32
    linalg.yield %a : f32
  } -> tensor<64xf32>
  return %s : tensor<64xf32>
}
