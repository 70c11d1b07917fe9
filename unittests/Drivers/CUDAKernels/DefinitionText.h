//===- DefinitionText.h - functional definitions written out for tests -*- C++ -*-===//
//
// The fused kernel tests give definitions as MLIR text (FusedTestSupport.h).
// These helpers write one out of its arguments, layers and results, each
// layer with its operand and result types spelled out, so that a case reads
// as the layers it chains.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_UNITTESTS_DRIVERS_CUDAKERNELS_DEFINITIONTEXT_H
#define CGC_UNITTESTS_DRIVERS_CUDAKERNELS_DEFINITIONTEXT_H

#include <string>
#include <utility>
#include <vector>

namespace cgc::cuda::test {

/// A value of a definition: its SSA name (with `%`) and its type.
struct TypedValue {
  std::string name;
  std::string type;
};

/// `cgc.functional_definition private @<name>(<arguments>) -> <results>`,
/// built a layer at a time.
class DefinitionText {
public:
  DefinitionText(std::string name, std::vector<TypedValue> arguments)
      : name(std::move(name)), arguments(std::move(arguments)) {}

  /// Appends `%<result> = <op>(<operands>) <attributes> : (...) -> <type>`
  /// and returns the result.
  TypedValue layer(const std::string &result, const std::string &op,
                   const std::vector<TypedValue> &operands, const std::string &type,
                   const std::string &attributes = "") {
    std::string line = "    " + result + " = " + op + "(";
    std::string types;
    for (size_t index = 0; index < operands.size(); ++index) {
      line += (index ? ", " : "") + operands[index].name;
      types += (index ? ", " : "") + operands[index].type;
    }
    line += ")" + (attributes.empty() ? std::string() : " " + attributes) + " : (" + types +
            ") -> " + type + "\n";
    body += line;
    return {result, type};
  }

  /// The whole definition, returning `results`.
  std::string str(const std::vector<TypedValue> &results) const {
    std::string text = "    cgc.functional_definition private @" + name + "(";
    for (size_t index = 0; index < arguments.size(); ++index)
      text += (index ? ", " : "") + arguments[index].name + ": " + arguments[index].type;
    std::string names, types;
    for (size_t index = 0; index < results.size(); ++index) {
      names += (index ? ", " : "") + results[index].name;
      types += (index ? ", " : "") + results[index].type;
    }
    text += ") -> " + (results.size() == 1 ? types : "(" + types + ")") + " {\n" + body +
            "    cgc.return " + names + " : " + types + "\n    }";
    return text;
  }

private:
  std::string name;
  std::vector<TypedValue> arguments;
  std::string body;
};

} // namespace cgc::cuda::test

#endif // CGC_UNITTESTS_DRIVERS_CUDAKERNELS_DEFINITIONTEXT_H
