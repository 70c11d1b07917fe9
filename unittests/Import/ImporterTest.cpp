//===- ImporterTest.cpp - the ONNX importer's C++ API ----------------------===//

#include "ModelBuilder.h"

#include "Import/ONNX/SplitModel.h"
#include "Runtime/Weights.h"
#include "cgc/Import/ONNX.h"
#include "cgc/InitAllDialects.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <unistd.h>

using namespace cgc::importer;
using namespace cgc::importer::testing;
namespace fs = std::filesystem;

namespace {

class ImporterTest : public ::testing::Test {
protected:
  ImporterTest() {
    mlir::DialectRegistry registry;
    cgc::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  void SetUp() override {
    const ::testing::TestInfo *info = ::testing::UnitTest::GetInstance()->current_test_info();
    directory = fs::temp_directory_path() /
                ("cgc-import-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(directory);
    fs::create_directories(directory);
  }
  void TearDown() override { fs::remove_all(directory); }

  /// Writes test model `name` and returns its path.
  std::string writeModel(const std::string &name) {
    std::string path = (directory / (name + ".onnx")).string();
    EXPECT_TRUE(getTestModels().at(name)(path));
    return path;
  }

  llvm::Expected<ImportedModel> importModel(const std::string &name,
                                            const ImportOptions &options = {}) {
    return importONNXFile(writeModel(name), context, options);
  }

  std::string importError(const std::string &name, const ImportOptions &options = {}) {
    llvm::Expected<ImportedModel> model = importModel(name, options);
    if (model) {
      ADD_FAILURE() << name << " imported, but an error was expected";
      return "";
    }
    return llvm::toString(model.takeError());
  }

  static std::string print(const ImportedModel &model) {
    std::string text;
    llvm::raw_string_ostream os(text);
    model.module.get()->print(os);
    return text;
  }

  mlir::MLIRContext context;
  fs::path directory;
};

TEST_F(ImporterTest, ImportsAResNetStageWithNamedConstants) {
  llvm::Expected<ImportedModel> model = importModel("mini-resnet");
  ASSERT_TRUE(static_cast<bool>(model)) << llvm::toString(model.takeError());
  EXPECT_EQ(model->inputNames, std::vector<std::string>{"input.1"});
  EXPECT_EQ(model->outputNames, std::vector<std::string>{"probabilities"});
  // Every initializer a layer uses is a weight; the BN statistics included.
  std::vector<std::string> names;
  for (const auto &[name, tensor] : model->weights)
    names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"bn1.bias", "bn1.running_mean", "bn1.running_var",
                                             "bn1.weight", "conv1.bias", "conv1.weight",
                                             "conv2.weight", "fc.bias", "fc.weight"}));
  const cgc::runtime::SharedTensor &fc = model->weights.at("fc.weight");
  EXPECT_EQ(fc.dtype, cgc::runtime::DType::Float32);
  EXPECT_EQ(fc.shape, (std::vector<int64_t>{10, 4}));
  ASSERT_EQ(fc.data.size(), 40u * sizeof(float));
  EXPECT_FLOAT_EQ(fc.as<float>()[1], 0.2f); // ((1 * 7) % 11 - 5) / 10
  std::string text = print(*model);
  EXPECT_EQ(text.find("dense<"), std::string::npos) << "weights must not be in the IR";
  EXPECT_NE(text.find("cgc.name = \"input.1\""), std::string::npos) << text;
}

TEST_F(ImporterTest, EqualSmallConstantsShareOneName) {
  llvm::Expected<ImportedModel> model = importModel("repeated-constants");
  ASSERT_TRUE(static_cast<bool>(model)) << llvm::toString(model.takeError());
  // layer.1/half has layer.0/half's value: one weight, read by two
  // cgc.constant ops of that name; the 320-byte scales stay two weights.
  std::vector<std::string> names;
  for (const auto &[name, tensor] : model->weights)
    names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"layer.0/half", "layer.0/scale", "layer.1/scale",
                                             "layer.1/third"}));
  std::string text = print(*model);
  size_t first = text.find("cgc.constant(\"layer.0/half\")");
  ASSERT_NE(first, std::string::npos) << text;
  EXPECT_NE(text.find("cgc.constant(\"layer.0/half\")", first + 1), std::string::npos) << text;
  EXPECT_EQ(text.find("layer.1/half"), std::string::npos) << text;
}

