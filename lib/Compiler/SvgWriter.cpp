//===- SvgWriter.cpp - a small writer of SVG documents --------------------===//

#include "SvgWriter.h"

#include "llvm/Support/ConvertUTF.h"

#include <cmath>

namespace cgc::compiler::svg {

namespace {

/// The number of bytes of the UTF-8 sequence starting at `text[index]` when
/// it is valid and allowed in XML 1.0 text, else 0.
unsigned getValidSequenceLength(llvm::StringRef text, size_t index) {
  auto byte = static_cast<unsigned char>(text[index]);
  if (byte < 0x80)
    return byte >= 0x20 || byte == '\t' || byte == '\n' || byte == '\r' ? 1 : 0;
  unsigned length = llvm::getNumBytesForUTF8(byte);
  if (length < 2 || index + length > text.size())
    return 0;
  auto *begin = reinterpret_cast<const llvm::UTF8 *>(text.data() + index);
  return llvm::isLegalUTF8Sequence(begin, begin + length) ? length : 0;
}

/// The number of characters (code points) `text` shows, counting each
/// invalid byte as one.
size_t countCharacters(llvm::StringRef text) {
  size_t count = 0;
  for (size_t index = 0; index < text.size(); ++count)
    index += std::max(1u, getValidSequenceLength(text, index));
  return count;
}

} // namespace

std::string formatNumber(double value) {
  if (!std::isfinite(value))
    return "0";
  long long tenths = std::llround(value * 10);
  std::string result = tenths < 0 ? "-" : "";
  unsigned long long magnitude = tenths < 0 ? -static_cast<unsigned long long>(tenths) : tenths;
  result += std::to_string(magnitude / 10);
  if (magnitude % 10 != 0)
    result += "." + std::to_string(magnitude % 10);
  return result == "-0" ? "0" : result;
}

std::string escape(llvm::StringRef text) {
  std::string result;
  result.reserve(text.size());
  for (size_t index = 0; index < text.size();) {
    unsigned length = getValidSequenceLength(text, index);
    if (length == 0) {
      result += '?';
      ++index;
      continue;
    }
    if (length > 1) {
      result.append(text.data() + index, length);
      index += length;
      continue;
    }
    switch (char c = text[index++]) {
    case '&':
      result += "&amp;";
      break;
    case '<':
      result += "&lt;";
      break;
    case '>':
      result += "&gt;";
      break;
    case '"':
      result += "&quot;";
      break;
    case '\'':
      result += "&apos;";
      break;
    default:
      result += c;
    }
  }
  return result;
}

double estimateTextWidth(llvm::StringRef text, double fontSize) {
  return countCharacters(text) * fontSize * 0.6;
}

std::string fitText(llvm::StringRef text, double width, double fontSize) {
  if (estimateTextWidth(text, fontSize) <= width)
    return text.str();
  // Keep whole characters, then the ellipsis.
  double characterWidth = fontSize * 0.6;
  long keep = static_cast<long>(width / characterWidth) - 1;
  if (keep <= 0)
    return "";
  size_t end = 0;
  for (long kept = 0; kept < keep && end < text.size(); ++kept)
    end += std::max(1u, getValidSequenceLength(text, end));
  return text.substr(0, end).str() + "\u2026";
}

void Writer::begin(double width, double height, llvm::StringRef title, llvm::StringRef style) {
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  writeStart("svg", {{"xmlns", "http://www.w3.org/2000/svg"},
                     {"width", formatNumber(width)},
                     {"height", formatNumber(height)},
                     {"viewBox", "0 0 " + formatNumber(width) + " " + formatNumber(height)}});
  os << ">\n";
  openTags.push_back("svg");
  this->title(title);
  indent();
  os << "<style>" << escape(style) << "</style>\n";
}

void Writer::end() {
  while (!openTags.empty())
    close();
}

void Writer::indent() {
  for (size_t depth = 0; depth < openTags.size(); ++depth)
    os << ' ';
}

void Writer::writeStart(llvm::StringRef tag, llvm::ArrayRef<Attribute> attributes) {
  os << '<' << tag;
  for (const Attribute &attribute : attributes)
    os << ' ' << attribute.name << "=\"" << escape(attribute.value) << '"';
}

void Writer::open(llvm::StringRef tag, llvm::ArrayRef<Attribute> attributes) {
  indent();
  writeStart(tag, attributes);
  os << ">\n";
  openTags.push_back(tag.str());
}

void Writer::close() {
  std::string tag = openTags.pop_back_val();
  indent();
  os << "</" << tag << ">\n";
}

void Writer::element(llvm::StringRef tag, llvm::ArrayRef<Attribute> attributes) {
  indent();
  writeStart(tag, attributes);
  os << "/>\n";
}

void Writer::textElement(llvm::StringRef tag, llvm::ArrayRef<Attribute> attributes,
                         llvm::StringRef text) {
  indent();
  writeStart(tag, attributes);
  os << '>' << escape(text) << "</" << tag << ">\n";
}

void Writer::rect(double x, double y, double width, double height,
                  llvm::ArrayRef<Attribute> attributes) {
  llvm::SmallVector<Attribute, 8> all(attributes);
  all.insert(all.begin(), {{"x", formatNumber(x)},
                           {"y", formatNumber(y)},
                           {"width", formatNumber(width)},
                           {"height", formatNumber(height)}});
  element("rect", all);
}

void Writer::line(double x1, double y1, double x2, double y2,
                  llvm::ArrayRef<Attribute> attributes) {
  llvm::SmallVector<Attribute, 8> all(attributes);
  all.insert(all.begin(), {{"x1", formatNumber(x1)},
                           {"y1", formatNumber(y1)},
                           {"x2", formatNumber(x2)},
                           {"y2", formatNumber(y2)}});
  element("line", all);
}

void Writer::text(double x, double y, llvm::StringRef text, llvm::ArrayRef<Attribute> attributes) {
  llvm::SmallVector<Attribute, 8> all(attributes);
  all.insert(all.begin(), {{"x", formatNumber(x)}, {"y", formatNumber(y)}});
  textElement("text", all, text);
}

void Writer::title(llvm::StringRef text) { textElement("title", {}, text); }

} // namespace cgc::compiler::svg
