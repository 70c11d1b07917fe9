//===- NodeContext.h - what an op converter sees of the graph ---*- C++ -*-===//
//
// The importer walks the ONNX graph in topological order and hands each node
// to the converter registered for its op type. A converter reads the node's
// inputs (as known data or as IR values), its attributes, and defines its
// outputs either as IR values of `cgc_op` layers or as folded Literals. Every
// failure is an llvm::Error whose message starts with the node:
//
//   node 12 'Conv_3' (Conv): auto_pad=VALID with dilations is not implemented
//
//===----------------------------------------------------------------------===//

#ifndef CGC_LIB_IMPORT_ONNX_NODECONTEXT_H
#define CGC_LIB_IMPORT_ONNX_NODECONTEXT_H

#include "Literal.h"

#include "cgc/Dialect/CGC/IR/CGCTypes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Value.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <functional>
#include <map>

namespace onnx {
class NodeProto;
class AttributeProto;
} // namespace onnx

namespace cgc::importer {

/// An ONNX value: known data, an IR value, or both (a literal that some layer
/// consumed and that was therefore materialized as a `cgc.constant`).
struct ImportValue {
  std::optional<Literal> literal;
  mlir::Value value;
};

/// What the importer keeps across nodes; converters reach it through
/// NodeContext.
class GraphState {
public:
  GraphState(mlir::MLIRContext &context, mlir::OpBuilder &builder)
      : context(context), builder(builder) {}

  mlir::MLIRContext &context;
  mlir::OpBuilder &builder;
  /// Every ONNX value defined so far, by name.
  llvm::StringMap<ImportValue> values;
  /// Names of values that some live node or a graph output consumes.
  llvm::StringSet<> usedNames;
  /// Names already taken by ONNX values or constants.
  llvm::StringSet<> takenNames;
  /// The weights of every materialized constant.
  std::map<std::string, cgc::runtime::SharedTensor> weights;
  /// Diagnostics emitted while building the current op.
  std::string diagnostics;

  /// Names of the constants created so far.
  llvm::StringSet<> constantNames;
  /// Literals of at most this many bytes with equal type, shape and bytes
  /// share one constant name.
  static constexpr size_t kSharedLiteralBytes = 256;
  /// The name of each such literal materialized so far, by its type, shape
  /// and bytes.
  std::map<std::string, std::string> smallLiteralNames;

  /// A constant name starting with `base` that no ONNX value or other
  /// constant has.
  std::string makeUniqueName(llvm::StringRef base);
  /// The constant name of ONNX value `valueName`: the name itself unless a
  /// constant has it already or safetensors reserves it.
  std::string getConstantNameFor(llvm::StringRef valueName);
  /// A `cgc.constant` of `literal` called `name`, or the name of an equal
  /// small literal materialized before (kSharedLiteralBytes);
  /// the error names `what`.
  llvm::Expected<mlir::Value> materialize(const Literal &literal, llvm::StringRef name,
                                          mlir::Location loc);
  /// Removes the weights that no `cgc.constant` in `body` names any more
  /// (those of constants the importer's rewrites replaced).
  void dropUnreferencedWeights(mlir::Block &body);
};

class NodeContext {
public:
  NodeContext(GraphState &state, const onnx::NodeProto &node, unsigned index, int64_t opset);

  const onnx::NodeProto &node;
  const unsigned index;
  /// The version of the default-domain opset the model imports.
  const int64_t opset;

  mlir::MLIRContext &getContext() const { return state.context; }
  mlir::OpBuilder &getBuilder() const { return state.builder; }
  mlir::Location getLoc() const { return loc; }
  /// "node 12 'Conv_3' (Conv)"
  std::string describe() const;
  /// An error prefixed with `describe()`.
  llvm::Error error(const llvm::Twine &message) const;

  //===--------------------------------------------------------------------===//
  // Inputs
  //===--------------------------------------------------------------------===//

