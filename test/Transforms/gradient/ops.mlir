// RUN: relax-opt %s --gradient="func={negative,exp_reuses_forward,log,tanh,sigmoid,relu,add_broadcast_rhs,subtract_broadcast_size1_lhs, \
// RUN:   multiply_broadcast,divide_broadcast,divide_scalar_numerator,where_condition_gets_no_gradient,sum_negative_axes,sum_keepdims, \
// RUN:   mean_axis_keepdims,mean_as_loss,matmul_2d,matmul_vector_lhs,matmul_vector_rhs,matmul_dot_product, \
// RUN:   matmul_batched_lhs,matmul_broadcast_batch,matmul_vector_lhs_batched_rhs,permute_dims_inverse,permute_dims_reverse_negative_axes,reshape, \
// RUN:   broadcast_to,collapse_sum_to,tuple_get_item_of_parameter,tuple_then_get_item}" | FileCheck %s

// The vector-Jacobian product of each differentiable op. Every function's loss
// is a relax.sum (or mean) of the op's result, so the seed reaching the op is
// ones broadcast to its result shape:
//   %one = relax.ones : tensor<f32>
//   %r   = relax.reshape %one : tensor<f32> -> tensor<1x...xf32>
//   %g   = relax.broadcast_to %r : ... -> <result shape>
// Each case is a function named after what it checks (one run differentiates
// them all); each also checks that the function itself is left as it was.

