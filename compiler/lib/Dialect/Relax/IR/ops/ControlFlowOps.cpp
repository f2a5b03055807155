//===- ControlFlowOps.cpp - relax ops: loops and conditionals -------------===//

#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

using namespace mlir;
using namespace mlir::relax;

//===----------------------------------------------------------------------===//
// The loops' operand groups: `consts(%a : t) init(%b : u) xs(%c : v)`
//===----------------------------------------------------------------------===//

/// Parses `keyword ( operands : types )` (optional unless `required`; the
/// parentheses may be empty); returns how many operands it read.
static FailureOr<int64_t> parseGroup(OpAsmParser &p, StringRef keyword, bool required,
                                     SmallVectorImpl<OpAsmParser::UnresolvedOperand> &args,
                                     SmallVectorImpl<Type> &types) {
  if (required ? p.parseKeyword(keyword) : p.parseOptionalKeyword(keyword)) {
    if (required)
      return failure();
    return 0;
  }
  size_t before = args.size();
  if (p.parseLParen())
    return failure();
  if (succeeded(p.parseOptionalRParen()))
    return 0;
  if (p.parseOperandList(args) || p.parseColonTypeList(types) || p.parseRParen())
    return failure();
  if (args.size() != types.size())
    return p.emitError(p.getCurrentLocation(), "'")
           << keyword << "' lists " << args.size() - before << " operands but "
           << types.size() - before << " types";
  return static_cast<int64_t>(args.size() - before);
}

/// Prints `keyword(args : types)`, separated from a group before it.
static void printGroup(OpAsmPrinter &p, StringRef keyword, OperandRange args, bool always,
                       bool &first) {
  if (args.empty() && !always)
    return;
  if (!first)
    p << " ";
  first = false;
  p << keyword << "(";
  if (!args.empty()) {
    p << args << " : ";
    llvm::interleaveComma(args.getTypes(), p);
  }
  p << ")";
}

ParseResult mlir::relax::parseScanOperands(OpAsmParser &p,
                                     SmallVectorImpl<OpAsmParser::UnresolvedOperand> &args,
                                     SmallVectorImpl<Type> &types, IntegerAttr &numConsts,
                                     IntegerAttr &numCarries) {
  FailureOr<int64_t> consts = parseGroup(p, "consts", false, args, types);
  if (failed(consts))
    return failure();
  FailureOr<int64_t> carries = parseGroup(p, "init", true, args, types);
  if (failed(carries) || failed(parseGroup(p, "xs", false, args, types)))
    return failure();
  numConsts = p.getBuilder().getI64IntegerAttr(*consts);
  numCarries = p.getBuilder().getI64IntegerAttr(*carries);
  return success();
}

void mlir::relax::printScanOperands(OpAsmPrinter &p, Operation *operation, OperandRange,
                                    TypeRange, IntegerAttr, IntegerAttr) {
  auto op = cast<ScanOp>(operation);
  bool first = true;
  printGroup(p, "consts", op.getConsts(), false, first);
  printGroup(p, "init", op.getInit(), true, first);
  printGroup(p, "xs", op.getXs(), false, first);
}

ParseResult mlir::relax::parseWhileOperands(OpAsmParser &p,
                                      SmallVectorImpl<OpAsmParser::UnresolvedOperand> &args,
                                      SmallVectorImpl<Type> &types, IntegerAttr &numConsts) {
  FailureOr<int64_t> consts = parseGroup(p, "consts", false, args, types);
  if (failed(consts) || failed(parseGroup(p, "init", true, args, types)))
    return failure();
  numConsts = p.getBuilder().getI64IntegerAttr(*consts);
  return success();
}

void mlir::relax::printWhileOperands(OpAsmPrinter &p, Operation *operation, OperandRange,
                                     TypeRange, IntegerAttr) {
  auto op = cast<WhileOp>(operation);
  bool first = true;
  printGroup(p, "consts", op.getConsts(), false, first);
  printGroup(p, "init", op.getInit(), true, first);
}