  unsigned getNumInputs() const;
  /// Whether input `i` is given (present with a non-empty name).
  bool hasInput(unsigned i) const;
  /// The known data of input `i`, or null.
  const Literal *getLiteral(unsigned i) const;
  /// The known data of input `i`; an error saying that `what` must be
  /// constant when it is not.
  llvm::Expected<const Literal *> requireLiteral(unsigned i, llvm::StringRef what) const;
  /// Input `i` as an IR value, materializing known data as a constant.
  llvm::Expected<mlir::Value> getValue(unsigned i);
  /// The ONNX element type and shape of input `i`.
  int32_t getInputType(unsigned i) const;
  std::vector<int64_t> getInputShape(unsigned i) const;
  int64_t getInputRank(unsigned i) const { return getInputShape(i).size(); }
  /// Whether every given input has known data.
  bool allInputsKnown() const;

  //===--------------------------------------------------------------------===//
  // Outputs
  //===--------------------------------------------------------------------===//

  unsigned getNumOutputs() const;
  /// Whether output `i` exists and something consumes it.
  bool isOutputUsed(unsigned i) const;
  /// Fails when an output from `first` on is consumed; `why` says why the
  /// importer cannot produce it ("the indices of MaxPool").
  llvm::Error requireUnusedOutputsFrom(unsigned first, llvm::StringRef why) const;
  void setOutput(unsigned i, mlir::Value value);
  void setOutput(unsigned i, Literal literal);
  /// Defines output `i` as the same value as input `j`.
  void forwardInput(unsigned output, unsigned input);

  //===--------------------------------------------------------------------===//
  // Attributes
  //===--------------------------------------------------------------------===//

  const onnx::AttributeProto *findAttribute(llvm::StringRef name) const;
  bool hasAttribute(llvm::StringRef name) const { return findAttribute(name); }
  llvm::Expected<int64_t> getInt(llvm::StringRef name, int64_t defaultValue) const;
  llvm::Expected<std::optional<int64_t>> getOptionalInt(llvm::StringRef name) const;
  /// Float attributes read as the shortest decimal that rounds to the float
  /// (1e-5f reads as 1e-5, not 9.99999974e-6).
  llvm::Expected<double> getFloat(llvm::StringRef name, double defaultValue) const;
  llvm::Expected<std::optional<double>> getOptionalFloat(llvm::StringRef name) const;
  llvm::Expected<std::string> getString(llvm::StringRef name, llvm::StringRef defaultValue) const;
  llvm::Expected<std::optional<std::vector<int64_t>>> getInts(llvm::StringRef name) const;
  llvm::Expected<std::optional<std::vector<double>>> getFloats(llvm::StringRef name) const;

  //===--------------------------------------------------------------------===//
  // Building
  //===--------------------------------------------------------------------===//

  /// Creates a layer of type `OpTy` whose result types its type inference
  /// computes; the error quotes the layer's complaint.
  template <typename OpTy>
  llvm::Expected<mlir::Value> create(mlir::ValueRange operands,
                                     llvm::ArrayRef<mlir::NamedAttribute> attributes = {}) {
    llvm::Expected<mlir::Operation *> op = createOperation<OpTy>(operands, attributes);
    if (!op)
      return op.takeError();
    return (*op)->getResult(0);
  }
  template <typename OpTy>
  llvm::Expected<mlir::Operation *> createOperation(mlir::ValueRange operands,
                                                    llvm::ArrayRef<mlir::NamedAttribute> attributes) {
    mlir::OperationState opState(loc, OpTy::getOperationName());
    opState.addOperands(operands);
    auto &properties = opState.getOrAddProperties<typename OpTy::Properties>();
    // Attributes left out take their defaults, as OpBuilder would give them.
    OpTy::populateDefaultProperties(opState.name, properties);
    mlir::DictionaryAttr dictionary = mlir::DictionaryAttr::get(&state.context, attributes);
    state.diagnostics.clear();
    if (mlir::failed(OpTy::setPropertiesFromAttr(properties, dictionary, [&] {
          return mlir::emitError(loc);
        })))
      return buildError(OpTy::getOperationName());
    llvm::SmallVector<mlir::Type> resultTypes;
    if (mlir::failed(OpTy::inferReturnTypes(&state.context, loc, opState.operands, dictionary,
                                            opState.getRawProperties(), opState.regions,
                                            resultTypes)))
      return buildError(OpTy::getOperationName());
    opState.addTypes(resultTypes);
    mlir::Operation *op = state.builder.create(opState);
    // Operand constraints (e.g. signed or float element types) are the
    // verifier's; check them now so the error names this node.
    if (mlir::failed(mlir::verify(op, /*verifyRecursively=*/false))) {
      op->erase();
      return buildError(OpTy::getOperationName());
    }
    return op;
  }

