//===- DrawMemory.cpp - the scratch memory plan as a chart ----------------===//
//
// The spec's memory table (spec 000, "Memory planning") as a chart: scratch
// offset grows upward, execution steps (subgraph invocations in program
// order) run to the right. Each scratch value is a rectangle at its offset,
// as tall as its size, from the middle of its producer's step to the middle
// of its last reader's, so that reuse shows as rectangles stacked at one
// offset at different times, and a value written in place starts where the
// operand it overwrites ends. Inputs placed in scratch live from a column
// before the first step (the copy in). Lines mark the buffer's size and the
// plan's lower bound (the peak of bytes live at one step).
//
// Lifetimes come from the same liveness as memory planning
// (`collectStepsPerValue` over `collectProgramAccesses`), in the program's
// final order.
//
//===----------------------------------------------------------------------===//

#include "cgc/Compiler/Draw.h"

#include "DrawSupport.h"
#include "SvgWriter.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <cmath>

using namespace mlir;

namespace cgc::compiler {

namespace {

using svg::formatNumber;

constexpr double kMargin = 20;
constexpr double kChartLeft = 96;
constexpr double kLegendTop = 62;
/// Below the legend's two rows at most and the partitions' names.
constexpr double kChartTop = 124;
/// The least width: the legend's items fit two rows.
constexpr double kMinWidth = 760;
constexpr double kRightMargin = 190;
constexpr double kFontSize = 10;
/// The width the steps share, and the limits of one step's width.
constexpr double kStepsWidth = 1100;
constexpr double kMinStepWidth = 3;
constexpr double kMaxStepWidth = 160;

constexpr llvm::StringLiteral kStyle = R"(
text { font-family: Helvetica, Arial, sans-serif; font-size: 10px; fill: #1a1a1a; }
.title { font-size: 16px; font-weight: bold; }
.subtitle { font-size: 12px; fill: #444444; }
.axis { stroke: #333333; stroke-width: 1; }
.grid { stroke: #e2e2e2; stroke-width: 1; }
.axis-label { font-size: 11px; fill: #333333; }
.band-label { font-size: 10px; fill: #555555; }
.value-label { font-size: 10px; fill: #1a1a1a; }
.buffer-size { stroke: #222222; stroke-width: 1.6; }
.lower-bound { stroke: #c0392b; stroke-width: 1.6; stroke-dasharray: 7 4; }
.line-label { font-size: 11px; }
.in-place-marker { stroke: #1a1a1a; stroke-width: 2; }
.legend-text { font-size: 10.5px; }
)";

/// Fills for values, in order of production; none is yellow, an input's.
constexpr const char *kValueColors[] = {"#8ecae6", "#b5e48c", "#ffc8dd", "#cdb4db",
                                        "#ffd6a5", "#a0c4ff", "#caffbf", "#f4acb7"};
constexpr const char *kInputColor = "#ffff66";

/// One value placed in scratch.
struct ScratchValue {
  Value value;
  uint64_t offset = 0, size = 0;
  /// Steps; -1 for an input (copied in before step 0).
  int first = 0, last = 0;
  bool input = false;
  /// The value it was written over (in place), an index in `values`.
  std::optional<unsigned> inPlaceOf;
  /// The first step touching it: its producer, unless it is an input.
  unsigned producer = 0;
};

class MemoryChart {
public:
  MemoryChart(ModuleOp module, ProgramAccesses &accesses)
      : accesses(accesses), arguments(draw::classifyArguments(accesses)), names(module, arguments) {
  }

  void build();
  void write(llvm::raw_ostream &os);

private:
  double getX(double step) const { return kChartLeft + (step + firstColumn) * stepWidth; }
  double getY(uint64_t bytes) const { return chartBottom - bytes * bytesScale; }
  uint64_t getPlanNumber(llvm::StringRef key) const;
  std::string describe(const ScratchValue &value);

  void writeDefinitions(svg::Writer &writer);
  void writeAxes(svg::Writer &writer);
  void writeBands(svg::Writer &writer);
  void writeValues(svg::Writer &writer);
  void writeLines(svg::Writer &writer);
  void writeLegend(svg::Writer &writer);

  ProgramAccesses &accesses;
  SmallVector<draw::ProgramArgument> arguments;
  draw::ValueNames names;
  SmallVector<ScratchValue> values;
  DictionaryAttr plan;
  uint64_t scratchBytes = 0;
  /// The bytes the chart's height shows.
  uint64_t chartBytes = 1;
  unsigned numSteps = 0;
  /// 1 when inputs live in scratch: a column for their copy.
  unsigned firstColumn = 0;
  double stepWidth = 0, bytesScale = 0, chartBottom = 0, chartRight = 0;
  double width = 0, height = 0;
  bool namesUnderSteps = false;
  std::string subtitle;
};

uint64_t MemoryChart::getPlanNumber(llvm::StringRef key) const {
  if (!plan)
    return 0;
  auto number = plan.getAs<IntegerAttr>(key);
  return number && number.getInt() > 0 ? number.getInt() : 0;
}

void MemoryChart::build() {
  ProgramOp program = accesses.program;
  plan = program->getAttrOfType<DictionaryAttr>(kMemoryPlanAttr);
  numSteps = accesses.steps.size();
  if (BlockArgument scratch = accesses.scratch) {
    scratchBytes = cast<MemRefType>(scratch.getType()).getByteSize();
    unsigned scratchBuffer = scratch.getArgNumber();
    llvm::DenseMap<Value, unsigned> indexOf;
    for (const auto &[value, touching] : collectStepsPerValue(accesses)) {
      // Its range: from the first access (any access knows the base).
      const Access *found = nullptr;
      for (const Access &access : accesses.steps[touching.front()].operands)
        if (access.value == value)
          found = &access;
      if (!found || found->buffer != scratchBuffer)
        continue;
      ScratchValue &entry = values.emplace_back();
      entry.value = value;
      entry.offset = found->offset - found->offsetInValue;
      entry.size = cast<MemRefType>(value.getType()).getByteSize();
      entry.input = isa<BlockArgument>(value);
      entry.first = entry.input ? -1 : static_cast<int>(touching.front());
      entry.last = touching.back();
      entry.producer = touching.front();
      indexOf[value] = values.size() - 1;
    }
    // In place: a step writing a value over bytes of one it reads.
    for (const SubgraphStep &step : accesses.steps)
      for (const Access &written : step.operands) {
        if (!written.written || !indexOf.count(written.value))
          continue;
        for (const Access &read : step.operands)
          if (!read.written && read.value != written.value && indexOf.count(read.value) &&
              read.overlaps(written))
            values[indexOf[written.value]].inPlaceOf = indexOf[read.value];
      }
  }
  firstColumn = llvm::any_of(values, [](const ScratchValue &value) { return value.input; });
  unsigned numColumns = std::max(1u, numSteps + firstColumn);
  stepWidth = std::clamp(kStepsWidth / numColumns, kMinStepWidth, kMaxStepWidth);
  namesUnderSteps = stepWidth >= 12;
  double chartHeight = values.size() > 60 ? 600 : 420;
  chartBottom = kChartTop + chartHeight;
  // The top of the chart: the buffer (a lower bound above it would be a
  // broken plan, but is drawn all the same).
  chartBytes = std::max({scratchBytes, getPlanNumber("lower_bound_bytes"), uint64_t(1)});
  bytesScale = chartHeight / chartBytes;
  chartRight = kChartLeft + numColumns * stepWidth;
  unsigned numInPlace = llvm::count_if(values, [](const ScratchValue &v) { return v.inPlaceOf; });
  unsigned numInputs = llvm::count_if(values, [](const ScratchValue &v) { return v.input; });
  subtitle = "buffer " + draw::formatBytes(scratchBytes);
  if (plan) {
    uint64_t lowerBound = getPlanNumber("lower_bound_bytes");
    std::string ratio;
    if (lowerBound != 0) {
      llvm::raw_string_ostream ratioStream(ratio);
      ratioStream << llvm::format("%.3f", static_cast<double>(scratchBytes) / lowerBound);
    }
    subtitle += ", lower bound " + draw::formatBytes(lowerBound) +
                (ratio.empty() ? "" : " (" + ratio + "x)") + ", naive " +
                draw::formatBytes(getPlanNumber("naive_bytes"));
  } else {
    subtitle += "; not planned (no cgc.memory_plan): the partitioner's one slot per value";
  }
  subtitle += "; " + draw::formatCount(values.size(), "value", "values") + " (" +
              std::to_string(numInPlace) + " in place, " +
              draw::formatCount(numInputs, "input", "inputs") + " in scratch) over " +
              draw::formatCount(numSteps, "step", "steps");
  width = std::max(
      {chartRight + kRightMargin, kMinWidth, svg::estimateTextWidth(subtitle, 12) + 2 * kMargin});
  height = chartBottom + (namesUnderSteps ? 170 : 56) + kMargin;
}

std::string MemoryChart::describe(const ScratchValue &value) {
  std::string text = names.getLabel(value.value);
  if (value.input)
    text += " (input placed in scratch)";
  text += ": bytes [" + std::to_string(value.offset) + ", " +
          std::to_string(value.offset + value.size) + ") = " + draw::formatBytes(value.size);
  if (value.input)
    text += "; copied in before step 0";
  else
    text += "; written by step " + std::to_string(value.producer) + " (@" +
            accesses.steps[value.producer].subgraph.getName().str() + ")";
  text += ", last used by step " + std::to_string(value.last) + " (@" +
          accesses.steps[value.last].subgraph.getName().str() + ")";
  if (value.inPlaceOf)
    text += "; in place over " + names.getLabel(values[*value.inPlaceOf].value);
  return text;
}

void MemoryChart::writeBands(svg::Writer &writer) {
  writer.open("g", {{"class", "partition-bands"}});
  if (firstColumn) {
    writer.rect(getX(-1), kChartTop, stepWidth, chartBottom - kChartTop,
                {{"class", "inputs-band"}, {"fill", "#fffbe0"}});
    if (stepWidth >= 14)
      writer.text(getX(-0.5), kChartTop - 6, "in",
                  {{"class", "band-label"}, {"text-anchor", "middle"}});
  }
  unsigned step = 0;
  for (auto [index, invocation] : llvm::enumerate(accesses.invocations)) {
    unsigned begin = step;
    while (step < numSteps && accesses.steps[step].invocation == index)
      ++step;
    if (step == begin)
      continue;
    double x = getX(begin), bandWidth = (step - begin) * stepWidth;
    std::string name = invocation.partition.getName().str();
    writer.open("g", {{"class", "partition-band"},
                      {"data-partition", name},
                      {"data-invocation", std::to_string(index)},
                      {"data-first-step", std::to_string(begin)},
                      {"data-last-step", std::to_string(step - 1)}});
    writer.title("@" + name + " (program invocation #" + std::to_string(index) + "): steps " +
                 std::to_string(begin) + " to " + std::to_string(step - 1));
    // Alternating shades where bands are wide enough to tell apart.
    bool shaded = index % 2 == 0 && stepWidth * numSteps >= 8.0 * accesses.invocations.size();
    writer.rect(x, kChartTop, bandWidth, chartBottom - kChartTop,
                {{"fill", shaded ? "#eef2f7" : "#ffffff"}});
    std::string label = svg::fitText("@" + name, bandWidth - 4, kFontSize);
    if (!label.empty())
      writer.text(x + 2, kChartTop - 6, label, {{"class", "band-label"}});
    writer.close();
  }
  writer.close();
}

void MemoryChart::writeAxes(svg::Writer &writer) {
  writer.open("g", {{"class", "axes"}});
  // Offsets: ticks at a power of two of a binary unit, about six of them.
  uint64_t top = chartBytes;
  uint64_t unit = 1;
  const char *unitNames[] = {"B", "KiB", "MiB", "GiB"};
  unsigned unitIndex = 0;
  while (top / unit >= 1024 && unitIndex + 1 < std::size(unitNames)) {
    unit *= 1024;
    ++unitIndex;
  }
  double tick = std::exp2(std::ceil(std::log2(static_cast<double>(top) / unit / 6)));
  if (unitIndex == 0)
    tick = std::max(tick, 1.0);
  for (double mark = 0; mark * unit <= top + 0.5; mark += tick) {
    double y = getY(static_cast<uint64_t>(std::llround(mark * unit)));
    writer.line(kChartLeft, y, chartRight, y, {{"class", "grid"}});
    std::string label;
    if (mark == 0)
      label = "0";
    else
      llvm::raw_string_ostream(label) << llvm::format("%g", mark) << ' ' << unitNames[unitIndex];
    writer.text(kChartLeft - 6, y + 3, label, {{"text-anchor", "end"}});
  }
  writer.line(kChartLeft, kChartTop, kChartLeft, chartBottom, {{"class", "axis"}});
  writer.line(kChartLeft, chartBottom, chartRight, chartBottom, {{"class", "axis"}});
  writer.text(kMargin, (kChartTop + chartBottom) / 2, "scratch offset",
              {{"class", "axis-label"},
               {"text-anchor", "middle"},
               {"transform", "rotate(-90 " + formatNumber(kMargin + 4) + " " +
                                 formatNumber((kChartTop + chartBottom) / 2) + ")"}});
  // Steps: numbers where there is room, subgraph names under wide steps.
  unsigned every = 1;
  for (unsigned candidate : {1u, 2u, 5u, 10u, 20u, 50u, 100u, 200u, 500u, 1000u}) {
    every = candidate;
    if (candidate * stepWidth >= 26)
      break;
  }
  for (unsigned step = 0; step < numSteps; ++step) {
    double x = getX(step + 0.5);
    if (step % every == 0) {
      writer.line(x, chartBottom, x, chartBottom + 4, {{"class", "axis"}});
      writer.text(x, chartBottom + 15, std::to_string(step), {{"text-anchor", "middle"}});
    }
    if (namesUnderSteps) {
      std::string name =
          svg::fitText("@" + accesses.steps[step].subgraph.getName().str(), 150, kFontSize);
      writer.text(x + 3, chartBottom + 26, name,
                  {{"class", "step-name"},
                   {"text-anchor", "end"},
                   {"transform", "rotate(-45 " + formatNumber(x + 3) + " " +
                                     formatNumber(chartBottom + 26) + ")"}});
    }
  }
  writer.text((kChartLeft + chartRight) / 2, height - kMargin - 4,
              "execution step (subgraph invocations in program order)",
              {{"class", "axis-label"}, {"text-anchor", "middle"}});
  writer.close();
}

void MemoryChart::writeDefinitions(svg::Writer &writer) {
  writer.open("defs");
  writer.open("pattern", {{"id", "in-place-hatch"},
                          {"width", "6"},
                          {"height", "6"},
                          {"patternUnits", "userSpaceOnUse"},
                          {"patternTransform", "rotate(45)"}});
  writer.element("line", {{"x1", "0"},
                          {"y1", "0"},
                          {"x2", "0"},
                          {"y2", "6"},
                          {"stroke", "#555555"},
                          {"stroke-width", "1.2"}});
  writer.close();
  writer.close();
}

void MemoryChart::writeValues(svg::Writer &writer) {
  writer.open("g", {{"class", "scratch-values"}});
  for (auto [index, value] : llvm::enumerate(values)) {
    double start = value.first + 0.5;
    double end = value.last > value.first ? value.last + 0.5 : value.first + 1.0;
    double x = getX(start), rectWidth = std::max(1.0, getX(end) - x);
    double y = getY(value.offset + value.size);
    double rectHeight = std::max(1.0, value.size * bytesScale);
    std::string label = names.getLabel(value.value);
    std::string className = "value";
    if (value.input)
      className += " input";
    if (value.inPlaceOf)
      className += " in-place";
    writer.open("g", {{"class", "scratch-value"}});
    writer.title(describe(value));
    SmallVector<svg::Attribute, 12> attributes = {{"class", className},
                                                  {"data-value", label},
                                                  {"data-offset", std::to_string(value.offset)},
                                                  {"data-size", std::to_string(value.size)},
                                                  {"data-first", std::to_string(value.first)},
                                                  {"data-last", std::to_string(value.last)}};
    if (value.inPlaceOf)
      attributes.push_back({"data-in-place-of", names.getLabel(values[*value.inPlaceOf].value)});
    attributes.append(
        {{"fill", value.input ? kInputColor : kValueColors[index % std::size(kValueColors)]},
         {"stroke", "#3a3a3a"},
         {"stroke-width", rectHeight >= 3 && rectWidth >= 3 ? "0.8" : "0"}});
    writer.rect(x, y, rectWidth, rectHeight, attributes);
    if (value.inPlaceOf) {
      writer.rect(x, y, rectWidth, rectHeight,
                  {{"fill", "url(#in-place-hatch)"}, {"fill-opacity", "0.45"}});
      writer.line(x, y, x, y + rectHeight, {{"class", "in-place-marker"}});
    }
    // A label where it fits: name and size, else the name.
    if (rectHeight >= 12) {
      std::string text = label + " " + draw::formatBytes(value.size);
      if (svg::estimateTextWidth(text, kFontSize) > rectWidth - 6)
        text = label;
      if (svg::estimateTextWidth(text, kFontSize) <= rectWidth - 6)
        writer.text(x + 3, y + std::min(rectHeight / 2 + 3.5, 13.0), text,
                    {{"class", "value-label"}});
    }
    writer.close();
  }
  writer.close();
}

void MemoryChart::writeLines(svg::Writer &writer) {
  writer.open("g", {{"class", "plan-lines"}});
  double sizeY = getY(scratchBytes);
  writer.line(kChartLeft, sizeY, chartRight + 8, sizeY,
              {{"class", "buffer-size"}, {"data-bytes", std::to_string(scratchBytes)}});
  writer.text(chartRight + 12, sizeY + 4, "buffer " + draw::formatBytes(scratchBytes),
              {{"class", "line-label"}});
  if (plan) {
    uint64_t lowerBound = getPlanNumber("lower_bound_bytes");
    double boundY = getY(lowerBound);
    writer.line(kChartLeft, boundY, chartRight + 8, boundY,
                {{"class", "lower-bound"}, {"data-bytes", std::to_string(lowerBound)}});
    // Below the buffer's label when the two lines are close.
    double labelY = std::max(boundY + 4, sizeY + 18);
    writer.text(chartRight + 12, labelY, "lower bound " + draw::formatBytes(lowerBound),
                {{"class", "line-label"}, {"fill", "#c0392b"}});
  }
  writer.close();
}

void MemoryChart::writeLegend(svg::Writer &writer) {
  writer.open("g", {{"class", "legend"}});
  double x = kChartLeft, y = kLegendTop;
  auto item = [&](llvm::StringRef text, auto &&swatch) {
    double itemWidth = 28 + svg::estimateTextWidth(text, 10.5) + 18;
    if (x != kChartLeft && x + itemWidth > width - kMargin) {
      x = kChartLeft;
      y += 18;
    }
    swatch(x, y);
    writer.text(x + 28, y + 9, text, {{"class", "legend-text"}});
    x += itemWidth;
  };
  item("a value: producer to last reader", [&](double x, double y) {
    writer.rect(x, y, 22, 11, {{"fill", kValueColors[0]}, {"stroke", "#3a3a3a"}});
  });
  item("written in place", [&](double x, double y) {
    writer.rect(x, y, 22, 11, {{"fill", kValueColors[1]}, {"stroke", "#3a3a3a"}});
    writer.rect(x, y, 22, 11, {{"fill", "url(#in-place-hatch)"}, {"fill-opacity", "0.45"}});
    writer.line(x, y, x, y + 11, {{"class", "sample in-place-marker"}});
  });
  item("input placed in scratch", [&](double x, double y) {
    writer.rect(x, y, 22, 11, {{"fill", kInputColor}, {"stroke", "#3a3a3a"}});
  });
  item("buffer size", [&](double x, double y) {
    writer.line(x, y + 5.5, x + 22, y + 5.5, {{"class", "sample buffer-size"}});
  });
  item("lower bound (peak live bytes)", [&](double x, double y) {
    writer.line(x, y + 5.5, x + 22, y + 5.5, {{"class", "sample lower-bound"}});
  });
  writer.close();
}

void MemoryChart::write(llvm::raw_ostream &os) {
  svg::Writer writer(os);
  std::string programName = accesses.program.getName().str();
  writer.begin(width, height, "Scratch memory plan of cgc.program @" + programName, kStyle);
  writeDefinitions(writer);
  writer.rect(0, 0, width, height, {{"fill", "#ffffff"}});
  writer.text(kMargin, 28, "cgc.program @" + programName + ": scratch memory plan",
              {{"class", "title"}});
  writer.text(kMargin, 46, subtitle, {{"class", "subtitle"}});
  writeLegend(writer);
  writeBands(writer);
  writeAxes(writer);
  writeValues(writer);
  writeLines(writer);
  writer.end();
}

} // namespace

mlir::LogicalResult drawMemoryPlan(ModuleOp module, llvm::raw_ostream &os) {
  ProgramOp program = getOnlyProgram(module, "drawing the memory plan");
  if (!program)
    return failure();
  FailureOr<ProgramAccesses> accesses = collectProgramAccesses(module, program);
  if (failed(accesses))
    return failure();
  MemoryChart chart(module, *accesses);
  chart.build();
  chart.write(os);
  return success();
}

} // namespace cgc::compiler
