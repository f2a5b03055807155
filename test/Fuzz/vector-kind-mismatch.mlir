// Found by the mutation fuzzer (seed 1): a vector reduction whose combining
// kind does not apply to its element type passes upstream's verifier, and
// --relax-to-llvm turned it into invalid IR. The lowering pipelines now reject
// it at the op.
// RUN: relax-opt %s --relax-to-llvm --verify-each=false --split-input-file --verify-diagnostics
// RUN: relax-opt %s --relax-to-nvvm --verify-each=false --split-input-file --verify-diagnostics

func.func @float_kind_on_integers(%v: vector<4x8xi32>, %acc: vector<4xi32>) -> vector<4xi32> {
  // expected-error @+1 {{combining kind 'maximumf' needs a floating-point element type, got 'i32'}}
  %r = vector.multi_reduction <maximumf>, %v, %acc [1] : vector<4x8xi32> to vector<4xi32>
  return %r : vector<4xi32>
}

// -----

func.func @integer_kind_on_floats(%v: vector<4x8xf32>, %acc: vector<4xf32>) -> vector<4xf32> {
  // expected-error @+1 {{combining kind 'maxsi' needs an integer element type, got 'f32'}}
  %r = vector.multi_reduction <maxsi>, %v, %acc [1] : vector<4x8xf32> to vector<4xf32>
  return %r : vector<4xf32>
}

// -----

// A kind that applies passes on.
func.func @fine(%v: vector<4x8xf32>, %acc: vector<4xf32>) -> vector<4xf32> {
  %r = vector.multi_reduction <maximumf>, %v, %acc [1] : vector<4x8xf32> to vector<4xf32>
  return %r : vector<4xf32>
}