/// Checks that the operand groups `counts` fit in `op`'s operands.
static LogicalResult verifyGroups(Operation *op, ArrayRef<std::pair<StringRef, int64_t>> counts) {
  int64_t total = 0;
  for (auto [name, n] : counts) {
    if (n < 0)
      return op->emitOpError(name) << " must be non-negative, got " << n;
    total += n;
  }
  if (total > static_cast<int64_t>(op->getNumOperands()))
    return op->emitOpError("the operand groups (")
           << total << " operands) do not fit in its " << op->getNumOperands() << " operands";
  return success();
}

void ScanOp::build(OpBuilder &b, OperationState &state, ValueRange consts, ValueRange init,
                   ValueRange xs, TypeRange ysTypes, int64_t length, bool reverse,
                   std::optional<int64_t> checkpointEvery) {
  state.addOperands(consts);
  state.addOperands(init);
  state.addOperands(xs);
  state.addAttribute("num_consts", b.getI64IntegerAttr(consts.size()));
  state.addAttribute("num_carries", b.getI64IntegerAttr(init.size()));
  state.addAttribute("length", b.getI64IntegerAttr(length));
  if (reverse)
    state.addAttribute("reverse", b.getUnitAttr());
  if (checkpointEvery)
    state.addAttribute("checkpoint_every", b.getI64IntegerAttr(*checkpointEvery));
  state.addTypes(init.getTypes());
  state.addTypes(ysTypes);
  state.addRegion();
}

void WhileOp::build(OpBuilder &b, OperationState &state, ValueRange consts, ValueRange init,
                    IntegerAttr maxIterations, IntegerAttr checkpointEvery) {
  state.addOperands(consts);
  state.addOperands(init);
  state.addAttribute("num_consts", b.getI64IntegerAttr(consts.size()));
  if (maxIterations)
    state.addAttribute("max_iterations", maxIterations);
  if (checkpointEvery)
    state.addAttribute("checkpoint_every", checkpointEvery);
  state.addTypes(init.getTypes());
  state.addRegion();
  state.addRegion();
}

/// A region's block must take `argTypes` and end in `Term` whose operands
/// have `yieldTypes` (when `Term` is relax.yield); diagnostics name the region
/// `what`.
template <typename Term>
static LogicalResult verifyBody(Operation *op, Region &region, StringRef what, TypeRange argTypes,
                                TypeRange yieldTypes) {
  Block &block = region.front();
  if (block.getArgumentTypes() != argTypes)
    return op->emitOpError("the ")
           << what << " takes (" << block.getArgumentTypes() << ") but must take (" << argTypes
           << ")";
  auto term = dyn_cast<Term>(block.getTerminator());
  if (!term)
    return op->emitOpError("the ") << what << " must end with '" << Term::getOperationName()
                                   << "'";
  if constexpr (std::is_same_v<Term, YieldOp>) {
    if (term.getOperandTypes() != yieldTypes)
      return term.emitOpError("yields (")
             << term.getOperandTypes() << ") but the " << what << " of '" << op->getName()
             << "' must yield (" << yieldTypes << ")";
  }
  return success();
}

static LogicalResult verifyScalar(Operation *op, Value v, StringRef what) {
  if (cast<RankedTensorType>(v.getType()).getRank() != 0)
    return op->emitOpError(what) << " must be a 0-d tensor, got " << v.getType();
  return success();
}

//===----------------------------------------------------------------------===//
// ScanOp
//===----------------------------------------------------------------------===//

