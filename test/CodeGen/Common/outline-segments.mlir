// relax-outline-segments cuts a large function into functions of bounded
// size (LLVM's time grows faster than a function's size: a 20,000-op
// elementwise chain took 300 s to JIT as one function). Small thresholds
// here: functions of at least 6 ops, segments of about 4.
// RUN: relax-opt %s --relax-outline-segments="min-ops=6 segment-ops=4" | FileCheck %s
// RUN: relax-opt %s --relax-outline-segments | FileCheck %s --check-prefix=DEFAULT

// CHECK-LABEL: func.func @chain(
// CHECK-SAME:    %[[X:.*]]: memref<16xf32>, %[[OUT:.*]]: memref<16xf32>)
// CHECK:         %[[A:.*]] = call @chain_part0(%[[X]]) : (memref<16xf32>) -> vector<16xf32>
// CHECK-NEXT:    call @chain_part1(%[[A]], %[[OUT]]) : (vector<16xf32>, memref<16xf32>) -> ()
// CHECK-NEXT:    return
// The second segment re-creates the constant it reads.
// CHECK:       func.func private @chain_part1(%[[V:.*]]: vector<16xf32>, %[[O:.*]]: memref<16xf32>) attributes {passthrough = ["noinline"]}
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[T:.*]] = math.tanh %[[V]]
// CHECK-NEXT:    vector.transfer_write %[[T]], %[[O]][%[[C0]]]
// CHECK-NEXT:    return
// The first segment: the vector later ops read is its result.
// CHECK:       func.func private @chain_part0(%[[XX:.*]]: memref<16xf32>) -> vector<16xf32> attributes {passthrough = ["noinline"]}
// CHECK:         vector.transfer_read %[[XX]]
// CHECK-NEXT:    math.tanh
// CHECK-NEXT:    math.sin
// CHECK-NEXT:    %[[E:.*]] = math.exp
// CHECK-NEXT:    return %[[E]] : vector<16xf32>
// Below the default threshold nothing moves.
// DEFAULT-LABEL: func.func @chain(
// DEFAULT-NOT:   call
// DEFAULT-NOT:   func.func private
func.func @chain(%x: memref<16xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %p = ub.poison : f32
  %v = vector.transfer_read %x[%c0], %p {in_bounds = [true]} : memref<16xf32>, vector<16xf32>
  %a = math.tanh %v : vector<16xf32>
  %b = math.sin %a : vector<16xf32>
  %c = math.exp %b : vector<16xf32>
  %d = math.tanh %c : vector<16xf32>
  vector.transfer_write %d, %out[%c0] {in_bounds = [true]} : vector<16xf32>, memref<16xf32>
  return
}

// A segment whose result later ops read is a stack buffer stays where it is
// (its frame would be gone): the alloca and the first loop; the second loop
// (never split) moves.
// CHECK-LABEL: func.func @stack(
// CHECK:         %[[S:.*]] = memref.alloca
// CHECK-NEXT:    scf.for
// CHECK:         call @stack_part1(%[[S]], %{{.*}})
// CHECK-NEXT:    return
func.func @stack(%x: memref<16xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %s = memref.alloca() : memref<16xf32>
  scf.for %i = %c0 to %c16 step %c1 {
    %e = memref.load %x[%i] : memref<16xf32>
    %t = math.tanh %e : f32
    memref.store %t, %s[%i] : memref<16xf32>
  }
  scf.for %i = %c0 to %c16 step %c1 {
    %e = memref.load %s[%i] : memref<16xf32>
    %t = math.exp %e : f32
    memref.store %t, %out[%i] : memref<16xf32>
  }
  return
}
