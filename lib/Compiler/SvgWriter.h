//===- SvgWriter.h - a small writer of SVG documents ------------*- C++ -*-===//
//
// Just what the compiler's pictures need: elements with escaped attributes
// and text, one per line and indented by nesting, and numbers printed with
// one decimal at most, so that a picture's bytes depend only on what it
// shows. Text widths are estimated (no font metrics) and long labels are
// shortened to fit.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_LIB_COMPILER_SVGWRITER_H
#define CGC_LIB_COMPILER_SVGWRITER_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace cgc::compiler::svg {

/// One attribute of an element: its name and its value, unescaped.
struct Attribute {
  llvm::StringRef name;
  std::string value;
};

/// `value` rounded to one decimal, without a trailing ".0" ("12", "-3.5").
std::string formatNumber(double value);

/// `text` with XML's special characters escaped; bytes that are not valid
/// UTF-8 or not allowed in XML 1.0 become '?'.
std::string escape(llvm::StringRef text);

/// The width, in user units, that `text` takes at `fontSize` (an estimate
/// that errs on the wide side for proportional sans-serif fonts).
double estimateTextWidth(llvm::StringRef text, double fontSize);

/// `text`, or its start followed by "…" so that it fits `width` at
/// `fontSize`; empty when not even one character and the ellipsis fit.
std::string fitText(llvm::StringRef text, double width, double fontSize);

/// Writes one SVG document: `begin`, elements, `end`.
class Writer {
public:
  explicit Writer(llvm::raw_ostream &os) : os(os) {}

  /// The XML declaration, the <svg> element of the given size, its <title>
  /// and a <style> sheet.
  void begin(double width, double height, llvm::StringRef title, llvm::StringRef style);
  /// Closes every open element and the document.
  void end();

  /// Opens an element that will hold others (close it with `close`).
  void open(llvm::StringRef tag, llvm::ArrayRef<Attribute> attributes = {});
  void close();
  /// An empty element.
  void element(llvm::StringRef tag, llvm::ArrayRef<Attribute> attributes);
  /// An element holding only `text`.
  void textElement(llvm::StringRef tag, llvm::ArrayRef<Attribute> attributes, llvm::StringRef text);

  void rect(double x, double y, double width, double height, llvm::ArrayRef<Attribute> attributes);
  void line(double x1, double y1, double x2, double y2, llvm::ArrayRef<Attribute> attributes);
  void text(double x, double y, llvm::StringRef text, llvm::ArrayRef<Attribute> attributes);
  /// A <title> (a tooltip in viewers) for the enclosing element.
  void title(llvm::StringRef text);

private:
  void indent();
  void writeStart(llvm::StringRef tag, llvm::ArrayRef<Attribute> attributes);

  llvm::raw_ostream &os;
  llvm::SmallVector<std::string> openTags;
};

} // namespace cgc::compiler::svg

#endif // CGC_LIB_COMPILER_SVGWRITER_H