TEST_F(ImporterTest, SpecializesDynamicDimensionsFromInputShapes) {
  ImportOptions options;
  ASSERT_FALSE(static_cast<bool>(parseInputShapeOption("input_ids=1x8", options)));
  ASSERT_FALSE(static_cast<bool>(parseInputShapeOption("attention_mask=1x8", options)));
  llvm::Expected<ImportedModel> model = importModel("encoder-layer", options);
  ASSERT_TRUE(static_cast<bool>(model)) << llvm::toString(model.takeError());
  auto entryPoint = *model->module.get().getBody().getOps<cgc::EntryPointOp>().begin();
  auto resultType = llvm::cast<cgc::TensorType>(entryPoint.getResultTypes()[0]);
  EXPECT_EQ(resultType.getShape(), (llvm::ArrayRef<int64_t>{1, 8, 16}));
  // The shape computations folded: no Shape/Concat/Where survive as layers.
  std::string text = print(*model);
  EXPECT_EQ(text.find("cgc_op.concat"), std::string::npos) << text;
  EXPECT_EQ(text.find("cgc_op.where"), std::string::npos) << text;
}

TEST_F(ImporterTest, DynamicDimensionWithoutAShapeNamesTheInput) {
  EXPECT_EQ(importError("error-dynamic-input"),
            "graph input 'images' has dynamic dimension 0 ('batch'); give its shape with "
            "--input-shape images=...");
}

TEST_F(ImporterTest, TypedDataShorterThanItsShapeIsAnErrorNotAnAllocation) {
  EXPECT_EQ(importError("error-short-typed-data"),
            "initializer 'huge': int64_data holds 1 values, but its shape has 68719476736 "
            "elements");
}

TEST_F(ImporterTest, InputShapeForAnUnknownInputIsAnError) {
  ImportOptions options;
  options.inputShapes["image"] = {1, 3};
  EXPECT_EQ(importError("relu", options),
            "--input-shape names 'image', which is not a graph input (inputs: x)");
}

TEST_F(ImporterTest, InputShapeMustMatchStaticDimensions) {
  ImportOptions options;
  options.inputShapes["x"] = {2, 4};
  EXPECT_EQ(importError("relu", options),
            "graph input 'x' has dimension 1 = 3, but --input-shape gives 2x4");
}

TEST_F(ImporterTest, CorruptAndTruncatedBytesAreErrors) {
  std::string bytes;
  ASSERT_TRUE(getTestModels().at("mini-resnet")((directory / "m.onnx").string()));
  {
    std::ifstream file(directory / "m.onnx", std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(file), {});
  }
  ASSERT_GT(bytes.size(), 100u);
  for (size_t length : {bytes.size() / 2, bytes.size() - 1}) {
    llvm::Expected<ImportedModel> model = importONNXBytes(
        llvm::ArrayRef(reinterpret_cast<const uint8_t *>(bytes.data()), length), "cut.onnx", "",
        context, {});
    ASSERT_FALSE(static_cast<bool>(model)) << "length " << length;
    std::string message = llvm::toString(model.takeError());
    EXPECT_EQ(message.rfind("cut.onnx: ", 0), 0u) << message;
  }
  const uint8_t garbage[] = {0xff, 0xff, 0xff, 0xff, 0x0f, 0x01};
  llvm::Expected<ImportedModel> model = importONNXBytes(garbage, "garbage.onnx", "", context, {});
  ASSERT_FALSE(static_cast<bool>(model));
  EXPECT_EQ(llvm::toString(model.takeError()),
            "garbage.onnx: not a valid ONNX model (the protobuf is truncated or corrupt)");
}

TEST_F(ImporterTest, ExternalDataNeedsADirectory) {
  std::string path = writeModel("external-data");
  std::ifstream file(path, std::ios::binary);
  std::string bytes(std::istreambuf_iterator<char>(file), {});
  llvm::Expected<ImportedModel> model = importONNXBytes(
      llvm::ArrayRef(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()), "memory", "",
      context, {});
  ASSERT_FALSE(static_cast<bool>(model));
  EXPECT_EQ(llvm::toString(model.takeError()),
            "initializer 'w': its data is in the external file 'external.bin', but the model "
            "was not read from a file");
}