  /// A rank-0 named constant of `elementType` holding `value`.
  llvm::Expected<mlir::Value> getScalar(mlir::Type elementType, double value);
  /// A named constant holding `literal`; `purpose` goes into its name.
  llvm::Expected<mlir::Value> getConstant(const Literal &literal, llvm::StringRef purpose);

  /// Attribute helpers.
  mlir::NamedAttribute namedI64(llvm::StringRef name, int64_t value) const;
  mlir::NamedAttribute namedI64s(llvm::StringRef name, llvm::ArrayRef<int64_t> values) const;
  mlir::NamedAttribute namedF64(llvm::StringRef name, double value) const;
  mlir::NamedAttribute namedF64s(llvm::StringRef name, llvm::ArrayRef<double> values) const;
  mlir::NamedAttribute namedString(llvm::StringRef name, llvm::StringRef value) const;
  mlir::NamedAttribute namedBool(llvm::StringRef name, bool value) const;
  mlir::NamedAttribute namedType(llvm::StringRef name, mlir::Type value) const;

  GraphState &getState() const { return state; }

private:
  llvm::Error buildError(llvm::StringRef opName) const;
  const ImportValue *findInput(unsigned i) const;

  GraphState &state;
  mlir::Location loc;
};

/// Builds a chain of layers for one node, keeping the first error: once a
/// step fails every later one yields a null value, and `finish` reports it.
/// Decompositions (Elu = where(x > 0, x, alpha * (exp(x) - 1))) read as
/// straight-line code this way.
class LayerEmitter {
public:
  explicit LayerEmitter(NodeContext &node) : node(node) {}
  ~LayerEmitter() { llvm::consumeError(std::move(firstError)); }

  template <typename OpTy>
  mlir::Value emit(llvm::ArrayRef<mlir::Value> operands,
                   llvm::ArrayRef<mlir::NamedAttribute> attributes = {}) {
    if (failed || llvm::is_contained(operands, mlir::Value()))
      return {};
    return take(node.create<OpTy>(operands, attributes));
  }
  /// Input `i` as an IR value.
  mlir::Value input(unsigned i) { return failed ? mlir::Value() : take(node.getValue(i)); }
  /// A rank-0 constant with `reference`'s element type.
  mlir::Value scalarLike(mlir::Value reference, double value) {
    if (failed || !reference)
      return {};
    return take(node.getScalar(getElementTypeOf(reference), value));
  }
  mlir::Value reshape(mlir::Value value, llvm::ArrayRef<int64_t> shape);
  /// Records `error` as the failure unless one came first.
  void fail(llvm::Error error);
  /// Defines output `index` as `value`, or returns the first error.
  llvm::Error finish(unsigned index, mlir::Value value);
  /// The first error, or success.
  llvm::Error takeError();

  static mlir::Type getElementTypeOf(mlir::Value value);

private:
  mlir::Value take(llvm::Expected<mlir::Value> value);

