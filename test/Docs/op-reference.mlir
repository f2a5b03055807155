// The op reference in docs/ops/RelaxOps.md is generated from the ODS
// (add_mlir_doc); this fails when an op's definition changed without it.
// Regenerate with `make docs`.
// RUN: diff -u %S/../../docs/ops/RelaxOps.md %relax_obj_root/docs/ops/RelaxOps.md