TEST_F(ImporterTest, ReadsExternalDataAtItsOffset) {
  llvm::Expected<ImportedModel> model = importModel("external-data");
  ASSERT_TRUE(static_cast<bool>(model)) << llvm::toString(model.takeError());
  const cgc::runtime::SharedTensor &w = model->weights.at("w");
  ASSERT_EQ(w.numElements(), 4u);
  EXPECT_EQ((std::vector<float>(w.as<float>().begin(), w.as<float>().end())),
            (std::vector<float>{1, 2, 3, 4}));
}

TEST_F(ImporterTest, WritesIRAndSafetensorsBesideIt) {
  llvm::Expected<ImportedModel> model = importModel("mobilenet-block");
  ASSERT_TRUE(static_cast<bool>(model)) << llvm::toString(model.takeError());
  std::string irPath = (directory / "block.mlir").string();
  ASSERT_FALSE(static_cast<bool>(model->write(irPath, EmitFormat::Text)));
  EXPECT_TRUE(fs::exists(irPath));
  EXPECT_EQ(getWeightsPathFor(irPath), (directory / "block.safetensors").string());
  cgc::runtime::Result<cgc::runtime::Weights> weights =
      cgc::runtime::Weights::read(getWeightsPathFor(irPath));
  ASSERT_TRUE(weights.ok()) << weights.error().message;
  // Clip's bounds became attributes: only the three convolutions' tensors remain.
  EXPECT_EQ(weights->getTensors().size(), 4u);
  EXPECT_NE(weights->find("depthwise.weight"), nullptr);
  EXPECT_EQ(weights->find("relu6.max"), nullptr);
}

TEST_F(ImporterTest, ParsesInputShapeOptions) {
  ImportOptions options;
  EXPECT_FALSE(static_cast<bool>(parseInputShapeOption("input.1=1x3x224x224", options)));
  EXPECT_EQ(options.inputShapes.at("input.1"), (std::vector<int64_t>{1, 3, 224, 224}));
  EXPECT_FALSE(static_cast<bool>(parseInputShapeOption("scale=scalar", options)));
  EXPECT_TRUE(options.inputShapes.at("scale").empty());
  EXPECT_EQ(llvm::toString(parseInputShapeOption("x=1x-3", options)),
            "--input-shape 'x=1x-3': '-3' is not a non-negative dimension");
  EXPECT_EQ(llvm::toString(parseInputShapeOption("nodims", options)),
            "--input-shape 'nodims': expected NAME=DIMS, e.g. input=1x3x224x224");
  EXPECT_EQ(llvm::toString(parseInputShapeOption("scale=2", options)),
            "--input-shape 'scale=2': 'scale' is given twice");
}

/// ((i * 7) % 11 - 5) / 10, what ModelBuilder::weight stores.
float weightValue(int64_t i) { return static_cast<float>((i * 7) % 11 - 5) / 10.0f; }

/// A 1x128 input times a 128x256 weight (128 KiB, above kMinSplitBytes) plus
/// a 256-float bias (below it).
ModelBuilder makeLargeWeightModel() {
  ModelBuilder model("large", 13);
  model.input("x", kFloat, {1, 128});
  model.weight("w", {128, 256});
  model.weight("b", {256});
  model.node("MatMul", {"x", "w"}, {"xw"});
  model.node("Add", {"xw", "b"}, {"y"});
  model.output("y", kFloat, {1, 256});
  return model;
}

void expectWeightValues(const cgc::runtime::SharedTensor &tensor, int64_t count) {
  ASSERT_EQ(tensor.numElements(), static_cast<uint64_t>(count));
  for (int64_t i = 0; i < count; ++i)
    ASSERT_EQ(tensor.as<float>()[i], weightValue(i)) << i;
}