  NodeContext &node;
  bool failed = false;
  llvm::Error firstError = llvm::Error::success();
};

/// The shape and element type of an IR value.
inline cgc::TensorType getTensorType(mlir::Value value) {
  return llvm::cast<cgc::TensorType>(value.getType());
}

/// Converts one node; registered per op type.
using Converter = std::function<llvm::Error(NodeContext &)>;

/// The converter of an ONNX op that is exactly one unary layer.
template <typename OpTy>
Converter unary() {
  return [](NodeContext &node) -> llvm::Error {
    LayerEmitter emitter(node);
    return emitter.finish(0, emitter.emit<OpTy>({emitter.input(0)}));
  };
}

/// The converter of an ONNX op that is exactly one binary layer.
template <typename OpTy>
Converter binary() {
  return [](NodeContext &node) -> llvm::Error {
    if (node.getNumInputs() != 2)
      return node.error("expects 2 inputs, got " + llvm::Twine(node.getNumInputs()));
    LayerEmitter emitter(node);
    return emitter.finish(0, emitter.emit<OpTy>({emitter.input(0), emitter.input(1)}));
  };
}

/// Registries filled by the op family files.
void registerElementwiseConverters(llvm::StringMap<Converter> &converters);
void registerNeuralNetworkConverters(llvm::StringMap<Converter> &converters);
void registerShapeConverters(llvm::StringMap<Converter> &converters);
void registerReductionConverters(llvm::StringMap<Converter> &converters);
void registerIndexingConverters(llvm::StringMap<Converter> &converters);
void registerMathConverters(llvm::StringMap<Converter> &converters);
void registerEinsumConverters(llvm::StringMap<Converter> &converters);
void registerRecurrentConverters(llvm::StringMap<Converter> &converters);
void registerQuantizationConverters(llvm::StringMap<Converter> &converters);
void registerSignalConverters(llvm::StringMap<Converter> &converters);

/// Folding of nodes whose inputs are all known: returns true when it defined
/// the outputs as Literals, false when the node should become layers.
llvm::Expected<bool> tryFold(NodeContext &node);

/// Why an op type that has no converter is not imported ("out of scope: a
/// training op"), or empty when it simply is not implemented yet.
std::string getOutOfScopeReason(llvm::StringRef opType);

//===----------------------------------------------------------------------===//
// Helpers shared by the op families
//===----------------------------------------------------------------------===//

/// Normalizes `axis` (may be negative) for rank `rank`; error if outside.
llvm::Expected<int64_t> normalizeAxis(const NodeContext &node, int64_t axis, int64_t rank,
                                      llvm::StringRef what = "axis");
/// The numpy broadcast of two shapes, or nullopt.
std::optional<std::vector<int64_t>> broadcastShapes(llvm::ArrayRef<int64_t> lhs,
                                                    llvm::ArrayRef<int64_t> rhs);
/// `cgc_op.reshape` of `value` to `shape` (no op when it already has it).
llvm::Expected<mlir::Value> reshapeTo(NodeContext &node, mlir::Value value,
                                      llvm::ArrayRef<int64_t> shape);
/// The axes of a Squeeze/Unsqueeze/Reduce-like node: attribute `axes` before
/// `inputSinceOpset`, input 1 from then on (which must be known); nullopt
/// when neither is given.
llvm::Expected<std::optional<std::vector<int64_t>>>
getAxesOperand(const NodeContext &node, int64_t inputSinceOpset, unsigned inputIndex = 1);

/// The result shapes of the ops that only reinterpret data (Reshape,
/// Flatten, Squeeze, Unsqueeze), from the input shape and the node's
/// attributes / known inputs. Shared by the converters and by folding.
llvm::Expected<std::vector<int64_t>> getReshapeResult(const NodeContext &node,
                                                      llvm::ArrayRef<int64_t> inputShape);

/// `cgc_op.convolution` of a Conv-like node (ConvInteger, QLinearConv) on
/// the given operands, reading kernel_shape, strides, dilations, pads,
/// auto_pad and group from the node; failures go to `e`.
mlir::Value emitConvolution(NodeContext &node, LayerEmitter &e, mlir::Value input,
                            mlir::Value weight, mlir::Value bias);

/// A Slice node's parameters, one entry per sliced axis (normalized).
struct SliceParameters {
  std::vector<int64_t> starts, ends, axes, steps;
};
llvm::Expected<SliceParameters> getSliceParameters(const NodeContext &node, int64_t rank);
/// The clamped start and the size of one sliced dimension (ONNX semantics).
std::pair<int64_t, int64_t> resolveSliceDimension(int64_t dim, int64_t start, int64_t end,
                                                  int64_t step);

} // namespace cgc::importer

#endif // CGC_LIB_IMPORT_ONNX_NODECONTEXT_H