// CHECK-LABEL: func.func @negative(%{{.+}}: tensor<3xf32>) -> tensor<f32> {
// CHECK-NEXT:    relax.dataflow -> (tensor<f32>) {
// CHECK-NEXT:      relax.negative
// CHECK-NEXT:      relax.sum
// CHECK-NEXT:      relax.output
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @negative_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>> {
// CHECK:         [[DF:%.+]] = relax.dataflow -> (tuple<tensor<f32>, tuple<tensor<3xf32>>>) {
// CHECK:           [[Y:%.+]] = relax.negative %[[X]] : tensor<3xf32>
// CHECK:           [[L:%.+]] = relax.sum [[Y]] : tensor<3xf32> -> tensor<f32>
// CHECK:           [[ONE:%.+]] = relax.ones : tensor<f32>
// CHECK:           [[R:%.+]] = relax.reshape [[ONE]] : tensor<f32> -> tensor<1xf32>
// CHECK:           [[G:%.+]] = relax.broadcast_to [[R]] : tensor<1xf32> -> tensor<3xf32>
// CHECK:           [[DX:%.+]] = relax.negative [[G]] : tensor<3xf32>
// CHECK:           [[GT:%.+]] = relax.tuple([[DX]] : tensor<3xf32>)
// CHECK:           [[RES:%.+]] = relax.tuple([[L]], [[GT]] : tensor<f32>, tuple<tensor<3xf32>>)
// CHECK:           relax.output [[RES]] : tuple<tensor<f32>, tuple<tensor<3xf32>>>
// CHECK:         return [[DF]] : tuple<tensor<f32>, tuple<tensor<3xf32>>>
func.func @negative(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.negative %x : tensor<3xf32>
    %1 = relax.sum %0 : tensor<3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}


// d exp(x) = g * exp(x), reusing the forward exp.
// CHECK-LABEL: func.func @exp_reuses_forward(%{{.+}}: tensor<3xf32>) -> tensor<f32> {
// CHECK-NEXT:    relax.dataflow -> (tensor<f32>) {
// CHECK-NEXT:      relax.exp
// CHECK-NEXT:      relax.sum
// CHECK-NEXT:      relax.output
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @exp_reuses_forward_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>> {
// CHECK:           [[Y:%.+]] = relax.exp %[[X]] : tensor<3xf32>
// CHECK:           [[L:%.+]] = relax.sum [[Y]] : tensor<3xf32> -> tensor<f32>
// CHECK:           [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK:           [[DX:%.+]] = relax.multiply [[G]], [[Y]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK-NOT:       relax.exp
// CHECK:           [[GT:%.+]] = relax.tuple([[DX]] : tensor<3xf32>)
// CHECK:           relax.tuple([[L]], [[GT]] : tensor<f32>, tuple<tensor<3xf32>>)
func.func @exp_reuses_forward(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.exp %x : tensor<3xf32>
    %1 = relax.sum %0 : tensor<3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}


// d log(x) = g / x.
// CHECK-LABEL: func.func @log(%{{.+}}: tensor<3xf32>) -> tensor<f32> {
// CHECK-NEXT:    relax.dataflow -> (tensor<f32>) {
// CHECK-NEXT:      relax.log
// CHECK-NEXT:      relax.sum
// CHECK-NEXT:      relax.output
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @log_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>> {
// CHECK:           [[Y:%.+]] = relax.log %[[X]] : tensor<3xf32>
// CHECK:           [[L:%.+]] = relax.sum [[Y]] :
// CHECK:           [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK:           [[DX:%.+]] = relax.divide [[G]], %[[X]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:           [[GT:%.+]] = relax.tuple([[DX]] : tensor<3xf32>)
// CHECK:           relax.tuple([[L]], [[GT]] : tensor<f32>, tuple<tensor<3xf32>>)
func.func @log(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.log %x : tensor<3xf32>
    %1 = relax.sum %0 : tensor<3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}


// d tanh(x) = g * (1 - tanh(x)^2).
// CHECK-LABEL: func.func @tanh(%{{.+}}: tensor<3xf32>) -> tensor<f32> {
// CHECK-NEXT:    relax.dataflow -> (tensor<f32>) {
// CHECK-NEXT:      relax.tanh
// CHECK-NEXT:      relax.sum
// CHECK-NEXT:      relax.output
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @tanh_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>> {
// CHECK:           [[Y:%.+]] = relax.tanh %[[X]] : tensor<3xf32>
// CHECK:           [[L:%.+]] = relax.sum [[Y]] :
// CHECK:           [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK:           [[Y2:%.+]] = relax.multiply [[Y]], [[Y]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:           [[C1:%.+]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK:           [[OM:%.+]] = relax.subtract [[C1]], [[Y2]] : tensor<f32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:           [[DX:%.+]] = relax.multiply [[G]], [[OM]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:           [[GT:%.+]] = relax.tuple([[DX]] : tensor<3xf32>)
// CHECK:           relax.tuple([[L]], [[GT]] : tensor<f32>, tuple<tensor<3xf32>>)
func.func @tanh(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.tanh %x : tensor<3xf32>
    %1 = relax.sum %0 : tensor<3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}


// d sigmoid(x) = g * sigmoid(x) * (1 - sigmoid(x)).
// CHECK-LABEL: func.func @sigmoid(%{{.+}}: tensor<3xf32>) -> tensor<f32> {
// CHECK-NEXT:    relax.dataflow -> (tensor<f32>) {
// CHECK-NEXT:      relax.sigmoid
// CHECK-NEXT:      relax.sum
// CHECK-NEXT:      relax.output
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @sigmoid_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>> {
// CHECK:           [[Y:%.+]] = relax.sigmoid %[[X]] : tensor<3xf32>
// CHECK:           [[L:%.+]] = relax.sum [[Y]] :
// CHECK:           [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK:           [[C1:%.+]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK:           [[OM:%.+]] = relax.subtract [[C1]], [[Y]] : tensor<f32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:           [[D:%.+]] = relax.multiply [[Y]], [[OM]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:           [[DX:%.+]] = relax.multiply [[G]], [[D]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:           [[GT:%.+]] = relax.tuple([[DX]] : tensor<3xf32>)
// CHECK:           relax.tuple([[L]], [[GT]] : tensor<f32>, tuple<tensor<3xf32>>)
func.func @sigmoid(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sigmoid %x : tensor<3xf32>
    %1 = relax.sum %0 : tensor<3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}


// d relu(x) = where(x > 0, g, 0).
// CHECK-LABEL: func.func @relu(%{{.+}}: tensor<3xf32>) -> tensor<f32> {
// CHECK-NEXT:    relax.dataflow -> (tensor<f32>) {
// CHECK-NEXT:      relax.relu
// CHECK-NEXT:      relax.sum
// CHECK-NEXT:      relax.output
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @relu_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>> {
// CHECK:           [[Y:%.+]] = relax.relu %[[X]] : tensor<3xf32>
// CHECK:           [[L:%.+]] = relax.sum [[Y]] :
// CHECK:           [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK:           [[C0:%.+]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK:           [[P:%.+]] = relax.greater %[[X]], [[C0]] : tensor<3xf32>, tensor<f32> -> tensor<3xi1>
// CHECK:           [[DX:%.+]] = relax.where [[P]], [[G]], [[C0]] : tensor<3xi1>, tensor<3xf32>, tensor<f32> -> tensor<3xf32>
// CHECK:           [[GT:%.+]] = relax.tuple([[DX]] : tensor<3xf32>)
// CHECK:           relax.tuple([[L]], [[GT]] : tensor<f32>, tuple<tensor<3xf32>>)
func.func @relu(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.relu %x : tensor<3xf32>
    %1 = relax.sum %0 : tensor<3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}


// add with broadcasting: the broadcast operand's adjoint is summed back.
// CHECK-LABEL: func.func @add_broadcast_rhs(%{{.+}}: tensor<4x3xf32>, %{{.+}}: tensor<3xf32>) -> tensor<f32> {
// CHECK-NEXT:    relax.dataflow -> (tensor<f32>) {
// CHECK-NEXT:      relax.add
// CHECK-NEXT:      relax.sum
// CHECK-NEXT:      relax.output
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @add_broadcast_rhs_adjoint(
// CHECK-SAME:    %[[A:.+]]: tensor<4x3xf32>, %[[B:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<4x3xf32>, tensor<3xf32>>> {
// CHECK:           [[Y:%.+]] = relax.add %[[A]], %[[B]] : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
// CHECK:           [[L:%.+]] = relax.sum [[Y]] :
// CHECK:           [[R:%.+]] = relax.reshape %{{.+}} : tensor<f32> -> tensor<1x1xf32>
// CHECK:           [[G:%.+]] = relax.broadcast_to [[R]] : tensor<1x1xf32> -> tensor<4x3xf32>
// CHECK:           [[DB:%.+]] = relax.collapse_sum_to [[G]] : tensor<4x3xf32> -> tensor<3xf32>
// CHECK:           [[GT:%.+]] = relax.tuple([[G]], [[DB]] : tensor<4x3xf32>, tensor<3xf32>)
// CHECK:           relax.tuple([[L]], [[GT]] : tensor<f32>, tuple<tensor<4x3xf32>, tensor<3xf32>>)
func.func @add_broadcast_rhs(%a: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.add %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
    %1 = relax.sum %0 : tensor<4x3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}


// subtract with the lhs broadcast along a size-1 dim: da = collapse_sum(g),
// db = -g.
// CHECK-LABEL: func.func @subtract_broadcast_size1_lhs(%{{.+}}: tensor<4x1xf32>, %{{.+}}: tensor<4x3xf32>) -> tensor<f32> {
// CHECK-NEXT:    relax.dataflow -> (tensor<f32>) {
// CHECK-NEXT:      relax.subtract
// CHECK-NEXT:      relax.sum
// CHECK-NEXT:      relax.output
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @subtract_broadcast_size1_lhs_adjoint(
// CHECK-SAME:    %[[A:.+]]: tensor<4x1xf32>, %[[B:.+]]: tensor<4x3xf32>) -> tuple<tensor<f32>, tuple<tensor<4x1xf32>, tensor<4x3xf32>>> {
// CHECK:           [[Y:%.+]] = relax.subtract %[[A]], %[[B]] : tensor<4x1xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
// CHECK:           [[L:%.+]] = relax.sum [[Y]] :
// CHECK:           [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1xf32> -> tensor<4x3xf32>
// CHECK:           [[DA:%.+]] = relax.collapse_sum_to [[G]] : tensor<4x3xf32> -> tensor<4x1xf32>
// CHECK:           [[DB:%.+]] = relax.negative [[G]] : tensor<4x3xf32>
// CHECK:           [[GT:%.+]] = relax.tuple([[DA]], [[DB]] : tensor<4x1xf32>, tensor<4x3xf32>)
// CHECK:           relax.tuple([[L]], [[GT]] : tensor<f32>, tuple<tensor<4x1xf32>, tensor<4x3xf32>>)
func.func @subtract_broadcast_size1_lhs(%a: tensor<4x1xf32>, %b: tensor<4x3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.subtract %a, %b : tensor<4x1xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
    %1 = relax.sum %0 : tensor<4x3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}


// multiply with broadcasting: da = g * b, db = collapse_sum(g * a).
// CHECK-LABEL: func.func @multiply_broadcast(%{{.+}}: tensor<4x3xf32>, %{{.+}}: tensor<3xf32>) -> tensor<f32> {
// CHECK-NEXT:    relax.dataflow -> (tensor<f32>) {
// CHECK-NEXT:      relax.multiply
// CHECK-NEXT:      relax.sum
// CHECK-NEXT:      relax.output
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @multiply_broadcast_adjoint(
// CHECK-SAME:    %[[A:.+]]: tensor<4x3xf32>, %[[B:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<4x3xf32>, tensor<3xf32>>> {
// CHECK:           [[Y:%.+]] = relax.multiply %[[A]], %[[B]] : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
// CHECK:           [[L:%.+]] = relax.sum [[Y]] :
// CHECK:           [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1xf32> -> tensor<4x3xf32>
// CHECK:           [[DA:%.+]] = relax.multiply [[G]], %[[B]] : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
// CHECK:           [[GA:%.+]] = relax.multiply [[G]], %[[A]] : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
// CHECK:           [[DB:%.+]] = relax.collapse_sum_to [[GA]] : tensor<4x3xf32> -> tensor<3xf32>
// CHECK:           [[GT:%.+]] = relax.tuple([[DA]], [[DB]] : tensor<4x3xf32>, tensor<3xf32>)
// CHECK:           relax.tuple([[L]], [[GT]] : tensor<f32>, tuple<tensor<4x3xf32>, tensor<3xf32>>)
func.func @multiply_broadcast(%a: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.multiply %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
    %1 = relax.sum %0 : tensor<4x3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}


// divide with broadcasting: da = g / b, db = collapse_sum(-(g * (a/b)) / b).
// CHECK-LABEL: func.func @divide_broadcast(%{{.+}}: tensor<4x3xf32>, %{{.+}}: tensor<3xf32>) -> tensor<f32> {
// CHECK-NEXT:    relax.dataflow -> (tensor<f32>) {
// CHECK-NEXT:      relax.divide
// CHECK-NEXT:      relax.sum
// CHECK-NEXT:      relax.output
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @divide_broadcast_adjoint(
// CHECK-SAME:    %[[A:.+]]: tensor<4x3xf32>, %[[B:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<4x3xf32>, tensor<3xf32>>> {
// CHECK:           [[Y:%.+]] = relax.divide %[[A]], %[[B]] : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
// CHECK:           [[L:%.+]] = relax.sum [[Y]] :
// CHECK:           [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1xf32> -> tensor<4x3xf32>
// CHECK:           [[DA:%.+]] = relax.divide [[G]], %[[B]] : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
// CHECK:           [[GY:%.+]] = relax.multiply [[G]], [[Y]] : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
// CHECK:           [[Q:%.+]] = relax.divide [[GY]], %[[B]] : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
// CHECK:           [[NQ:%.+]] = relax.negative [[Q]] : tensor<4x3xf32>
// CHECK:           [[DB:%.+]] = relax.collapse_sum_to [[NQ]] : tensor<4x3xf32> -> tensor<3xf32>
// CHECK:           [[GT:%.+]] = relax.tuple([[DA]], [[DB]] : tensor<4x3xf32>, tensor<3xf32>)
// CHECK:           relax.tuple([[L]], [[GT]] : tensor<f32>, tuple<tensor<4x3xf32>, tensor<3xf32>>)
func.func @divide_broadcast(%a: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.divide %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
    %1 = relax.sum %0 : tensor<4x3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}


// divide of a 0-d numerator: its adjoint is summed down to 0-d.
// CHECK-LABEL: func.func @divide_scalar_numerator(%{{.+}}: tensor<f32>, %{{.+}}: tensor<3xf32>) -> tensor<f32> {
// CHECK-NEXT:    relax.dataflow -> (tensor<f32>) {
// CHECK-NEXT:      relax.divide
// CHECK-NEXT:      relax.sum
// CHECK-NEXT:      relax.output
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @divide_scalar_numerator_adjoint(
// CHECK-SAME:    %[[A:.+]]: tensor<f32>, %[[B:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<f32>, tensor<3xf32>>> {
// CHECK:           [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK:           [[Q:%.+]] = relax.divide [[G]], %[[B]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:           [[DA:%.+]] = relax.collapse_sum_to [[Q]] : tensor<3xf32> -> tensor<f32>
// CHECK:           [[DB:%.+]] = relax.negative
// CHECK:           relax.tuple([[DA]], [[DB]] : tensor<f32>, tensor<3xf32>)
func.func @divide_scalar_numerator(%a: tensor<f32>, %b: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.divide %a, %b : tensor<f32>, tensor<3xf32> -> tensor<3xf32>
    %1 = relax.sum %0 : tensor<3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}


// where: each branch gets g where it was picked and 0 elsewhere; the condition
// (i1) gets no gradient and is not in the gradient tuple.
// CHECK-LABEL: func.func @where_condition_gets_no_gradient(%{{.+}}: tensor<4x3xi1>, %{{.+}}: tensor<4x3xf32>, %{{.+}}: tensor<3xf32>) -> tensor<f32> {
// CHECK-NEXT:    relax.dataflow -> (tensor<f32>) {
// CHECK-NEXT:      relax.where
// CHECK-NEXT:      relax.sum
// CHECK-NEXT:      relax.output
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @where_condition_gets_no_gradient_adjoint(
// CHECK-SAME:    %[[M:.+]]: tensor<4x3xi1>, %[[A:.+]]: tensor<4x3xf32>, %[[B:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<4x3xf32>, tensor<3xf32>>> {
// CHECK:           [[Y:%.+]] = relax.where %[[M]], %[[A]], %[[B]] :
// CHECK:           [[L:%.+]] = relax.sum [[Y]] :
// CHECK:           [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1xf32> -> tensor<4x3xf32>
// CHECK:           [[C0:%.+]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK:           [[DA:%.+]] = relax.where %[[M]], [[G]], [[C0]] : tensor<4x3xi1>, tensor<4x3xf32>, tensor<f32> -> tensor<4x3xf32>
// CHECK:           [[WB:%.+]] = relax.where %[[M]], [[C0]], [[G]] : tensor<4x3xi1>, tensor<f32>, tensor<4x3xf32> -> tensor<4x3xf32>
// CHECK:           [[DB:%.+]] = relax.collapse_sum_to [[WB]] : tensor<4x3xf32> -> tensor<3xf32>
// CHECK:           [[GT:%.+]] = relax.tuple([[DA]], [[DB]] : tensor<4x3xf32>, tensor<3xf32>)
// CHECK:           relax.tuple([[L]], [[GT]] : tensor<f32>, tuple<tensor<4x3xf32>, tensor<3xf32>>)
func.func @where_condition_gets_no_gradient(%m: tensor<4x3xi1>, %a: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.where %m, %a, %b : tensor<4x3xi1>, tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
    %1 = relax.sum %0 : tensor<4x3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}


// sum over axes given with a negative axis: the adjoint is reshaped with the
// reduced axes (0 and 2) as size 1 and broadcast back.
// CHECK-LABEL: func.func @sum_negative_axes(%{{.+}}: tensor<2x3x4xf32>) -> tensor<f32> {
// CHECK-NEXT:    relax.dataflow -> (tensor<f32>) {
// CHECK-NEXT:      relax.sum
// CHECK-NEXT:      relax.exp
// CHECK-NEXT:      relax.sum
// CHECK-NEXT:      relax.output
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @sum_negative_axes_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3x4xf32>) -> tuple<tensor<f32>, tuple<tensor<2x3x4xf32>>> {
// CHECK:           [[S:%.+]] = relax.sum %[[X]] {axis = array<i64: -1, 0>} : tensor<2x3x4xf32> -> tensor<3xf32>
// CHECK:           [[E:%.+]] = relax.exp [[S]] : tensor<3xf32>
// CHECK:           [[GE:%.+]] = relax.multiply %{{.+}}, [[E]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:           [[R:%.+]] = relax.reshape [[GE]] : tensor<3xf32> -> tensor<1x3x1xf32>
// CHECK:           [[DX:%.+]] = relax.broadcast_to [[R]] : tensor<1x3x1xf32> -> tensor<2x3x4xf32>
// CHECK:           relax.tuple([[DX]] : tensor<2x3x4xf32>)
func.func @sum_negative_axes(%x: tensor<2x3x4xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x {axis = array<i64: -1, 0>} : tensor<2x3x4xf32> -> tensor<3xf32>
    %1 = relax.exp %0 : tensor<3xf32>
    %2 = relax.sum %1 : tensor<3xf32> -> tensor<f32>
    relax.output %2 : tensor<f32>
  }
  return %r : tensor<f32>
}


// sum with keepdims: the adjoint already has the kept shape; no reshape.
// CHECK-LABEL: func.func @sum_keepdims(%{{.+}}: tensor<4x3xf32>) -> tensor<f32> {
// CHECK-NEXT:    relax.dataflow -> (tensor<f32>) {
// CHECK-NEXT:      relax.sum
// CHECK-NEXT:      relax.exp
// CHECK-NEXT:      relax.sum
// CHECK-NEXT:      relax.output
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @sum_keepdims_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<4x3xf32>) -> tuple<tensor<f32>, tuple<tensor<4x3xf32>>> {
// CHECK:           [[S:%.+]] = relax.sum %[[X]] {axis = array<i64: 0>, keepdims = true} : tensor<4x3xf32> -> tensor<1x3xf32>
// CHECK:           [[E:%.+]] = relax.exp [[S]] : tensor<1x3xf32>
// CHECK:           [[GE:%.+]] = relax.multiply %{{.+}}, [[E]] : tensor<1x3xf32>, tensor<1x3xf32> -> tensor<1x3xf32>
// CHECK-NEXT:      [[DX:%.+]] = relax.broadcast_to [[GE]] : tensor<1x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT:      relax.tuple([[DX]] : tensor<4x3xf32>)
func.func @sum_keepdims(%x: tensor<4x3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x {axis = array<i64: 0>, keepdims = true} : tensor<4x3xf32> -> tensor<1x3xf32>
    %1 = relax.exp %0 : tensor<1x3xf32>
    %2 = relax.sum %1 : tensor<1x3xf32> -> tensor<f32>
    relax.output %2 : tensor<f32>
  }
  return %r : tensor<f32>
}


// mean over axis 1 with keepdims: the adjoint is scaled by 1/3 and broadcast.
// CHECK-LABEL: func.func @mean_axis_keepdims(%{{.+}}: tensor<2x3x4xf32>) -> tensor<f32> {
// CHECK-NEXT:    relax.dataflow -> (tensor<f32>) {
// CHECK-NEXT:      relax.mean
// CHECK-NEXT:      relax.exp
// CHECK-NEXT:      relax.sum
// CHECK-NEXT:      relax.output
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @mean_axis_keepdims_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3x4xf32>) -> tuple<tensor<f32>, tuple<tensor<2x3x4xf32>>> {
// CHECK:           [[M:%.+]] = relax.mean %[[X]] {axis = array<i64: 1>, keepdims = true} : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
// CHECK:           [[E:%.+]] = relax.exp [[M]] : tensor<2x1x4xf32>
// CHECK:           [[GE:%.+]] = relax.multiply %{{.+}}, [[E]] : tensor<2x1x4xf32>, tensor<2x1x4xf32> -> tensor<2x1x4xf32>
// CHECK:           [[C:%.+]] = arith.constant dense<0.333333343> : tensor<f32>
// CHECK:           [[SC:%.+]] = relax.multiply [[GE]], [[C]] : tensor<2x1x4xf32>, tensor<f32> -> tensor<2x1x4xf32>
// CHECK:           [[DX:%.+]] = relax.broadcast_to [[SC]] : tensor<2x1x4xf32> -> tensor<2x3x4xf32>
// CHECK:           relax.tuple([[DX]] : tensor<2x3x4xf32>)
func.func @mean_axis_keepdims(%x: tensor<2x3x4xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.mean %x {axis = array<i64: 1>, keepdims = true} : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
    %1 = relax.exp %0 : tensor<2x1x4xf32>
    %2 = relax.sum %1 : tensor<2x1x4xf32> -> tensor<f32>
    relax.output %2 : tensor<f32>
  }
  return %r : tensor<f32>
}


// mean over all axes as the loss itself: the seed is scaled by 1/12.
// CHECK-LABEL: func.func @mean_as_loss(%{{.+}}: tensor<4x3xf32>) -> tensor<f32> {
// CHECK-NEXT:    relax.dataflow -> (tensor<f32>) {
// CHECK-NEXT:      relax.mean
// CHECK-NEXT:      relax.output
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @mean_as_loss_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<4x3xf32>) -> tuple<tensor<f32>, tuple<tensor<4x3xf32>>> {
// CHECK:           [[L:%.+]] = relax.mean %[[X]] : tensor<4x3xf32> -> tensor<f32>
// The seed (ones) times 1/12 folds to the constant itself.
// CHECK-NOT:       relax.ones
// CHECK:           [[C:%.+]] = arith.constant dense<0.0833333358> : tensor<f32>
// CHECK:           [[R:%.+]] = relax.reshape [[C]] : tensor<f32> -> tensor<1x1xf32>
// CHECK:           [[DX:%.+]] = relax.broadcast_to [[R]] : tensor<1x1xf32> -> tensor<4x3xf32>
// CHECK:           [[GT:%.+]] = relax.tuple([[DX]] : tensor<4x3xf32>)
// CHECK:           relax.tuple([[L]], [[GT]] : tensor<f32>, tuple<tensor<4x3xf32>>)
func.func @mean_as_loss(%x: tensor<4x3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.mean %x : tensor<4x3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}


// 2-D matmul: da = g b^T, db = a^T g.
// CHECK-LABEL: func.func @matmul_2d(%{{.+}}: tensor<4x3xf32>, %{{.+}}: tensor<3x2xf32>) -> tensor<f32> {
// CHECK-NEXT:    relax.dataflow -> (tensor<f32>) {
// CHECK-NEXT:      relax.matmul
// CHECK-NEXT:      relax.sum
// CHECK-NEXT:      relax.output
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @matmul_2d_adjoint(
// CHECK-SAME:    %[[A:.+]]: tensor<4x3xf32>, %[[B:.+]]: tensor<3x2xf32>) -> tuple<tensor<f32>, tuple<tensor<4x3xf32>, tensor<3x2xf32>>> {
// CHECK:           [[Y:%.+]] = relax.matmul %[[A]], %[[B]] : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
// CHECK:           [[L:%.+]] = relax.sum [[Y]] :
// CHECK:           [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1xf32> -> tensor<4x2xf32>
// CHECK:           [[BT:%.+]] = relax.permute_dims %[[B]] : tensor<3x2xf32> -> tensor<2x3xf32>
// CHECK:           [[DA:%.+]] = relax.matmul [[G]], [[BT]] : tensor<4x2xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
// CHECK:           [[AT:%.+]] = relax.permute_dims %[[A]] : tensor<4x3xf32> -> tensor<3x4xf32>
// CHECK:           [[DB:%.+]] = relax.matmul [[AT]], [[G]] : tensor<3x4xf32>, tensor<4x2xf32> -> tensor<3x2xf32>
// CHECK:           [[GT:%.+]] = relax.tuple([[DA]], [[DB]] : tensor<4x3xf32>, tensor<3x2xf32>)
// CHECK:           relax.tuple([[L]], [[GT]] : tensor<f32>, tuple<tensor<4x3xf32>, tensor<3x2xf32>>)
func.func @matmul_2d(%a: tensor<4x3xf32>, %b: tensor<3x2xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.matmul %a, %b : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
    %1 = relax.sum %0 : tensor<4x2xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}


// matmul with a 1-D lhs: it is promoted to (1, k), g to (1, m), and da is
// reshaped back to (k).
// CHECK-LABEL: func.func @matmul_vector_lhs(%{{.+}}: tensor<3xf32>, %{{.+}}: tensor<3x2xf32>) -> tensor<f32> {
// CHECK-NEXT:    relax.dataflow -> (tensor<f32>) {
// CHECK-NEXT:      relax.matmul
// CHECK-NEXT:      relax.sum
// CHECK-NEXT:      relax.output
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @matmul_vector_lhs_adjoint(
// CHECK-SAME:    %[[A:.+]]: tensor<3xf32>, %[[B:.+]]: tensor<3x2xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<3x2xf32>>> {
// CHECK:           relax.matmul %[[A]], %[[B]] : tensor<3xf32>, tensor<3x2xf32> -> tensor<2xf32>
// CHECK:           [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<2xf32>
// CHECK:           [[A2:%.+]] = relax.reshape %[[A]] : tensor<3xf32> -> tensor<1x3xf32>
// CHECK:           [[G2:%.+]] = relax.reshape [[G]] : tensor<2xf32> -> tensor<1x2xf32>
// CHECK:           [[BT:%.+]] = relax.permute_dims %[[B]] : tensor<3x2xf32> -> tensor<2x3xf32>
// CHECK:           [[DA2:%.+]] = relax.matmul [[G2]], [[BT]] : tensor<1x2xf32>, tensor<2x3xf32> -> tensor<1x3xf32>
// CHECK:           [[DA:%.+]] = relax.reshape [[DA2]] : tensor<1x3xf32> -> tensor<3xf32>
// CHECK:           [[AT:%.+]] = relax.permute_dims [[A2]] : tensor<1x3xf32> -> tensor<3x1xf32>
// CHECK:           [[DB:%.+]] = relax.matmul [[AT]], [[G2]] : tensor<3x1xf32>, tensor<1x2xf32> -> tensor<3x2xf32>
// CHECK:           relax.tuple([[DA]], [[DB]] : tensor<3xf32>, tensor<3x2xf32>)
func.func @matmul_vector_lhs(%a: tensor<3xf32>, %b: tensor<3x2xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.matmul %a, %b : tensor<3xf32>, tensor<3x2xf32> -> tensor<2xf32>
    %1 = relax.sum %0 : tensor<2xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}


// matmul with a 1-D rhs: it is promoted to (k, 1), g to (n, 1).
// CHECK-LABEL: func.func @matmul_vector_rhs(%{{.+}}: tensor<4x3xf32>, %{{.+}}: tensor<3xf32>) -> tensor<f32> {
// CHECK-NEXT:    relax.dataflow -> (tensor<f32>) {
// CHECK-NEXT:      relax.matmul
// CHECK-NEXT:      relax.sum
// CHECK-NEXT:      relax.output
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @matmul_vector_rhs_adjoint(
// CHECK-SAME:    %[[A:.+]]: tensor<4x3xf32>, %[[B:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<4x3xf32>, tensor<3xf32>>> {
// CHECK:           relax.matmul %[[A]], %[[B]] : tensor<4x3xf32>, tensor<3xf32> -> tensor<4xf32>
// CHECK:           [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<4xf32>
// CHECK:           [[B2:%.+]] = relax.reshape %[[B]] : tensor<3xf32> -> tensor<3x1xf32>
// CHECK:           [[G2:%.+]] = relax.reshape [[G]] : tensor<4xf32> -> tensor<4x1xf32>
// CHECK:           [[BT:%.+]] = relax.permute_dims [[B2]] : tensor<3x1xf32> -> tensor<1x3xf32>
// CHECK:           [[DA:%.+]] = relax.matmul [[G2]], [[BT]] : tensor<4x1xf32>, tensor<1x3xf32> -> tensor<4x3xf32>
// CHECK:           [[AT:%.+]] = relax.permute_dims %[[A]] : tensor<4x3xf32> -> tensor<3x4xf32>
// CHECK:           [[DB2:%.+]] = relax.matmul [[AT]], [[G2]] : tensor<3x4xf32>, tensor<4x1xf32> -> tensor<3x1xf32>
// CHECK:           [[DB:%.+]] = relax.reshape [[DB2]] : tensor<3x1xf32> -> tensor<3xf32>
// CHECK:           relax.tuple([[DA]], [[DB]] : tensor<4x3xf32>, tensor<3xf32>)
func.func @matmul_vector_rhs(%a: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.matmul %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4xf32>
    %1 = relax.sum %0 : tensor<4xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}


// matmul of two vectors (a dot product, 0-d result): g is reshaped to (1, 1).
// CHECK-LABEL: func.func @matmul_dot_product(%{{.+}}: tensor<3xf32>, %{{.+}}: tensor<3xf32>) -> tensor<f32> {
// CHECK-NEXT:    relax.dataflow -> (tensor<f32>) {
// CHECK-NEXT:      relax.matmul
// CHECK-NEXT:      relax.output
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @matmul_dot_product_adjoint(
// CHECK-SAME:    %[[A:.+]]: tensor<3xf32>, %[[B:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<3xf32>>> {
// CHECK:           [[L:%.+]] = relax.matmul %[[A]], %[[B]] : tensor<3xf32>, tensor<3xf32> -> tensor<f32>
// CHECK:           [[ONE:%.+]] = relax.ones : tensor<f32>
// CHECK:           [[A2:%.+]] = relax.reshape %[[A]] : tensor<3xf32> -> tensor<1x3xf32>
// CHECK:           [[B2:%.+]] = relax.reshape %[[B]] : tensor<3xf32> -> tensor<3x1xf32>
// CHECK:           [[G2:%.+]] = relax.reshape [[ONE]] : tensor<f32> -> tensor<1x1xf32>
// CHECK:           [[BT:%.+]] = relax.permute_dims [[B2]] : tensor<3x1xf32> -> tensor<1x3xf32>
// CHECK:           [[DA2:%.+]] = relax.matmul [[G2]], [[BT]] : tensor<1x1xf32>, tensor<1x3xf32> -> tensor<1x3xf32>
// CHECK:           [[DA:%.+]] = relax.reshape [[DA2]] : tensor<1x3xf32> -> tensor<3xf32>
// CHECK:           [[AT:%.+]] = relax.permute_dims [[A2]] : tensor<1x3xf32> -> tensor<3x1xf32>
// CHECK:           [[DB2:%.+]] = relax.matmul [[AT]], [[G2]] : tensor<3x1xf32>, tensor<1x1xf32> -> tensor<3x1xf32>
// CHECK:           [[DB:%.+]] = relax.reshape [[DB2]] : tensor<3x1xf32> -> tensor<3xf32>
// CHECK:           [[GT:%.+]] = relax.tuple([[DA]], [[DB]] : tensor<3xf32>, tensor<3xf32>)
// CHECK:           relax.tuple([[L]], [[GT]] : tensor<f32>, tuple<tensor<3xf32>, tensor<3xf32>>)
func.func @matmul_dot_product(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.matmul %a, %b : tensor<3xf32>, tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}


// Batched matmul against a 2-D rhs: the rhs adjoint is summed over the batch.
// CHECK-LABEL: func.func @matmul_batched_lhs(%{{.+}}: tensor<5x4x3xf32>, %{{.+}}: tensor<3x2xf32>) -> tensor<f32> {
// CHECK-NEXT:    relax.dataflow -> (tensor<f32>) {
// CHECK-NEXT:      relax.matmul
// CHECK-NEXT:      relax.sum
// CHECK-NEXT:      relax.output
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @matmul_batched_lhs_adjoint(
// CHECK-SAME:    %[[A:.+]]: tensor<5x4x3xf32>, %[[B:.+]]: tensor<3x2xf32>) -> tuple<tensor<f32>, tuple<tensor<5x4x3xf32>, tensor<3x2xf32>>> {
// CHECK:           [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1x1xf32> -> tensor<5x4x2xf32>
// CHECK:           [[BT:%.+]] = relax.permute_dims %[[B]] : tensor<3x2xf32> -> tensor<2x3xf32>
// CHECK:           [[DA:%.+]] = relax.matmul [[G]], [[BT]] : tensor<5x4x2xf32>, tensor<2x3xf32> -> tensor<5x4x3xf32>
// CHECK:           [[AT:%.+]] = relax.permute_dims %[[A]] {axes = array<i64: 0, 2, 1>} : tensor<5x4x3xf32> -> tensor<5x3x4xf32>
// CHECK:           [[DB3:%.+]] = relax.matmul [[AT]], [[G]] : tensor<5x3x4xf32>, tensor<5x4x2xf32> -> tensor<5x3x2xf32>
// CHECK:           [[DB:%.+]] = relax.collapse_sum_to [[DB3]] : tensor<5x3x2xf32> -> tensor<3x2xf32>
// CHECK:           relax.tuple([[DA]], [[DB]] : tensor<5x4x3xf32>, tensor<3x2xf32>)
func.func @matmul_batched_lhs(%a: tensor<5x4x3xf32>, %b: tensor<3x2xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.matmul %a, %b : tensor<5x4x3xf32>, tensor<3x2xf32> -> tensor<5x4x2xf32>
    %1 = relax.sum %0 : tensor<5x4x2xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}


// Batched matmul with broadcast batch dims (2x1 against 5): each adjoint is
// summed back to its operand's batch shape.
// CHECK-LABEL: func.func @matmul_broadcast_batch(%{{.+}}: tensor<2x1x4x3xf32>, %{{.+}}: tensor<5x3x2xf32>) -> tensor<f32> {
// CHECK-NEXT:    relax.dataflow -> (tensor<f32>) {
// CHECK-NEXT:      relax.matmul
// CHECK-NEXT:      relax.sum
// CHECK-NEXT:      relax.output
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @matmul_broadcast_batch_adjoint(
// CHECK-SAME:    %[[A:.+]]: tensor<2x1x4x3xf32>, %[[B:.+]]: tensor<5x3x2xf32>) -> tuple<tensor<f32>, tuple<tensor<2x1x4x3xf32>, tensor<5x3x2xf32>>> {
// CHECK:           relax.matmul %[[A]], %[[B]] : tensor<2x1x4x3xf32>, tensor<5x3x2xf32> -> tensor<2x5x4x2xf32>
// CHECK:           [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1x1x1xf32> -> tensor<2x5x4x2xf32>
// CHECK:           [[BT:%.+]] = relax.permute_dims %[[B]] {axes = array<i64: 0, 2, 1>} : tensor<5x3x2xf32> -> tensor<5x2x3xf32>
// CHECK:           [[DA4:%.+]] = relax.matmul [[G]], [[BT]] : tensor<2x5x4x2xf32>, tensor<5x2x3xf32> -> tensor<2x5x4x3xf32>
// CHECK:           [[DA:%.+]] = relax.collapse_sum_to [[DA4]] : tensor<2x5x4x3xf32> -> tensor<2x1x4x3xf32>
// CHECK:           [[AT:%.+]] = relax.permute_dims %[[A]] {axes = array<i64: 0, 1, 3, 2>} : tensor<2x1x4x3xf32> -> tensor<2x1x3x4xf32>
// CHECK:           [[DB4:%.+]] = relax.matmul [[AT]], [[G]] : tensor<2x1x3x4xf32>, tensor<2x5x4x2xf32> -> tensor<2x5x3x2xf32>
// CHECK:           [[DB:%.+]] = relax.collapse_sum_to [[DB4]] : tensor<2x5x3x2xf32> -> tensor<5x3x2xf32>
// CHECK:           relax.tuple([[DA]], [[DB]] : tensor<2x1x4x3xf32>, tensor<5x3x2xf32>)
func.func @matmul_broadcast_batch(%a: tensor<2x1x4x3xf32>, %b: tensor<5x3x2xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.matmul %a, %b : tensor<2x1x4x3xf32>, tensor<5x3x2xf32> -> tensor<2x5x4x2xf32>
    %1 = relax.sum %0 : tensor<2x5x4x2xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}


// A 1-D lhs against a batched rhs: g is reshaped to (5, 1, 2).
// CHECK-LABEL: func.func @matmul_vector_lhs_batched_rhs(%{{.+}}: tensor<3xf32>, %{{.+}}: tensor<5x3x2xf32>) -> tensor<f32> {
// CHECK-LABEL: func.func @matmul_vector_lhs_batched_rhs_adjoint(
// CHECK-SAME:    %[[A:.+]]: tensor<3xf32>, %[[B:.+]]: tensor<5x3x2xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<5x3x2xf32>>> {
// CHECK:           [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1xf32> -> tensor<5x2xf32>
// CHECK:           [[A2:%.+]] = relax.reshape %[[A]] : tensor<3xf32> -> tensor<1x3xf32>
// CHECK:           [[G3:%.+]] = relax.reshape [[G]] : tensor<5x2xf32> -> tensor<5x1x2xf32>
// CHECK:           [[BT:%.+]] = relax.permute_dims %[[B]] {axes = array<i64: 0, 2, 1>} : tensor<5x3x2xf32> -> tensor<5x2x3xf32>
// CHECK:           [[DA3:%.+]] = relax.matmul [[G3]], [[BT]] : tensor<5x1x2xf32>, tensor<5x2x3xf32> -> tensor<5x1x3xf32>
// CHECK:           [[DA2:%.+]] = relax.collapse_sum_to [[DA3]] : tensor<5x1x3xf32> -> tensor<1x3xf32>
// CHECK:           [[DA:%.+]] = relax.reshape [[DA2]] : tensor<1x3xf32> -> tensor<3xf32>
// CHECK:           [[AT:%.+]] = relax.permute_dims [[A2]] : tensor<1x3xf32> -> tensor<3x1xf32>
// CHECK:           [[DB:%.+]] = relax.matmul [[AT]], [[G3]] : tensor<3x1xf32>, tensor<5x1x2xf32> -> tensor<5x3x2xf32>
// CHECK:           relax.tuple([[DA]], [[DB]] : tensor<3xf32>, tensor<5x3x2xf32>)
func.func @matmul_vector_lhs_batched_rhs(%a: tensor<3xf32>, %b: tensor<5x3x2xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.matmul %a, %b : tensor<3xf32>, tensor<5x3x2xf32> -> tensor<5x2xf32>
    %1 = relax.sum %0 : tensor<5x2xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}


// permute_dims: the adjoint goes through the inverse permutation
// (inverse of [1, 2, 0] is [2, 0, 1]).
// CHECK-LABEL: func.func @permute_dims_inverse(%{{.+}}: tensor<2x3x4xf32>) -> tensor<f32> {
// CHECK-NEXT:    relax.dataflow -> (tensor<f32>) {
// CHECK-NEXT:      relax.permute_dims
// CHECK-NEXT:      relax.exp
// CHECK-NEXT:      relax.sum
// CHECK-NEXT:      relax.output
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @permute_dims_inverse_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3x4xf32>) -> tuple<tensor<f32>, tuple<tensor<2x3x4xf32>>> {
// CHECK:           [[P:%.+]] = relax.permute_dims %[[X]] {axes = array<i64: 1, 2, 0>} : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
// CHECK:           [[E:%.+]] = relax.exp [[P]] :
// CHECK:           [[GE:%.+]] = relax.multiply %{{.+}}, [[E]] : tensor<3x4x2xf32>, tensor<3x4x2xf32> -> tensor<3x4x2xf32>
// CHECK:           [[DX:%.+]] = relax.permute_dims [[GE]] {axes = array<i64: 2, 0, 1>} : tensor<3x4x2xf32> -> tensor<2x3x4xf32>
// CHECK:           relax.tuple([[DX]] : tensor<2x3x4xf32>)
func.func @permute_dims_inverse(%x: tensor<2x3x4xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.permute_dims %x {axes = array<i64: 1, 2, 0>} : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
    %1 = relax.exp %0 : tensor<3x4x2xf32>
    %2 = relax.sum %1 : tensor<3x4x2xf32> -> tensor<f32>
    relax.output %2 : tensor<f32>
  }
  return %r : tensor<f32>
}


// permute_dims without axes (a reversal) and with negative axes.
// CHECK-LABEL: func.func @permute_dims_reverse_negative_axes(%{{.+}}: tensor<2x3x4xf32>) -> tensor<f32> {
// CHECK-LABEL: func.func @permute_dims_reverse_negative_axes_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3x4xf32>) -> tuple<tensor<f32>, tuple<tensor<2x3x4xf32>>> {
// CHECK:           [[P:%.+]] = relax.permute_dims %[[X]] : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
// CHECK:           [[Q:%.+]] = relax.permute_dims [[P]] {axes = array<i64: -1, 0, 1>} : tensor<4x3x2xf32> -> tensor<2x4x3xf32>
// CHECK:           [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1x1xf32> -> tensor<2x4x3xf32>
// CHECK:           [[DP:%.+]] = relax.permute_dims [[G]] {axes = array<i64: 1, 2, 0>} : tensor<2x4x3xf32> -> tensor<4x3x2xf32>
// CHECK:           [[DX:%.+]] = relax.permute_dims [[DP]] {axes = array<i64: 2, 1, 0>} : tensor<4x3x2xf32> -> tensor<2x3x4xf32>
// CHECK:           relax.tuple([[DX]] : tensor<2x3x4xf32>)
func.func @permute_dims_reverse_negative_axes(%x: tensor<2x3x4xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.permute_dims %x : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
    %1 = relax.permute_dims %0 {axes = array<i64: -1, 0, 1>} : tensor<4x3x2xf32> -> tensor<2x4x3xf32>
    %2 = relax.sum %1 : tensor<2x4x3xf32> -> tensor<f32>
    relax.output %2 : tensor<f32>
  }
  return %r : tensor<f32>
}


// reshape: the adjoint is reshaped back.
// CHECK-LABEL: func.func @reshape(%{{.+}}: tensor<2x6xf32>) -> tensor<f32> {
// CHECK-NEXT:    relax.dataflow -> (tensor<f32>) {
// CHECK-NEXT:      relax.reshape
// CHECK-NEXT:      relax.exp
// CHECK-NEXT:      relax.sum
// CHECK-NEXT:      relax.output
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @reshape_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<2x6xf32>) -> tuple<tensor<f32>, tuple<tensor<2x6xf32>>> {
// CHECK:           [[R:%.+]] = relax.reshape %[[X]] : tensor<2x6xf32> -> tensor<3x4xf32>
// CHECK:           [[E:%.+]] = relax.exp [[R]] :
// CHECK:           [[GE:%.+]] = relax.multiply %{{.+}}, [[E]] : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
// CHECK:           [[DX:%.+]] = relax.reshape [[GE]] : tensor<3x4xf32> -> tensor<2x6xf32>
// CHECK:           relax.tuple([[DX]] : tensor<2x6xf32>)
func.func @reshape(%x: tensor<2x6xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.reshape %x : tensor<2x6xf32> -> tensor<3x4xf32>
    %1 = relax.exp %0 : tensor<3x4xf32>
    %2 = relax.sum %1 : tensor<3x4xf32> -> tensor<f32>
    relax.output %2 : tensor<f32>
  }
  return %r : tensor<f32>
}


// broadcast_to: the adjoint is collapse-summed back.
// CHECK-LABEL: func.func @broadcast_to(%{{.+}}: tensor<3xf32>) -> tensor<f32> {
// CHECK-NEXT:    relax.dataflow -> (tensor<f32>) {
// CHECK-NEXT:      relax.broadcast_to
// CHECK-NEXT:      relax.exp
// CHECK-NEXT:      relax.sum
// CHECK-NEXT:      relax.output
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @broadcast_to_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>> {
// CHECK:           [[B:%.+]] = relax.broadcast_to %[[X]] : tensor<3xf32> -> tensor<4x3xf32>
// CHECK:           [[E:%.+]] = relax.exp [[B]] :
// CHECK:           [[GE:%.+]] = relax.multiply %{{.+}}, [[E]] : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
// CHECK:           [[DX:%.+]] = relax.collapse_sum_to [[GE]] : tensor<4x3xf32> -> tensor<3xf32>
// CHECK:           relax.tuple([[DX]] : tensor<3xf32>)
func.func @broadcast_to(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.broadcast_to %x : tensor<3xf32> -> tensor<4x3xf32>
    %1 = relax.exp %0 : tensor<4x3xf32>
    %2 = relax.sum %1 : tensor<4x3xf32> -> tensor<f32>
    relax.output %2 : tensor<f32>
  }
  return %r : tensor<f32>
}


// collapse_sum_to: the adjoint is broadcast back.
// CHECK-LABEL: func.func @collapse_sum_to(%{{.+}}: tensor<4x3xf32>) -> tensor<f32> {
// CHECK-NEXT:    relax.dataflow -> (tensor<f32>) {
// CHECK-NEXT:      relax.collapse_sum_to
// CHECK-NEXT:      relax.exp
// CHECK-NEXT:      relax.sum
// CHECK-NEXT:      relax.output
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @collapse_sum_to_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<4x3xf32>) -> tuple<tensor<f32>, tuple<tensor<4x3xf32>>> {
// CHECK:           [[C:%.+]] = relax.collapse_sum_to %[[X]] : tensor<4x3xf32> -> tensor<1x3xf32>
// CHECK:           [[E:%.+]] = relax.exp [[C]] :
// CHECK:           [[GE:%.+]] = relax.multiply %{{.+}}, [[E]] : tensor<1x3xf32>, tensor<1x3xf32> -> tensor<1x3xf32>
// CHECK:           [[DX:%.+]] = relax.broadcast_to [[GE]] : tensor<1x3xf32> -> tensor<4x3xf32>
// CHECK:           relax.tuple([[DX]] : tensor<4x3xf32>)
func.func @collapse_sum_to(%x: tensor<4x3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.collapse_sum_to %x : tensor<4x3xf32> -> tensor<1x3xf32>
    %1 = relax.exp %0 : tensor<1x3xf32>
    %2 = relax.sum %1 : tensor<1x3xf32> -> tensor<f32>
    relax.output %2 : tensor<f32>
  }
  return %r : tensor<f32>
}


// tuple_get_item of a tuple parameter: the parameter's gradient is a tuple
// with the field's adjoint and zeros for the other field.
// CHECK-LABEL: func.func @tuple_get_item_of_parameter(%{{.+}}: tuple<tensor<3xf32>, tensor<2xf32>>) -> tensor<f32> {
// CHECK-NEXT:    relax.dataflow -> (tensor<f32>) {
// CHECK-NEXT:      relax.tuple_get_item
// CHECK-NEXT:      relax.sum
// CHECK-NEXT:      relax.output
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @tuple_get_item_of_parameter_adjoint(
// CHECK-SAME:    %[[T:.+]]: tuple<tensor<3xf32>, tensor<2xf32>>) -> tuple<tensor<f32>, tuple<tuple<tensor<3xf32>, tensor<2xf32>>>> {
// CHECK:           [[F:%.+]] = relax.tuple_get_item %[[T]][1] : tuple<tensor<3xf32>, tensor<2xf32>>
// CHECK:           [[L:%.+]] = relax.sum [[F]] : tensor<2xf32> -> tensor<f32>
// CHECK:           [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<2xf32>
// CHECK:           [[Z:%.+]] = relax.zeros : tensor<3xf32>
// CHECK:           [[DT:%.+]] = relax.tuple([[Z]], [[G]] : tensor<3xf32>, tensor<2xf32>)
// CHECK:           [[GT:%.+]] = relax.tuple([[DT]] : tuple<tensor<3xf32>, tensor<2xf32>>)
// CHECK:           [[RES:%.+]] = relax.tuple([[L]], [[GT]] : tensor<f32>, tuple<tuple<tensor<3xf32>, tensor<2xf32>>>)
// CHECK:           relax.output [[RES]] :
func.func @tuple_get_item_of_parameter(%t: tuple<tensor<3xf32>, tensor<2xf32>>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.tuple_get_item %t[1] : tuple<tensor<3xf32>, tensor<2xf32>>
    %1 = relax.sum %0 : tensor<2xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}


// relax.tuple then relax.tuple_get_item: each field's adjoint reaches its
// operand (d(sum(a) * sum(b))/da = sum(b), /db = sum(a)); the tuple
// plumbing folds away.
// CHECK-LABEL: func.func @tuple_then_get_item(%{{.+}}: tensor<3xf32>, %{{.+}}: tensor<2xf32>) -> tensor<f32> {
// CHECK-NEXT:    relax.dataflow -> (tensor<f32>) {
// CHECK-NEXT:      relax.tuple
// CHECK-NEXT:      relax.tuple_get_item
// CHECK-NEXT:      relax.tuple_get_item
// CHECK-NEXT:      relax.sum
// CHECK-NEXT:      relax.sum
// CHECK-NEXT:      relax.multiply
// CHECK-NEXT:      relax.output
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @tuple_then_get_item_adjoint(
// CHECK-SAME:    %[[A:.+]]: tensor<3xf32>, %[[B:.+]]: tensor<2xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<2xf32>>> {
// CHECK-NOT:       relax.tuple_get_item
// CHECK:           [[SA:%.+]] = relax.sum %[[A]] : tensor<3xf32> -> tensor<f32>
// CHECK:           [[SB:%.+]] = relax.sum %[[B]] : tensor<2xf32> -> tensor<f32>
// CHECK:           [[L:%.+]] = relax.multiply [[SA]], [[SB]] :
// Multiplying the seed (ones) folds away: d sa = sb, d sb = sa.
// CHECK-NOT:       relax.ones
// CHECK-DAG:       [[RB:%.+]] = relax.reshape [[SA]] : tensor<f32> -> tensor<1xf32>
// CHECK-DAG:       [[DB:%.+]] = relax.broadcast_to [[RB]] : tensor<1xf32> -> tensor<2xf32>
// CHECK-DAG:       [[RA:%.+]] = relax.reshape [[SB]] : tensor<f32> -> tensor<1xf32>
// CHECK-DAG:       [[DA:%.+]] = relax.broadcast_to [[RA]] : tensor<1xf32> -> tensor<3xf32>
// CHECK:           [[GT:%.+]] = relax.tuple([[DA]], [[DB]] : tensor<3xf32>, tensor<2xf32>)
// CHECK:           relax.tuple([[L]], [[GT]] : tensor<f32>, tuple<tensor<3xf32>, tensor<2xf32>>)
// CHECK-NOT:       relax.tuple_get_item
// CHECK:         return
func.func @tuple_then_get_item(%a: tensor<3xf32>, %b: tensor<2xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %t = relax.tuple(%a, %b : tensor<3xf32>, tensor<2xf32>)
    %0 = relax.tuple_get_item %t[0] : tuple<tensor<3xf32>, tensor<2xf32>>
    %1 = relax.tuple_get_item %t[1] : tuple<tensor<3xf32>, tensor<2xf32>>
    %2 = relax.sum %0 : tensor<3xf32> -> tensor<f32>
    %3 = relax.sum %1 : tensor<2xf32> -> tensor<f32>
    %4 = relax.multiply %2, %3 : tensor<f32>, tensor<f32> -> tensor<f32>
    relax.output %4 : tensor<f32>
  }
  return %r : tensor<f32>
}