TEST_F(ImporterTest, LargeInitializersAreSharedWithTheFileAndCopiedFromBytes) {
  ModelBuilder builder = makeLargeWeightModel();
  std::string path = (directory / "large.onnx").string();
  std::string bytes = builder.serialize();
  std::ofstream(path, std::ios::binary) << bytes;
  {
    llvm::Expected<ImportedModel> model = importONNXFile(path, context, {});
    ASSERT_TRUE(static_cast<bool>(model)) << llvm::toString(model.takeError());
    expectWeightValues(model->weights.at("w"), 128 * 256);
    expectWeightValues(model->weights.at("b"), 256);
    // The weight keeps the file's bytes alive; the small bias owns a copy.
    EXPECT_NE(model->weights.at("w").owner, nullptr);
    EXPECT_NE(model->weights.at("b").owner, nullptr);
    // Written out from the shared bytes, even over the file they are mapped
    // from (which is replaced, not truncated under them).
    ASSERT_FALSE(static_cast<bool>(model->writeWeights(path)));
    expectWeightValues(model->weights.at("w"), 128 * 256);
    cgc::runtime::Result<cgc::runtime::Weights> written = cgc::runtime::Weights::read(path);
    ASSERT_TRUE(written.ok()) << written.error().message;
    std::span<const std::byte> data = written->getData(*written->find("w"));
    ASSERT_EQ(data.size(), 128u * 256 * 4);
    EXPECT_EQ(std::memcmp(data.data(), model->weights.at("w").data.data(), data.size()), 0);
  }
  // From the caller's bytes, the weights must outlive them.
  std::vector<uint8_t> buffer(bytes.begin(), bytes.end());
  llvm::Expected<ImportedModel> model = importONNXBytes(buffer, "large.onnx", "", context, {});
  ASSERT_TRUE(static_cast<bool>(model)) << llvm::toString(model.takeError());
  std::fill(buffer.begin(), buffer.end(), 0xff);
  buffer.clear();
  buffer.shrink_to_fit();
  expectWeightValues(model->weights.at("w"), 128 * 256);
  expectWeightValues(model->weights.at("b"), 256);
}

TEST_F(ImporterTest, LargeWeightsSurviveONNXsVersionConverter) {
  // Opset 6's legacy broadcast of a large per-channel bias: ONNX's converter
  // rewrites the whole model, so the bias's raw_data, cut out when the model
  // was parsed, goes back into it first.
  ModelBuilder builder("legacy", 6);
  builder.input("x", kFloat, {1, 20000, 2, 1});
  builder.weight("bias", {20000});
  onnx::NodeProto &add = builder.node("Add", {"x", "bias"}, {"y"});
  setInt(add, "broadcast", 1);
  setInt(add, "axis", 1);
  builder.output("y", kFloat, {1, 20000, 2, 1});
  std::string path = (directory / "legacy.onnx").string();
  std::ofstream(path, std::ios::binary) << builder.serialize();
  llvm::Expected<ImportedModel> model = importONNXFile(path, context, {});
  ASSERT_TRUE(static_cast<bool>(model)) << llvm::toString(model.takeError());
  const cgc::runtime::SharedTensor &bias = model->weights.at("bias");
  EXPECT_EQ(bias.shape, (std::vector<int64_t>{20000, 1, 1}));
  expectWeightValues(bias, 20000);
}

/// A length-delimited field `number` holding `content`, in wire format.
std::string lengthDelimited(uint32_t number, const std::string &content) {
  std::string out;
  auto varint = [&](uint64_t value) {
    for (; value >= 0x80; value >>= 7)
      out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    out.push_back(static_cast<char>(value));
  };
  varint(uint64_t(number) << 3 | 2);
  varint(content.size());
  return out + content;
}

/// Where `part` lies in `whole`, or -1 when it does not point into it.
int64_t offsetIn(llvm::ArrayRef<uint8_t> part, const std::string &whole) {
  const auto *begin = reinterpret_cast<const uint8_t *>(whole.data());
  if (part.data() < begin || part.data() + part.size() > begin + whole.size())
    return -1;
  return part.data() - begin;
}