LogicalResult ScanOp::verify() {
  if (failed(verifyGroups(*this, {{"num_consts", getNumConsts()}, {"num_carries", getNumCarries()}})))
    return failure();
  if (getNumCarries() > static_cast<int64_t>(getNumResults()))
    return emitOpError("has ") << getNumResults() << " results but " << getNumCarries()
                               << " carries";
  int64_t length = getLength();
  if (length < 0)
    return emitOpError("length must be non-negative, got ") << length;
  if (std::optional<int64_t> every = getCheckpointEvery(); every && *every < 1)
    return emitOpError("checkpoint_every must be at least 1, got ") << *every;
  for (auto [i, x] : llvm::enumerate(getXs())) {
    auto type = cast<RankedTensorType>(x.getType());
    if (type.getRank() == 0 || type.getDimSize(0) != length)
      return emitOpError("xs #") << i << " has type " << type
                                 << "; every xs must have a leading axis of size length ("
                                 << length << ")";
  }
  if (getCarries().getTypes() != getInit().getTypes())
    return emitOpError("the carries it returns (")
           << getCarries().getTypes() << ") must have the types of init (" << getInit().getTypes()
           << ")";
  for (auto [i, y] : llvm::enumerate(getYs())) {
    auto type = cast<RankedTensorType>(y.getType());
    if (type.getRank() == 0 || type.getDimSize(0) != length)
      return emitOpError("ys result #")
             << i << " has type " << type << "; the stacked outputs have a leading axis of size "
             << "length (" << length << ")";
  }
  return success();
}

/// `type` without its leading axis.
static Type sliceType(Type type) {
  auto t = cast<RankedTensorType>(type);
  return RankedTensorType::get(t.getShape().drop_front(), t.getElementType());
}

LogicalResult ScanOp::verifyRegions() {
  SmallVector<Type> args(getConsts().getTypes());
  llvm::append_range(args, getInit().getTypes());
  for (Value x : getXs())
    args.push_back(sliceType(x.getType()));
  SmallVector<Type> yields(getInit().getTypes());
  for (Value y : getYs())
    yields.push_back(sliceType(y.getType()));
  return verifyBody<YieldOp>(*this, getBody(), "body", args, yields);
}

//===----------------------------------------------------------------------===//
// WhileOp
//===----------------------------------------------------------------------===//

LogicalResult WhileOp::verify() {
  if (failed(verifyGroups(*this, {{"num_consts", getNumConsts()}})))
    return failure();
  if (std::optional<int64_t> max = getMaxIterations(); max && *max < 0)
    return emitOpError("max_iterations must be non-negative, got ") << *max;
  if (std::optional<int64_t> every = getCheckpointEvery(); every && *every < 2)
    return emitOpError("checkpoint_every must be at least 2, got ") << *every;
  if (getResultTypes() != getInit().getTypes())
    return emitOpError("results (") << getResultTypes() << ") must have the types of init ("
                                    << getInit().getTypes() << ")";
  return success();
}

LogicalResult WhileOp::verifyRegions() {
  SmallVector<Type> args(getConsts().getTypes());
  llvm::append_range(args, getInit().getTypes());
  if (failed(verifyBody<ConditionOp>(*this, getCond(), "cond region", args, {})))
    return failure();
  return verifyBody<YieldOp>(*this, getBody(), "body", args, getInit().getTypes());
}

LogicalResult ConditionOp::verify() {
  return verifyScalar(*this, getCondition(), "the condition");
}

//===----------------------------------------------------------------------===//
// IfOp and SwitchOp
//===----------------------------------------------------------------------===//

LogicalResult IfOp::verify() { return verifyScalar(*this, getPred(), "the predicate"); }

LogicalResult IfOp::verifyRegions() {
  if (failed(verifyBody<YieldOp>(*this, getThenRegion(), "then region",
                                 getInputs().getTypes(), getResultTypes())))
    return failure();
  return verifyBody<YieldOp>(*this, getElseRegion(), "else region", getInputs().getTypes(),
                             getResultTypes());
}

LogicalResult SwitchOp::verify() {
  if (getBranches().empty())
    return emitOpError("needs at least one branch");
  return verifyScalar(*this, getIndex(), "the index");
}

LogicalResult SwitchOp::verifyRegions() {
  for (auto [i, region] : llvm::enumerate(getBranches()))
    if (failed(verifyBody<YieldOp>(*this, region, "branch #" + std::to_string(i),
                                   getInputs().getTypes(), getResultTypes())))
      return failure();
  return success();
}
