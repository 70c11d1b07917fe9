//===- DrawPartitions.cpp - Output IR as the spec's partition diagrams ----===//
//
// The spec draws Output IR as its program's arguments and constants above
// boxes of partitions that hold the subgraph invocations, with bindings as
// solid arrows and the dependencies between partitions dotted. This picture
// draws the same, with the subgraph invocations (the steps of memory
// planning) connected by their dataflow and the scheduler's `cgc.depends_on`
// barriers between partition invocations.
//
// Layout: partition invocations are layered by dependency level (dataflow and
// barriers); invocations of one level form a tier, side by side. Inside a
// partition, steps are layered by their dataflow level within it. A
// partition with many lines of steps folds into columns, and a program with
// many tiers too, both aiming at a landscape picture, so that programs with
// hundreds of invocations stay readable when zoomed. Edges go from the bottom
// of a box to the top of the next. One that would cross the steps of the
// lines it skips goes around their right side; one into a later column goes
// through the gutter before that column; one from an argument or a constant
// that would cross steps comes down beside the target's column; edges to
// outputs go up beside the body.
//
//===----------------------------------------------------------------------===//

#include "cgc/Compiler/Draw.h"

#include "DrawSupport.h"
#include "SvgWriter.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

using namespace mlir;

namespace cgc::compiler {

namespace {

using svg::formatNumber;

// Geometry, in SVG user units (pixels at 100%).
constexpr double kMargin = 20;
constexpr double kStepWidth = 184;
constexpr double kStepHeight = 40;
constexpr double kStepGap = 16;      // between the steps of one line
constexpr double kLineGap = 30;      // between lines of steps: room for arrows
constexpr double kPadding = 12;      // inside a partition box
constexpr double kHeader = 20;       // a partition's label
constexpr double kColumnGap = 48;    // between folded columns
constexpr double kPartitionGap = 32; // between partitions of a tier
constexpr double kTierGap = 44;      // between tiers
constexpr double kChipHeight = 24;   // arguments and constants
constexpr double kBoxTitle = 22;     // the title line of the top boxes
constexpr double kFontSize = 11;
constexpr double kDetailFontSize = 10;
constexpr unsigned kMaxStepsPerLine = 6;
/// Partitions with more lines of steps, and programs with more tiers, fold
/// into columns aiming at this width / height.
constexpr unsigned kMaxUnfoldedLines = 12;
constexpr double kAspect = 1.6;
constexpr double kMinFoldHeight = 900;
constexpr double kMaxTierWidth = 1600;
/// Programs of at most this many steps get labels on dataflow edges, and of
/// at most this many constant bindings edges from the constants; bigger ones
/// leave them to the tooltips.
constexpr unsigned kMaxDetailedSteps = 40;
constexpr unsigned kMaxConstantEdges = 12;
constexpr unsigned kMaxConstantsShown = 512;

constexpr llvm::StringLiteral kStyle = R"(
text { font-family: Helvetica, Arial, sans-serif; font-size: 11px; fill: #1a1a1a; }
.title { font-size: 16px; font-weight: bold; }
.subtitle { font-size: 12px; fill: #444444; }
.box-title { font-size: 12px; font-weight: bold; }
.partition-label { font-size: 11px; font-weight: bold; }
.partition-detail { font-size: 10px; fill: #555555; }
.symbol { font-weight: bold; }
.detail { font-size: 10px; fill: #333333; }
.chip-label { font-size: 11px; }
.edge, .sample { fill: none; stroke-width: 1.3; }
.dataflow { stroke: #4d4d4d; }
.barrier { stroke: #c0392b; stroke-width: 1.6; stroke-dasharray: 7 4; }
.argument-input, .argument-output { stroke: #8c7a00; }
.constant-input { stroke: #4f8f1c; stroke-width: 1; }
.edge-label { font-size: 9.5px; fill: #333333; paint-order: stroke; stroke: #ffffff; stroke-width: 3px; stroke-linejoin: round; }
.frame { fill: none; stroke-width: 1.2; }
.legend-text { font-size: 10.5px; }
)";

/// The kinds of edges, each with its arrowhead.
enum class EdgeKind { Dataflow, Barrier, Input, Output, Constant };

llvm::StringRef getMarkerId(EdgeKind kind) {
  switch (kind) {
  case EdgeKind::Dataflow:
    return "arrow-dataflow";
  case EdgeKind::Barrier:
    return "arrow-barrier";
  case EdgeKind::Input:
  case EdgeKind::Output:
    return "arrow-argument";
  case EdgeKind::Constant:
    return "arrow-constant";
  }
  return "arrow-dataflow";
}

struct Point {
  double x = 0, y = 0;
};

struct Box {
  double x = 0, y = 0, width = 0, height = 0;
  double right() const { return x + width; }
  double bottom() const { return y + height; }
  double centerX() const { return x + width / 2; }
};

struct StepNode {
  /// Relative to its partition box until `placeProgram`, then absolute.
  Box box;
  /// The left of its column in a folded partition, as `box`.
  double columnLeft = 0;
  /// Its dataflow level inside its partition.
  unsigned localLevel = 0;
};

struct PartitionNode {
  unsigned level = 0;
  SmallVector<unsigned> steps;
  /// The origin of its steps; "" when they have several (or none).
  std::string origin;
  std::optional<SmallVector<unsigned>> dependsOn;
  Box box;
  /// The left of its column of tiers.
  double columnLeft = 0;
};

/// One argument or constant drawn as a chip in the top boxes.
struct Chip {
  std::string id, label, detail, tooltip, className, fill, stroke;
  Box box;
  /// The program argument it stands for; none for a constant.
  std::optional<unsigned> argumentNumber;
};

/// An edge before routing: its ends and what it carries.
struct Edge {
  EdgeKind kind = EdgeKind::Dataflow;
  /// The ids of its ends' elements.
  std::string from = {}, to = {};
  /// The text by a dataflow edge, and the values it carries (`data-values`).
  std::string label = {}, values = {};
  Box source = {}, target = {};
  /// Attachment points, chosen once every edge is known.
  Point start = {}, end = {};
  /// Routed around the steps it would cross (see the file comment).
  bool goesAround = false;
  /// Going to a later column (up and right): through the gutter left of
  /// the target's column, at this x.
  std::optional<double> gutter = {};
  /// Lines skipped (dataflow going around), or a lane among edges that share
  /// a gutter, go to outputs or come down beside a column.
  unsigned lane = 0;
  /// For arguments and constants: the left of the target's column, beside
  /// which an edge that goes around comes down.
  double columnLeft = 0;
};

/// A path along `points` (horizontal and vertical segments) with rounded
/// corners.
std::string orthogonalPath(ArrayRef<Point> points) {
  constexpr double kRadius = 6;
  std::string path = "M" + formatNumber(points[0].x) + "," + formatNumber(points[0].y);
  for (size_t index = 1; index < points.size(); ++index) {
    Point corner = points[index];
    if (index + 1 == points.size()) {
      path += " L" + formatNumber(corner.x) + "," + formatNumber(corner.y);
      break;
    }
    Point before = points[index - 1], after = points[index + 1];
    auto toward = [&](Point from, Point to) {
      double length = std::hypot(to.x - from.x, to.y - from.y);
      double radius = std::min(kRadius, length / 2);
      if (length == 0)
        return from;
      return Point{from.x + (to.x - from.x) * radius / length,
                   from.y + (to.y - from.y) * radius / length};
    };
    Point in = toward(corner, before), out = toward(corner, after);
    path += " L" + formatNumber(in.x) + "," + formatNumber(in.y) + " Q" + formatNumber(corner.x) +
            "," + formatNumber(corner.y) + " " + formatNumber(out.x) + "," + formatNumber(out.y);
  }
  return path;
}

/// A path with a cubic Bézier from `a` to `b`, leaving and arriving
/// vertically.
std::string verticalCurve(Point a, Point b) {
  double dy = b.y > a.y + 1 ? std::clamp((b.y - a.y) / 2, 12.0, 70.0) : 60;
  return "M" + formatNumber(a.x) + "," + formatNumber(a.y) + " C" + formatNumber(a.x) + "," +
         formatNumber(a.y + dy) + " " + formatNumber(b.x) + "," + formatNumber(b.y - dy) + " " +
         formatNumber(b.x) + "," + formatNumber(b.y);
}

/// The midpoint of `verticalCurve(a, b)`.
Point verticalCurveMidpoint(Point a, Point b) {
  double dy = b.y > a.y + 1 ? std::clamp((b.y - a.y) / 2, 12.0, 70.0) : 60;
  // B(1/2) = (P0 + 3 P1 + 3 P2 + P3) / 8.
  return {(a.x + 3 * a.x + 3 * b.x + b.x) / 8, (a.y + 3 * (a.y + dy) + 3 * (b.y - dy) + b.y) / 8};
}

/// Whether the segment from `a` to `b` passes through the inside of `box`
/// (Liang-Barsky clipping against the box less a pixel on each side).
bool crosses(Point a, Point b, const Box &box) {
  double low = 0, high = 1;
  double dx = b.x - a.x, dy = b.y - a.y;
  auto clip = [&](double p, double q) {
    if (p == 0)
      return q >= 0;
    double t = q / p;
    if (p < 0)
      low = std::max(low, t);
    else
      high = std::min(high, t);
    return low <= high;
  };
  return clip(-dx, a.x - (box.x + 1)) && clip(dx, box.right() - 1 - a.x) &&
         clip(-dy, a.y - (box.y + 1)) && clip(dy, box.bottom() - 1 - a.y) && low < high;
}

class PartitionsPicture {
public:
  PartitionsPicture(ModuleOp module, ProgramAccesses &accesses)
      : accesses(accesses), arguments(draw::classifyArguments(accesses)), names(module, arguments),
        targetStyles(draw::assignTargetStyles(accesses)) {}

  LogicalResult build();
  void write(llvm::raw_ostream &os);

private:
  /// Where values live; the constants and their readers.
  void collectValues();
  LogicalResult collectPartitions();
  void layoutPartition(PartitionNode &node);
  void placeProgram();
  void layoutTopBoxes();
  void collectEdges();
  void attachEdges();
  std::string describeValue(Value value);
  std::string describeStep(unsigned step);
  const draw::TargetStyle *getStyle(llvm::StringRef origin) const;

  /// The subtitle: counts of invocations, targets, levels and barriers.
  std::string summarize();
  void writeDefinitions(svg::Writer &writer);
  void writeHeader(svg::Writer &writer);
  void writeTopBoxes(svg::Writer &writer);
  void writeLegend(svg::Writer &writer);
  void writeEdges(svg::Writer &writer);
  void writePartitions(svg::Writer &writer);

  ProgramAccesses &accesses;
  SmallVector<draw::ProgramArgument> arguments;
  draw::ValueNames names;
  std::map<std::string, draw::TargetStyle> targetStyles;
  std::vector<SmallVector<DataflowInput>> dataflow;
  /// Where each value touched by a step lives: buffer and base offset.
  llvm::DenseMap<Value, std::pair<unsigned, uint64_t>> valueLocations;
  /// Constants by name, in program order.
  SmallVector<std::string> constantNames;
  llvm::StringMap<unsigned> constantIndex;
  /// The steps reading each constant (by index), ascending.
  std::vector<SmallVector<unsigned>> constantReaders;

  SmallVector<StepNode> steps;
  SmallVector<PartitionNode> partitions;
  unsigned numLevels = 0;
  bool scheduled = false;
  bool detailed = false;
  bool constantEdges = false;
  unsigned numOutputEdges = 0;
  std::string subtitle;

  std::vector<Chip> argumentChips, constantChips;
  Box argumentsBox, constantsBox, legendBox;
  double width = 0, height = 0;
  double bodyLeft = kMargin, bodyTop = 0, bodyRight = 0, topBoxesBottom = 0;
  std::vector<Edge> edges;
};

const draw::TargetStyle *PartitionsPicture::getStyle(llvm::StringRef origin) const {
  auto it = targetStyles.find(origin.str());
  return it == targetStyles.end() ? nullptr : &it->second;
}

void PartitionsPicture::collectValues() {
  for (const SubgraphStep &step : accesses.steps)
    for (const Access &access : step.operands)
      valueLocations.try_emplace(access.value, access.buffer, access.offset - access.offsetInValue);
  for (Operation &op : accesses.program.getBody().front())
    if (auto constant = dyn_cast<ConstantOp>(op)) {
      auto [it, inserted] = constantIndex.try_emplace(constant.getName(), constantNames.size());
      if (inserted)
        constantNames.push_back(constant.getName().str());
    }
  constantReaders.resize(constantNames.size());
  unsigned numBindings = 0;
  for (auto [index, step] : llvm::enumerate(accesses.steps))
    for (const Access &access : step.operands)
      if (auto constant = access.value.getDefiningOp<ConstantOp>()) {
        SmallVector<unsigned> &readers = constantReaders[constantIndex.lookup(constant.getName())];
        if (readers.empty() || readers.back() != index) {
          readers.push_back(index);
          ++numBindings;
        }
      }
  constantEdges = numBindings <= kMaxConstantEdges;
  // Edges to outputs: one per step writing a program argument.
  for (const SubgraphStep &step : accesses.steps) {
    SmallVector<Value, 2> outputs;
    for (const Access &access : step.operands)
      if (access.written && isa<BlockArgument>(access.value) && access.value != accesses.scratch &&
          !llvm::is_contained(outputs, access.value))
        outputs.push_back(access.value);
    numOutputEdges += outputs.size();
  }
}

std::string PartitionsPicture::describeValue(Value value) {
  std::string label = names.getLabel(value);
  auto it = valueLocations.find(value);
  if (accesses.scratch && it != valueLocations.end() &&
      it->second.first == accesses.scratch.getArgNumber())
    label += " @" + std::to_string(it->second.second);
  return label;
}

std::string PartitionsPicture::describeStep(unsigned index) {
  SubgraphStep &step = accesses.steps[index];
  std::string text = "step " + std::to_string(index) + ": @" + step.subgraph.getName().str();
  if (llvm::StringRef pattern = draw::getPatternName(step.subgraph); !pattern.empty())
    text += " (pattern " + pattern.str() + ")";
  text += " on " + step.subgraph.getOrigin().str();
  text += "\nlayers: " + draw::describeLayers(step.subgraph);
  std::string reads, writes;
  for (const Access &access : step.operands) {
    std::string &list = access.written ? writes : reads;
    std::string item = describeValue(access.value);
    if (!list.empty())
      list += ", ";
    list += item;
  }
  text += "\nreads: " + (reads.empty() ? std::string("nothing") : reads);
  text += "\nwrites: " + (writes.empty() ? std::string("nothing") : writes);
  return text;
}

LogicalResult PartitionsPicture::collectPartitions() {
  unsigned numInvocations = accesses.invocations.size();
  partitions.resize(numInvocations);
  steps.resize(accesses.steps.size());
  for (auto [index, step] : llvm::enumerate(accesses.steps))
    partitions[step.invocation].steps.push_back(index);

  for (unsigned index = 0; index < numInvocations; ++index) {
    PartitionNode &node = partitions[index];
    FailureOr<std::optional<SmallVector<unsigned>>> dependsOn = draw::getDependsOn(accesses, index);
    if (failed(dependsOn))
      return failure();
    node.dependsOn = std::move(*dependsOn);
    scheduled |= node.dependsOn.has_value();
    // The origin its steps share.
    for (auto [position, step] : llvm::enumerate(node.steps)) {
      llvm::StringRef origin = accesses.steps[step].subgraph.getOrigin();
      if (position == 0)
        node.origin = origin.str();
      else if (node.origin != origin)
        node.origin.clear();
    }
    // Level: after every invocation it reads from or waits for.
    SmallVector<unsigned> before;
    if (node.dependsOn)
      before.append(node.dependsOn->begin(), node.dependsOn->end());
    for (unsigned step : node.steps)
      for (const DataflowInput &input : dataflow[step])
        before.push_back(accesses.steps[input.producer].invocation);
    for (unsigned earlier : before)
      if (earlier < index)
        node.level = std::max(node.level, partitions[earlier].level + 1);
    numLevels = std::max(numLevels, node.level + 1);
    // Steps: levels by dataflow inside the partition.
    for (unsigned step : node.steps)
      for (const DataflowInput &input : dataflow[step])
        if (accesses.steps[input.producer].invocation == index)
          steps[step].localLevel =
              std::max(steps[step].localLevel, steps[input.producer].localLevel + 1);
  }
  return success();
}

void PartitionsPicture::layoutPartition(PartitionNode &node) {
  // Lines: the steps of one local level, at most kMaxStepsPerLine each.
  std::map<unsigned, SmallVector<unsigned>> byLevel;
  for (unsigned step : node.steps)
    byLevel[steps[step].localLevel].push_back(step);
  SmallVector<SmallVector<unsigned>> lines;
  for (auto &[level, members] : byLevel)
    for (size_t begin = 0; begin < members.size(); begin += kMaxStepsPerLine)
      lines.emplace_back(members.begin() + begin,
                         members.begin() + std::min(members.size(), begin + kMaxStepsPerLine));
  auto lineWidth = [](size_t count) {
    return count * kStepWidth + (count == 0 ? 0 : (count - 1) * kStepGap);
  };
  double maxLineWidth = kStepWidth;
  for (const SmallVector<unsigned> &line : lines)
    maxLineWidth = std::max(maxLineWidth, lineWidth(line.size()));

  size_t numLines = std::max<size_t>(lines.size(), 1);
  size_t perColumn = numLines;
  if (numLines > kMaxUnfoldedLines) {
    double lineHeight = kStepHeight + kLineGap;
    double columns = std::sqrt(kAspect * numLines * lineHeight / (maxLineWidth + kColumnGap));
    size_t numColumns = std::clamp<size_t>(std::llround(columns), 1, numLines);
    perColumn = (numLines + numColumns - 1) / numColumns;
  }
  size_t numColumns = (numLines + perColumn - 1) / perColumn;

  for (auto [index, line] : llvm::enumerate(lines)) {
    unsigned column = index / perColumn, row = index % perColumn;
    double x = kPadding + column * (maxLineWidth + kColumnGap) +
               (maxLineWidth - lineWidth(line.size())) / 2;
    double y = kHeader + kPadding + row * (kStepHeight + kLineGap);
    double columnLeft = kPadding + column * (maxLineWidth + kColumnGap);
    for (unsigned step : line) {
      StepNode &stepNode = steps[step];
      stepNode.box = {x, y, kStepWidth, kStepHeight};
      stepNode.columnLeft = columnLeft;
      x += kStepWidth + kStepGap;
    }
  }
  node.box.width = 2 * kPadding + numColumns * maxLineWidth + (numColumns - 1) * kColumnGap;
  node.box.height = kHeader + 2 * kPadding + perColumn * kStepHeight + (perColumn - 1) * kLineGap;
}

void PartitionsPicture::placeProgram() {
  for (PartitionNode &node : partitions)
    layoutPartition(node);

  // Bands: the partitions of one tier, side by side, wrapped at a width.
  struct Band {
    SmallVector<unsigned> partitions;
    double width = 0, height = 0;
  };
  SmallVector<Band> bands;
  double widest = 0;
  for (const PartitionNode &node : partitions)
    widest = std::max(widest, node.box.width);
  double maxBandWidth = std::max(kMaxTierWidth, widest);
  for (unsigned level = 0; level < numLevels; ++level) {
    Band *band = nullptr;
    for (auto [index, node] : llvm::enumerate(partitions)) {
      if (node.level != level)
        continue;
      if (!band || band->width + kPartitionGap + node.box.width > maxBandWidth)
        band = &bands.emplace_back();
      band->width += (band->partitions.empty() ? 0 : kPartitionGap) + node.box.width;
      band->height = std::max(band->height, node.box.height);
      band->partitions.push_back(index);
    }
  }

  // Columns of bands.
  double totalHeight = 0, tallest = 0, widestBand = 0;
  for (const Band &band : bands) {
    totalHeight += band.height + (totalHeight == 0 ? 0 : kTierGap);
    tallest = std::max(tallest, band.height);
    widestBand = std::max(widestBand, band.width);
  }
  double columnLimit = totalHeight;
  if (bands.size() > 1 && totalHeight > kMinFoldHeight) {
    double columns = std::sqrt(kAspect * totalHeight / (widestBand + kColumnGap));
    columnLimit =
        std::max({tallest, totalHeight / std::max(1.0, std::round(columns)), kMinFoldHeight});
  }
  double columnX = bodyLeft, y = 0, columnWidth = 0;
  SmallVector<std::pair<size_t, double>> columnStarts; // first band, x
  SmallVector<double> bandY(bands.size());
  for (auto [index, band] : llvm::enumerate(bands)) {
    if (index != 0 && y + band.height > columnLimit + 0.5) {
      columnX += columnWidth + kColumnGap;
      columnWidth = 0;
      y = 0;
    }
    if (y == 0)
      columnStarts.emplace_back(index, columnX);
    bandY[index] = y;
    y += band.height + kTierGap;
    columnWidth = std::max(columnWidth, band.width);
  }
  // Center each band in its column.
  SmallVector<double> columnWidths;
  for (auto [position, start] : llvm::enumerate(columnStarts)) {
    size_t end =
        position + 1 < columnStarts.size() ? columnStarts[position + 1].first : bands.size();
    double columnWidthHere = 0;
    for (size_t band = start.first; band < end; ++band)
      columnWidthHere = std::max(columnWidthHere, bands[band].width);
    for (size_t band = start.first; band < end; ++band) {
      double x = start.second + (columnWidthHere - bands[band].width) / 2;
      for (unsigned partition : bands[band].partitions) {
        partitions[partition].columnLeft = start.second;
        Box &box = partitions[partition].box;
        box.x = x;
        box.y = bodyTop + bandY[band] + (bands[band].height - box.height) / 2;
        x += box.width + kPartitionGap;
      }
    }
    bodyRight = std::max(bodyRight, start.second + columnWidthHere);
  }
  double bodyBottom = bodyTop;
  for (PartitionNode &node : partitions) {
    bodyBottom = std::max(bodyBottom, node.box.bottom());
    for (unsigned step : node.steps) {
      steps[step].box.x += node.box.x;
      steps[step].box.y += node.box.y;
      steps[step].columnLeft += node.box.x;
    }
  }
  height = bodyBottom + kMargin;
}

void PartitionsPicture::layoutTopBoxes() {
  // Arguments: inputs, scratch, outputs, in rows of at most this width.
  constexpr double kMaxArgumentsWidth = 560;
  auto addChip = [](std::vector<Chip> &chips, Chip chip, double maxChipWidth) {
    chip.box.width = std::clamp(std::max(svg::estimateTextWidth(chip.label, kFontSize),
                                         svg::estimateTextWidth(chip.detail, kDetailFontSize)) +
                                    24,
                                64.0, maxChipWidth);
    chip.box.height = chip.detail.empty() ? kChipHeight : kChipHeight + 10;
    chips.push_back(std::move(chip));
  };
  auto argumentOrder = [](draw::ArgumentRole role) {
    return role == draw::ArgumentRole::Input ? 0 : role == draw::ArgumentRole::Scratch ? 1 : 2;
  };
  SmallVector<const draw::ProgramArgument *> ordered;
  for (const draw::ProgramArgument &argument : arguments)
    ordered.push_back(&argument);
  llvm::stable_sort(
      ordered, [&](auto *a, auto *b) { return argumentOrder(a->role) < argumentOrder(b->role); });
  for (const draw::ProgramArgument *argument : ordered) {
    Chip chip;
    unsigned number = argument->argument.getArgNumber();
    chip.id = "argument-" + std::to_string(number);
    chip.argumentNumber = number;
    chip.label = argument->label;
    std::string type = draw::formatType(argument->argument.getType());
    switch (argument->role) {
    case draw::ArgumentRole::Input:
      chip.className = "argument input";
      chip.fill = "#ffff66";
      chip.detail = argument->scratchOffset
                        ? "input, in scratch @" + std::to_string(*argument->scratchOffset)
                        : "input";
      break;
    case draw::ArgumentRole::Output:
      chip.className = "argument output";
      chip.fill = "#ffff66";
      chip.detail = "output";
      break;
    case draw::ArgumentRole::Scratch:
      chip.className = "argument scratch";
      chip.fill = "#66ffff";
      chip.detail = draw::formatBytes(argument->bytes);
      break;
    }
    chip.stroke = "#8c7a00";
    chip.tooltip = chip.label + " (" + names.getSSAName(argument->argument) + "): " + type + ", " +
                   draw::formatBytes(argument->bytes);
    if (argument->scratchOffset)
      chip.tooltip += "; placed in scratch at byte " + std::to_string(*argument->scratchOffset);
    addChip(argumentChips, std::move(chip), 240);
  }
  // Constants, in program order.
  double constantWidth = 48;
  for (const std::string &name : constantNames)
    constantWidth = std::max(constantWidth, svg::estimateTextWidth(name, kFontSize) + 20);
  constantWidth = std::min(constantWidth, 160.0);
  for (auto [index, name] : llvm::enumerate(constantNames)) {
    if (index == kMaxConstantsShown)
      break;
    Chip chip;
    chip.id = "constant-" + std::to_string(index);
    chip.label = name;
    chip.className = "constant";
    chip.fill = "#bbff66";
    chip.stroke = "#4f8f1c";
    chip.tooltip = "constant \"" + name + "\", read by ";
    const SmallVector<unsigned> &readers = constantReaders[index];
    for (auto [position, step] : llvm::enumerate(readers)) {
      if (position == 8) {
        chip.tooltip += " and " + std::to_string(readers.size() - 8) + " more";
        break;
      }
      chip.tooltip += (position == 0 ? "step " : ", step ") + std::to_string(step) + " (@" +
                      accesses.steps[step].subgraph.getName().str() + ")";
    }
    if (readers.empty())
      chip.tooltip += "no step";
    chip.box.width = constantWidth;
    chip.box.height = kChipHeight;
    constantChips.push_back(std::move(chip));
  }

  // Rows of chips inside a box whose content starts at (x, y).
  auto flow = [](std::vector<Chip> &chips, double x, double y, double maxWidth) {
    double cursorX = 0, cursorY = 0, rowHeight = 0, usedWidth = 0;
    for (Chip &chip : chips) {
      if (cursorX != 0 && cursorX + chip.box.width > maxWidth) {
        cursorX = 0;
        cursorY += rowHeight + 8;
        rowHeight = 0;
      }
      chip.box.x = x + cursorX;
      chip.box.y = y + cursorY;
      cursorX += chip.box.width + 8;
      rowHeight = std::max(rowHeight, chip.box.height);
      usedWidth = std::max(usedWidth, cursorX - 8);
    }
    return std::pair(usedWidth, chips.empty() ? 0.0 : cursorY + rowHeight);
  };

  double top = 58;
  argumentsBox.x = kMargin;
  argumentsBox.y = top;
  auto [argumentsWidth, argumentsHeight] =
      flow(argumentChips, argumentsBox.x + 10, top + kBoxTitle + 4, kMaxArgumentsWidth);
  argumentsBox.width = std::max(argumentsWidth, 150.0) + 20;
  argumentsBox.height = kBoxTitle + 4 + argumentsHeight + 10;

  legendBox.width = 300;
  legendBox.height = 24 + 16 * (targetStyles.size() + (constantEdges ? 4 : 3));
  // The constants take what the body leaves between the two.
  double bodyWidth = bodyRight - kMargin;
  double allChipsWidth = 20;
  for (const Chip &chip : constantChips)
    allChipsWidth += chip.box.width + 8;
  double constantsWidth =
      std::max({std::min(allChipsWidth, 680.0), 260.0,
                bodyWidth - argumentsBox.width - legendBox.width - 2 * kPartitionGap});
  constantsBox.x = argumentsBox.right() + kPartitionGap;
  constantsBox.y = top;
  if (!constantChips.empty()) {
    auto [usedWidth, usedHeight] =
        flow(constantChips, constantsBox.x + 10, top + kBoxTitle + 4, constantsWidth - 20);
    constantsBox.width = usedWidth + 20;
    constantsBox.height = kBoxTitle + 4 + usedHeight + 10;
    if (constantNames.size() > kMaxConstantsShown)
      constantsBox.height += 16;
    legendBox.x = constantsBox.right() + kPartitionGap;
  } else {
    legendBox.x = argumentsBox.right() + kPartitionGap;
  }
  legendBox.y = top;
  topBoxesBottom = std::max({argumentsBox.bottom(), constantsBox.bottom(), legendBox.bottom()});
  width = std::max(bodyRight, legendBox.right()) + kMargin;
}

void PartitionsPicture::collectEdges() {
  auto stepId = [](unsigned step) { return "step-" + std::to_string(step); };
  // Dataflow: one edge per producer and reader, naming the values.
  for (auto [reader, inputs] : llvm::enumerate(dataflow)) {
    for (size_t begin = 0; begin < inputs.size();) {
      unsigned producer = inputs[begin].producer;
      Edge edge{.kind = EdgeKind::Dataflow, .from = stepId(producer), .to = stepId(reader)};
      for (; begin < inputs.size() && inputs[begin].producer == producer; ++begin) {
        if (!edge.values.empty()) {
          edge.values += " ";
          edge.label += ", ";
        }
        edge.values += names.getLabel(inputs[begin].value);
        edge.label += describeValue(inputs[begin].value);
      }
      edge.source = steps[producer].box;
      edge.target = steps[reader].box;
      if (edge.target.y < edge.source.bottom()) {
        unsigned invocation = accesses.steps[reader].invocation;
        edge.gutter = (invocation == accesses.steps[producer].invocation
                           ? steps[reader].columnLeft
                           : partitions[invocation].columnLeft) -
                      kColumnGap / 2;
      }
      edges.push_back(std::move(edge));
    }
  }
  // Arguments: inputs to the steps reading them, steps to the outputs they
  // write; constants to the steps reading them when there are few.
  llvm::DenseMap<Value, const Chip *> chipOf;
  for (const Chip &chip : argumentChips)
    chipOf[accesses.program.getArgument(*chip.argumentNumber)] = &chip;
  unsigned outputLane = 0;
  for (auto [index, step] : llvm::enumerate(accesses.steps)) {
    llvm::SmallPtrSet<const Chip *, 4> seen;
    for (const Access &access : step.operands) {
      const Chip *chip = nullptr;
      if (auto it = chipOf.find(access.value); it != chipOf.end())
        chip = it->second;
      if (!chip && constantEdges)
        if (auto constant = access.value.getDefiningOp<ConstantOp>()) {
          unsigned position = constantIndex.lookup(constant.getName());
          if (position < constantChips.size())
            chip = &constantChips[position];
        }
      if (!chip || !seen.insert(chip).second)
        continue;
      bool isConstant = !chip->argumentNumber;
      if (access.written) {
        Edge edge{
            .kind = EdgeKind::Output, .from = stepId(index), .to = chip->id, .values = chip->label};
        edge.source = steps[index].box;
        edge.target = chip->box;
        edge.lane = outputLane++;
        edges.push_back(std::move(edge));
      } else {
        Edge edge{.kind = isConstant ? EdgeKind::Constant : EdgeKind::Input,
                  .from = chip->id,
                  .to = stepId(index),
                  .values = chip->label};
        edge.source = chip->box;
        edge.target = steps[index].box;
        edge.columnLeft = partitions[step.invocation].columnLeft;
        edges.push_back(std::move(edge));
      }
    }
  }
  // Barriers between partition invocations.
  for (auto [index, node] : llvm::enumerate(partitions)) {
    if (!node.dependsOn)
      continue;
    for (unsigned earlier : *node.dependsOn) {
      Edge edge{.kind = EdgeKind::Barrier,
                .from = "invocation-" + std::to_string(earlier),
                .to = "invocation-" + std::to_string(index)};
      edge.source = partitions[earlier].box;
      edge.target = node.box;
      if (edge.target.y < edge.source.bottom())
        edge.gutter = node.columnLeft - kColumnGap / 2;
      edges.push_back(std::move(edge));
    }
  }
}

void PartitionsPicture::attachEdges() {
  double lineHeight = kStepHeight + kLineGap;
  // Spread the edges arriving at (leaving) a box's top (bottom) over its
  // width, ordered by where their other end is, so that they do not cross
  // at the box.
  std::map<std::string, SmallVector<Edge *>> arriving, leaving;
  std::map<double, unsigned> edgesPerGutter;
  for (Edge &edge : edges)
    if (edge.gutter)
      edge.lane = edgesPerGutter[*edge.gutter]++ % 5;
  // Whether going straight from the bottom of one box to the top of
  // another would cross the steps between.
  auto isBlocked = [&](const Edge &edge) {
    Point from{edge.source.centerX(), edge.source.bottom()};
    Point to{edge.target.centerX(), edge.target.y};
    return llvm::any_of(steps, [&](const StepNode &step) {
      return step.box.y > from.y && step.box.bottom() < to.y && crosses(from, to, step.box);
    });
  };
  unsigned numAround = 0;
  for (Edge &edge : edges) {
    switch (edge.kind) {
    case EdgeKind::Barrier:
      // Near the right corners of the partition boxes.
      edge.start = {edge.source.right() - 16, edge.source.bottom()};
      edge.end = {edge.target.right() - 16, edge.target.y};
      continue;
    case EdgeKind::Output:
      // Leaving the step's bottom among its other edges.
      edge.end = {edge.target.centerX(), edge.target.bottom()};
      leaving[edge.from].push_back(&edge);
      continue;
    case EdgeKind::Dataflow: {
      // Around the right side when going straight down would cross the
      // steps of the lines it skips.
      if (!edge.gutter && isBlocked(edge)) {
        edge.goesAround = true;
        edge.lane =
            static_cast<unsigned>(std::lround((edge.target.y - edge.source.y) / lineHeight));
        edge.start = {edge.source.right(), edge.source.y + edge.source.height * 0.65};
        edge.end = {edge.target.right(), edge.target.y + edge.target.height * 0.35};
        continue;
      }
      break;
    }
    case EdgeKind::Input:
    case EdgeKind::Constant:
      // Down to below the top boxes, across to the left of the target's
      // column, down beside it and into the target's left side.
      if (isBlocked(edge)) {
        edge.goesAround = true;
        edge.lane = numAround++ % 4;
        edge.end = {edge.target.x, edge.target.y + edge.target.height * (0.3 + 0.13 * edge.lane)};
        leaving[edge.from].push_back(&edge);
        continue;
      }
      break;
    }
    leaving[edge.from].push_back(&edge);
    arriving[edge.to].push_back(&edge);
  }
  auto spread = [](SmallVector<Edge *> &group, bool atSource) {
    llvm::stable_sort(group, [&](Edge *a, Edge *b) {
      return (atSource ? a->target.centerX() : a->source.centerX()) <
             (atSource ? b->target.centerX() : b->source.centerX());
    });
    for (auto [position, edge] : llvm::enumerate(group)) {
      const Box &box = atSource ? edge->source : edge->target;
      double x = box.x + box.width * (position + 1) / (group.size() + 1);
      if (atSource)
        edge->start = {x, box.bottom()};
      else
        edge->end = {x, box.y};
    }
  };
  for (auto &[id, group] : leaving)
    spread(group, true);
  for (auto &[id, group] : arriving)
    spread(group, false);
}

void PartitionsPicture::writeDefinitions(svg::Writer &writer) {
  writer.open("defs");
  auto marker = [&](llvm::StringRef id, llvm::StringRef color) {
    writer.open("marker", {{"id", id.str()},
                           {"viewBox", "0 0 10 10"},
                           {"refX", "9"},
                           {"refY", "5"},
                           {"markerWidth", "7"},
                           {"markerHeight", "7"},
                           {"orient", "auto"}});
    writer.element("path", {{"d", "M0,0 L10,5 L0,10 z"}, {"fill", color.str()}});
    writer.close();
  };
  marker(getMarkerId(EdgeKind::Dataflow), "#4d4d4d");
  marker(getMarkerId(EdgeKind::Barrier), "#c0392b");
  marker(getMarkerId(EdgeKind::Input), "#8c7a00");
  marker(getMarkerId(EdgeKind::Constant), "#4f8f1c");
  writer.close();
}

std::string PartitionsPicture::summarize() {
  llvm::StringSet<> partitionSymbols;
  for (PartitionInvocation &invocation : accesses.invocations)
    partitionSymbols.insert(invocation.partition.getName());
  unsigned numBarrierEdges = 0;
  for (const PartitionNode &node : partitions)
    numBarrierEdges += node.dependsOn ? node.dependsOn->size() : 0;
  return draw::formatCount(accesses.invocations.size(), "partition invocation",
                           "partition invocations") +
         " (" + draw::formatCount(partitionSymbols.size(), "partition", "partitions") + "), " +
         draw::formatCount(accesses.steps.size(), "subgraph invocation", "subgraph invocations") +
         ", " + draw::formatCount(targetStyles.size(), "target", "targets") + ", " +
         draw::formatCount(numLevels, "dependency level", "dependency levels") + "; " +
         (scheduled
              ? draw::formatCount(numBarrierEdges, "barrier dependency", "barrier dependencies") +
                    " (cgc.depends_on)"
              : std::string("not scheduled (no cgc.depends_on)"));
}

void PartitionsPicture::writeHeader(svg::Writer &writer) {
  writer.text(kMargin, 28, "cgc.program @" + accesses.program.getName().str() + ": partitions",
              {{"class", "title"}});
  writer.text(kMargin, 46, subtitle, {{"class", "subtitle"}});
}

void PartitionsPicture::writeTopBoxes(svg::Writer &writer) {
  auto writeBox = [&](const Box &box, llvm::StringRef id, llvm::StringRef title) {
    writer.rect(box.x, box.y, box.width, box.height,
                {{"id", id.str()}, {"rx", "6"}, {"fill", "#fafafa"}, {"stroke", "#b0b0b0"}});
    writer.text(box.x + 10, box.y + 16, title, {{"class", "box-title"}});
  };
  auto writeChip = [&](const Chip &chip, double radius) {
    writer.open("g", {{"class", chip.className}, {"id", chip.id}, {"data-name", chip.label}});
    writer.title(chip.tooltip);
    writer.rect(chip.box.x, chip.box.y, chip.box.width, chip.box.height,
                {{"rx", formatNumber(radius)}, {"fill", chip.fill}, {"stroke", chip.stroke}});
    double textWidth = chip.box.width - 12;
    if (chip.detail.empty()) {
      writer.text(chip.box.centerX(), chip.box.y + 16,
                  svg::fitText(chip.label, textWidth, kFontSize),
                  {{"class", "chip-label"}, {"text-anchor", "middle"}});
    } else {
      writer.text(chip.box.centerX(), chip.box.y + 14,
                  svg::fitText(chip.label, textWidth, kFontSize),
                  {{"class", "chip-label"}, {"text-anchor", "middle"}});
      writer.text(chip.box.centerX(), chip.box.y + 27,
                  svg::fitText(chip.detail, textWidth, kDetailFontSize),
                  {{"class", "detail"}, {"text-anchor", "middle"}});
    }
    writer.close();
  };
  writer.open("g", {{"class", "program-arguments"}});
  writeBox(argumentsBox, "program-arguments", "Program Arguments");
  for (const Chip &chip : argumentChips)
    writeChip(chip, chip.box.height / 2);
  writer.close();
  if (!constantChips.empty()) {
    writer.open("g", {{"class", "program-constants"}});
    writeBox(constantsBox, "program-constants",
             "Program Constants (" + std::to_string(constantNames.size()) + ")");
    for (const Chip &chip : constantChips)
      writeChip(chip, chip.box.height / 2);
    if (constantNames.size() > kMaxConstantsShown)
      writer.text(constantsBox.x + 10, constantsBox.bottom() - 8,
                  "... and " + std::to_string(constantNames.size() - kMaxConstantsShown) + " more",
                  {{"class", "detail"}});
    writer.close();
  }
}

void PartitionsPicture::writeLegend(svg::Writer &writer) {
  const Box &box = legendBox;
  writer.open("g", {{"class", "legend"}});
  writer.rect(box.x, box.y, box.width, box.height,
              {{"rx", "6"}, {"fill", "#ffffff"}, {"stroke", "#b0b0b0"}});
  writer.text(box.x + 10, box.y + 16, "Legend", {{"class", "box-title"}});
  double y = box.y + 24;
  for (const auto &[origin, style] : targetStyles) {
    writer.rect(box.x + 10, y + 2, 22, 11,
                {{"class", "target-swatch"},
                 {"data-origin", origin},
                 {"fill", style.fill},
                 {"stroke", style.stroke}});
    std::string text = origin + (style.fallback ? " (fallback): " : ": ") +
                       draw::formatCount(style.numInvocations, "invocation", "invocations");
    writer.text(box.x + 40, y + 11, svg::fitText(text, box.width - 50, 10.5),
                {{"class", "legend-text"}});
    y += 16;
  }
  auto sample = [&](EdgeKind kind, llvm::StringRef className, llvm::StringRef text) {
    writer.element("path", {{"class", ("sample " + className).str()},
                            {"d", "M" + formatNumber(box.x + 10) + "," + formatNumber(y + 8) +
                                      " H" + formatNumber(box.x + 32)},
                            {"marker-end", "url(#" + getMarkerId(kind).str() + ")"}});
    writer.text(box.x + 40, y + 11, text, {{"class", "legend-text"}});
    y += 16;
  };
  sample(EdgeKind::Dataflow, "dataflow", "dataflow (a value through bind points)");
  sample(EdgeKind::Barrier, "barrier", "barrier (cgc.depends_on)");
  sample(EdgeKind::Input, "argument-input", "argument bound");
  if (constantEdges)
    sample(EdgeKind::Constant, "constant-input", "constant bound");
  writer.close();
}

void PartitionsPicture::writeEdges(svg::Writer &writer) {
  writer.open("g", {{"class", "edges"}});
  for (const Edge &edge : edges) {
    std::string path, className;
    Point labelAt = verticalCurveMidpoint(edge.start, edge.end);
    if (edge.gutter) {
      // Down, right to the gutter, up to above the target, right and down.
      double shift = 5.0 * edge.lane;
      double x = *edge.gutter + shift - 10;
      double below = edge.start.y + 10 + shift, above = edge.end.y - 12 - shift;
      path = orthogonalPath({edge.start,
                             {edge.start.x, below},
                             {x, below},
                             {x, above},
                             {edge.end.x, above},
                             edge.end});
      labelAt = {x + 2, (below + above) / 2};
    }
    switch (edge.kind) {
    case EdgeKind::Dataflow:
      className = "edge dataflow";
      if (edge.gutter)
        break;
      if (edge.goesAround) {
        double bulge = 22 + 6 * (edge.lane % 4);
        path = "M" + formatNumber(edge.start.x) + "," + formatNumber(edge.start.y) + " C" +
               formatNumber(edge.start.x + bulge) + "," + formatNumber(edge.start.y) + " " +
               formatNumber(edge.end.x + bulge) + "," + formatNumber(edge.end.y) + " " +
               formatNumber(edge.end.x) + "," + formatNumber(edge.end.y);
        labelAt = {(edge.start.x + edge.end.x) / 2 + bulge * 0.75 + 2,
                   (edge.start.y + edge.end.y) / 2};
      } else {
        path = verticalCurve(edge.start, edge.end);
      }
      break;
    case EdgeKind::Barrier:
      className = "edge barrier";
      if (!edge.gutter)
        path = verticalCurve(edge.start, edge.end);
      break;
    case EdgeKind::Input:
    case EdgeKind::Constant:
      className = edge.kind == EdgeKind::Input ? "edge argument-input" : "edge constant-input";
      if (edge.goesAround) {
        double acrossY = topBoxesBottom + 10 + 6 * numOutputEdges + 4 * edge.lane;
        double besideX = edge.columnLeft - 8 - 3 * edge.lane;
        path = orthogonalPath({edge.start,
                               {edge.start.x, acrossY},
                               {besideX, acrossY},
                               {besideX, edge.end.y},
                               edge.end});
      } else {
        path = verticalCurve(edge.start, edge.end);
      }
      break;
    case EdgeKind::Output: {
      // Down, right to a lane beside the body, up to a lane below the top
      // boxes, across and up into the output.
      className = "edge argument-output";
      double below = edge.start.y + 6 + 2 * (edge.lane % 3);
      double laneX = bodyRight + 14 + 8 * edge.lane;
      double laneY = topBoxesBottom + 10 + 6 * edge.lane;
      path = orthogonalPath({edge.start,
                             {edge.start.x, below},
                             {laneX, below},
                             {laneX, laneY},
                             {edge.end.x, laneY},
                             edge.end});
      break;
    }
    }
    SmallVector<svg::Attribute, 6> attributes = {
        {"class", className}, {"data-from", edge.from}, {"data-to", edge.to}};
    if (!edge.values.empty())
      attributes.push_back({"data-values", edge.values});
    attributes.push_back({"d", path});
    attributes.push_back({"marker-end", "url(#" + getMarkerId(edge.kind).str() + ")"});
    writer.element("path", attributes);
    if (detailed && edge.kind == EdgeKind::Dataflow && !edge.label.empty())
      writer.text(labelAt.x + 4, labelAt.y + 3, edge.label, {{"class", "edge-label"}});
  }
  writer.close();
}

void PartitionsPicture::writePartitions(svg::Writer &writer) {
  for (auto [index, node] : llvm::enumerate(partitions)) {
    const draw::TargetStyle *style = getStyle(node.origin);
    PartitionOp partition = accesses.invocations[index].partition;
    std::string dependsOn;
    if (node.dependsOn)
      for (unsigned earlier : *node.dependsOn)
        dependsOn += (dependsOn.empty() ? "" : " ") + std::to_string(earlier);
    SmallVector<svg::Attribute, 6> attributes = {{"class", "partition"},
                                                 {"id", "invocation-" + std::to_string(index)},
                                                 {"data-partition", partition.getName().str()},
                                                 {"data-origin", node.origin},
                                                 {"data-level", std::to_string(node.level)}};
    // Absent before scheduling; empty for an invocation that waits for none.
    if (node.dependsOn)
      attributes.push_back({"data-depends-on", dependsOn});
    writer.open("g", attributes);
    writer.title(
        "@" + partition.getName().str() + ", program invocation #" + std::to_string(index) +
        " (dependency level " + std::to_string(node.level) + "), " +
        draw::formatCount(node.steps.size(), "subgraph invocation", "subgraph invocations") + ", " +
        draw::formatCount(partition.getNumArguments(), "bind point", "bind points") +
        (node.dependsOn
             ? ", waits for " + (dependsOn.empty() ? std::string("nothing") : "#" + dependsOn)
             : std::string()));
    writer.rect(node.box.x, node.box.y, node.box.width, node.box.height,
                {{"class", "frame"}, {"rx", "8"}, {"stroke", style ? style->stroke : "#777777"}});
    std::string label = "@" + partition.getName().str();
    std::string detail = "#" + std::to_string(index) +
                         (node.origin.empty() ? std::string() : " \u00b7 " + node.origin);
    double labelWidth = svg::estimateTextWidth(label, kFontSize);
    writer.text(node.box.x + kPadding, node.box.y + 15,
                svg::fitText(label, node.box.width - 2 * kPadding, kFontSize),
                {{"class", "partition-label"}});
    double detailSpace = node.box.width - 2 * kPadding - labelWidth - 8;
    if (detailSpace > svg::estimateTextWidth(detail, kDetailFontSize))
      writer.text(node.box.right() - kPadding, node.box.y + 15, detail,
                  {{"class", "partition-detail"}, {"text-anchor", "end"}});

    for (unsigned stepIndex : node.steps) {
      SubgraphStep &step = accesses.steps[stepIndex];
      const Box &box = steps[stepIndex].box;
      llvm::StringRef origin = step.subgraph.getOrigin();
      llvm::StringRef pattern = draw::getPatternName(step.subgraph);
      const draw::TargetStyle *stepStyle = getStyle(origin);
      writer.open("g", {{"class", "subgraph-invocation"},
                        {"id", "step-" + std::to_string(stepIndex)},
                        {"data-subgraph", step.subgraph.getName().str()},
                        {"data-pattern", pattern.str()},
                        {"data-origin", origin.str()},
                        {"data-invocation", std::to_string(index)}});
      writer.title(describeStep(stepIndex));
      writer.rect(box.x, box.y, box.width, box.height,
                  {{"class", "subgraph"},
                   {"rx", "4"},
                   {"fill", stepStyle ? stepStyle->fill : "#cccccc"},
                   {"stroke", stepStyle ? stepStyle->stroke : "#777777"}});
      writer.text(box.x + 8, box.y + 16,
                  svg::fitText("@" + step.subgraph.getName().str(), box.width - 16, kFontSize),
                  {{"class", "symbol"}});
      std::string what = pattern.empty() ? draw::describeLayers(step.subgraph) : pattern.str();
      writer.text(box.x + 8, box.y + 31,
                  svg::fitText(what + " \u00b7 " + origin.str(), box.width - 16, kDetailFontSize),
                  {{"class", "detail"}});
      writer.close();
    }
    writer.close();
  }
}

LogicalResult PartitionsPicture::build() {
  dataflow = collectDataflowInputs(accesses);
  detailed = accesses.steps.size() <= kMaxDetailedSteps;
  collectValues();
  if (failed(collectPartitions()))
    return failure();
  // The top boxes' height depends on the body's width and the body's
  // position on their height: place the body once to learn its width, then
  // again below the boxes.
  bodyTop = 0;
  placeProgram();
  layoutTopBoxes();
  // Below the top boxes: lanes for the edges to outputs and for those that
  // come around to their steps.
  bodyTop = topBoxesBottom + 44 + 6 * numOutputEdges;
  // A body narrower than the boxes above goes in the middle.
  double bodyWidth = bodyRight - kMargin, topWidth = legendBox.right() - kMargin;
  if (bodyWidth < topWidth)
    bodyLeft = kMargin + (topWidth - bodyWidth) / 2;
  bodyRight = 0;
  placeProgram();
  subtitle = summarize();
  width = std::max({width, bodyRight + 14 + 8 * numOutputEdges + kMargin,
                    svg::estimateTextWidth(subtitle, 12) + 2 * kMargin});
  collectEdges();
  attachEdges();
  return success();
}

void PartitionsPicture::write(llvm::raw_ostream &os) {
  svg::Writer writer(os);
  writer.begin(width, height, "Partitions of cgc.program @" + accesses.program.getName().str(),
               kStyle);
  writeDefinitions(writer);
  writer.rect(0, 0, width, height, {{"fill", "#ffffff"}});
  writeHeader(writer);
  writeTopBoxes(writer);
  writeLegend(writer);
  // Partition backgrounds, then edges, then the boxes and their steps, so
  // that edges cross partitions but not steps.
  writer.open("g", {{"class", "partition-backgrounds"}});
  for (const PartitionNode &node : partitions) {
    const draw::TargetStyle *style = getStyle(node.origin);
    writer.rect(node.box.x, node.box.y, node.box.width, node.box.height,
                {{"rx", "8"}, {"fill", style ? style->tint : "#f2f2f2"}});
  }
  writer.close();
  writeEdges(writer);
  writePartitions(writer);
  writer.end();
}

} // namespace

mlir::LogicalResult drawPartitions(ModuleOp module, llvm::raw_ostream &os) {
  ProgramOp program = getOnlyProgram(module, "drawing partitions");
  if (!program)
    return failure();
  FailureOr<ProgramAccesses> accesses = collectProgramAccesses(module, program);
  if (failed(accesses))
    return failure();
  PartitionsPicture picture(module, *accesses);
  if (failed(picture.build()))
    return failure();
  picture.write(os);
  return success();
}

} // namespace cgc::compiler