TEST(SplitModelTest, CutsLargeRawDataAndKeepsTheRest) {
  ModelBuilder builder = makeLargeWeightModel();
  // float_data is left alone, however large.
  onnx::TensorProto *typed = builder.getGraph().add_initializer();
  typed->set_name("typed");
  typed->set_data_type(kFloat);
  typed->add_dims(20000);
  for (int i = 0; i < 20000; ++i)
    typed->add_float_data(1.0f);
  std::string bytes = builder.serialize();
  std::optional<SplitModel> split = splitModel(
      llvm::ArrayRef(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
  ASSERT_TRUE(split);
  ASSERT_EQ(split->rawData.size(), 3u);
  ASSERT_TRUE(split->rawData[0]);
  EXPECT_FALSE(split->rawData[1]);
  EXPECT_FALSE(split->rawData[2]);
  const std::string &raw = builder.getGraph().initializer(0).raw_data();
  EXPECT_EQ(offsetIn(*split->rawData[0], bytes), static_cast<int64_t>(bytes.find(raw)));
  // The remainder is the model without that raw_data, nothing else.
  onnx::ModelProto remainder, expected = builder.getModel();
  ASSERT_TRUE(remainder.ParseFromString(split->remainder));
  expected.mutable_graph()->mutable_initializer(0)->clear_raw_data();
  EXPECT_EQ(remainder.SerializeAsString(), expected.SerializeAsString());
  EXPECT_LT(split->remainder.size(), bytes.size() - raw.size() + 16);
}

TEST(SplitModelTest, FollowsProtobufsMergingRules) {
  std::string large(kMinSplitBytes, 'a'), last(kMinSplitBytes + 8, 'b');
  onnx::TensorProto first;
  first.set_name("t");
  first.set_data_type(onnx::TensorProto_DataType_UINT8);
  first.add_dims(static_cast<int64_t>(large.size()));
  first.set_raw_data(large);
  onnx::TensorProto second;
  second.set_raw_data(last);
  // One initializer whose raw_data is given twice (the last counts), in a
  // graph given twice (merged: the second's initializers follow), after an
  // unrelated field.
  std::string tensor = first.SerializeAsString() + second.SerializeAsString();
  onnx::TensorProto small;
  small.set_name("s");
  small.set_raw_data("tiny");
  std::string graphA = lengthDelimited(5, tensor);
  std::string graphB = lengthDelimited(5, small.SerializeAsString()) + lengthDelimited(5, tensor);
  std::string model = lengthDelimited(2, "producer") + lengthDelimited(7, graphA) +
                      lengthDelimited(7, graphB);
  std::optional<SplitModel> split = splitModel(
      llvm::ArrayRef(reinterpret_cast<const uint8_t *>(model.data()), model.size()));
  ASSERT_TRUE(split);
  onnx::ModelProto original, remainder;
  ASSERT_TRUE(original.ParseFromString(model));
  ASSERT_TRUE(remainder.ParseFromString(split->remainder));
  ASSERT_EQ(remainder.graph().initializer_size(), 3);
  ASSERT_EQ(split->rawData.size(), 3u);
  EXPECT_EQ(remainder.producer_name(), "producer");
  for (int i = 0; i < 3; ++i) {
    const onnx::TensorProto &expected = original.graph().initializer(i);
    const onnx::TensorProto &cut = remainder.graph().initializer(i);
    EXPECT_EQ(cut.name(), expected.name());
    if (!split->rawData[i]) {
      EXPECT_EQ(cut.raw_data(), expected.raw_data());
      continue;
    }
    EXPECT_FALSE(cut.has_raw_data());
    llvm::ArrayRef<uint8_t> data = *split->rawData[i];
    EXPECT_EQ(std::string(data.begin(), data.end()), expected.raw_data());
    EXPECT_EQ(expected.raw_data(), last);
  }
  EXPECT_FALSE(split->rawData[1]);
}

TEST(SplitModelTest, LeavesMalformedAndSmallModelsToProtobuf) {
  std::string large(kMinSplitBytes, 'a');
  onnx::TensorProto tensor;
  tensor.set_raw_data(large);
  std::string model = lengthDelimited(7, lengthDelimited(5, tensor.SerializeAsString()));
  auto split = [](const std::string &bytes) {
    return splitModel(
        llvm::ArrayRef(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
  };
  EXPECT_TRUE(split(model));
  for (size_t cut : {size_t(1), size_t(3), size_t(100), model.size() - 1})
    EXPECT_FALSE(split(model.substr(0, cut))) << cut;
  EXPECT_FALSE(split(model + "\x0b")); // a group's start tag
  EXPECT_FALSE(split(std::string("\x00", 1) + model)); // field number 0
  tensor.set_raw_data(std::string(kMinSplitBytes - 1, 'a'));
  EXPECT_FALSE(split(lengthDelimited(7, lengthDelimited(5, tensor.SerializeAsString()))));
}

} // namespace
