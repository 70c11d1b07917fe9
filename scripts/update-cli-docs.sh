#!/usr/bin/env bash
# Keeps docs/cli.md true to the tools: copies each tool's --help into the
# block between its `<!-- BEGIN <tool> --help -->` and `<!-- END ... -->`
# markers, then checks the page.
#
#   scripts/update-cli-docs.sh BIN_DIR           rewrite the blocks, then check
#   scripts/update-cli-docs.sh --check BIN_DIR   only check (the docs.cli ctest)
#
# The checks, each failing with what to fix:
#   1. (--check) every block equals the tool's --help;
#   2. every option of a tool's --help is mentioned in that tool's section of
#      docs/cli.md outside the block (a new option needs a sentence);
#   3. every option on a command line of a cgc tool in README.md or docs/
#      (```sh blocks and `cgc-...` code spans) is an option of that tool.
#
# cgc-opt's --help also lists LLVM's global options, which differ between a
# build against libLLVM.so and a static one: its block holds the OpenCGC
# option, the passes and the MLIR options the page explains, re-aligned.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cli=$root/docs/cli.md
tools=(cgc-run cgc-compile cgc-import cgc-opt cgc-onnx-conformance)
# The MLIR options of cgc-opt that docs/cli.md explains (and its block lists).
opt_mlir_options=(-o --emit-bytecode --split-input-file --verify-diagnostics --pass-pipeline
  --dump-pass-pipeline --list-passes --verify-each --mlir-print-ir-before-all
  --mlir-print-ir-after-all --mlir-print-debuginfo --mlir-timing --show-dialects
  --allow-unregistered-dialect)

usage() {
  echo "usage: $0 [--check] BIN_DIR (the directory holding ${tools[*]})" >&2
  exit 2
}
check_only=0
if [[ ${1:-} == --check ]]; then
  check_only=1
  shift
fi
[[ $# -eq 1 && -d $1 ]] || usage
bin=$(cd "$1" && pwd)
for tool in "${tools[@]}"; do
  [[ -x $bin/$tool ]] || { echo "update-cli-docs: $bin/$tool is not built" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
problems=$work/problems
: >"$problems"
problem() { echo "$*" >>"$problems"; }

# The tool's full --help, run by its bare name so that the usage line does not
# carry the build directory.
full_help() {
  (cd "$work" && env -u COLUMNS LC_ALL=C PATH="$bin:$PATH" "$1" --help) |
    sed -e 's/[[:space:]]*$//' |
    # Runs of blank lines become one; none at the start or the end.
    awk 'NF {if (pending && printed) print ""; pending = 0; printed = 1; print; next} {pending = 1}'
}

# The "Compiler passes to run" section of cgc-opt's help (with its heading
# when $2 is "heading"): the passes (indent 6) and their options (indent 8).
opt_passes() {
  awk -v heading="${2:-}" '/^  Compiler passes to run$/ {on = 1; if (heading != "") print; next}
                           on && /^  [^ ]/ {exit}
                           on' "$1"
}

# cgc-opt's block: overview and usage, --emit-container, the passes and the
# MLIR options above, with the option column re-aligned.
opt_block() {
  local help=$1
  {
    grep -E '^OVERVIEW:' "$help" || problem "cgc-opt --help has no OVERVIEW line"
    echo
    grep -E '^(Available Dialects|USAGE):' "$help" || problem "cgc-opt --help has no USAGE line"
    echo
    echo "OpenCGC options:"
    echo
    grep -E '^  --emit-container=' "$help" || problem "cgc-opt --help has no --emit-container"
    echo
    opt_passes "$help" heading | grep . ||
      problem "cgc-opt --help has no 'Compiler passes to run' section: update opt_block in $0"
    echo
    echo "MLIR options (a selection):"
    echo
    local option
    for option in "${opt_mlir_options[@]}"; do
      grep -E -- "^  ${option}([=[ ]|\$)" "$help" ||
        problem "cgc-opt --help has no $option, which docs/cli.md explains: update the page and opt_mlir_options in $0"
    done
  } | awk '
    # Re-aligns "<indent><option> ... - <description>" lines on one column.
    { lines[NR] = $0
      if (match($0, /^ *[^ ].*[^ ] +- /) && index($0, " - ")) {
        split_at = index($0, " - ")
        name = substr($0, 1, split_at - 1); sub(/ +$/, "", name)
        names[NR] = name; texts[NR] = substr($0, split_at + 3)
        if (length(name) > width) width = length(name)
      } }
    END { for (i = 1; i <= NR; i++)
            if (i in names) { line = sprintf("%-" (width + 1) "s - %s", names[i], texts[i]); sub(/ +$/, "", line); print line }
            else print lines[i] }'
}

# 1. The blocks.
for tool in "${tools[@]}"; do
  full_help "$tool" >"$work/$tool.help"
  if [[ $tool == cgc-opt ]]; then
    opt_block "$work/$tool.help" >"$work/$tool.block"
  else
    cp "$work/$tool.help" "$work/$tool.block"
  fi
  grep -qxF "<!-- BEGIN $tool --help -->" "$cli" ||
    problem "docs/cli.md has no '<!-- BEGIN $tool --help -->' marker"
  grep -qxF "<!-- END $tool --help -->" "$cli" ||
    problem "docs/cli.md has no '<!-- END $tool --help -->' marker"
done
awk -v work="$work" '
  match($0, /^<!-- BEGIN [^ ]+ --help -->$/) {
    print; tool = $3
    print "```text"
    while ((getline line < (work "/" tool ".block")) > 0) print line
    print "```"
    skipping = 1; next }
  /^<!-- END [^ ]+ --help -->$/ { skipping = 0 }
  !skipping' "$cli" >"$work/cli.md"
if ! cmp -s "$cli" "$work/cli.md"; then
  if [[ $check_only -eq 1 ]]; then
    diff -u "$cli" "$work/cli.md" | head -60 >&2 || true
    problem "docs/cli.md: the option blocks differ from the tools' --help (diff above): run scripts/update-cli-docs.sh $bin and commit docs/cli.md"
  else
    cp "$work/cli.md" "$cli"
    echo "update-cli-docs: rewrote the option blocks of docs/cli.md"
  fi
fi

# The options a tool's help lists (long ones, and -o), one a line.
options_of() {
  local tool=$1 help=$work/$1.help
  case $tool in
  cgc-opt)
    # --emit-container, the passes (indent 6) and their options (indent 8).
    grep -oE -- '^  --emit-container' "$help" | sed 's/^ *//'
    opt_passes "$help" | grep -oE -- '^ {6,8}--[a-z0-9][a-z0-9-]*' | sed 's/^ *//' ;;
  cgc-compile | cgc-import)
    # The tool's own category.
    awk -v header="$tool options:" '$0 == header {on = 1; next} on' "$help" |
      grep -oE -- '^  --?[a-z][a-z0-9-]*' | sed 's/^ *//' ;;
  *)
    grep -oE -- '^  (-[a-z],)?--[a-z][a-z0-9-]*' "$help" | sed -E 's/^ *(-[a-z],)?//' |
      grep -vx -- '--help' ;;
  esac
}

# Every option a tool's help lists, for checking command lines: all of them.
all_options_of() {
  grep -oE -- '^ {2}(-[a-z],)?--?[a-z][a-z0-9-]*|^ {6}--cgc-[a-z0-9-]+' "$work/$1.help" |
    sed -E 's/^ *(-[a-z],)?//'
}

# The prose of a tool's section: from "## <tool>" to the next "## ", without
# its generated block.
section_prose() {
  awk -v heading="## $1" '
    $0 == heading {on = 1; next}
    on && /^## / {exit}
    /^<!-- BEGIN / {skip = 1}
    /^<!-- END / {skip = 0; next}
    on && !skip' "$cli"
}

# 2. Every option explained in its tool's section.
opt_passes "$work/cgc-opt.help" | grep -oE -- '^ {8}--[a-z0-9][a-z0-9-]*' | sed 's/^ *//' |
  sort -u >"$work/pass-options"
for tool in "${tools[@]}"; do
  section_prose "$tool" >"$work/$tool.prose"
  [[ -s $work/$tool.prose ]] || { problem "docs/cli.md has no '## $tool' section"; continue; }
  while read -r option; do
    if [[ $tool == cgc-opt ]] && grep -qxF -- "$option" "$work/pass-options"; then
      # A pass option is written in the pass's quotes: `name=...` or `name`.
      name=${option#--}
      grep -qE -- "(^|[^a-z0-9-])$name([^a-z0-9-]|\$)" "$work/$tool.prose" ||
        problem "docs/cli.md, section $tool: the pass option '$name' is not explained"
    elif ! grep -qE -- "(^|[^a-z0-9-])$option([^a-z0-9-]|\$)" "$work/$tool.prose"; then
      problem "docs/cli.md, section $tool: the option $option is not explained"
    fi
  done < <(options_of "$tool" | sort -u)
done

# 3. Command lines in the docs use only options their tool has.
for tool in "${tools[@]}"; do
  all_options_of "$tool" | sort -u >"$work/$tool.options"
done
tool_pattern=$(IFS='|'; echo "${tools[*]}")
shopt -s nullglob
for page in "$root/README.md" "$root"/docs/*.md "$root"/docs/ir/*.md; do
  # Code: ```sh/bash blocks (continuation lines joined) and `...` spans.
  awk '
    /^ *```/ { if (fence) fence = 0; else { fence = 1; shell = ($0 ~ /```(sh|bash|console)$/) } next }
    fence && shell { line = line $0; if (line ~ /\\$/) { sub(/\\$/, " ", line); next } print FNR ": " line; line = ""; next }
    !fence { rest = $0
             while (match(rest, /`[^`]+`/)) { print FNR ": " substr(rest, RSTART + 1, RLENGTH - 2); rest = substr(rest, RSTART + RLENGTH) } }' \
    "$page" >"$work/code"
  while IFS= read -r entry; do
    number=${entry%%:*}
    code=${entry#*: }
    # Each command of the line: after a tool's name, up to a shell separator or comment.
    while [[ $code =~ (^|[[:space:]/])($tool_pattern)([[:space:]][^|;&#]*|$)(.*) ]]; do
      tool=${BASH_REMATCH[2]}
      arguments=${BASH_REMATCH[3]}
      code=${BASH_REMATCH[4]}
      while read -r option; do
        grep -qxF -- "$option" "$work/$tool.options" ||
          problem "${page#"$root"/}:$number: $tool has no option $option"
      done < <(grep -oE -- '(^|[[:space:]])--[a-z][a-z0-9-]*' <<<"$arguments" | sed 's/^[[:space:]]*//')
    done
  done <"$work/code"
done

if [[ -s $problems ]]; then
  sort -u "$problems" >&2
  echo "update-cli-docs: $(sort -u "$problems" | wc -l) problem(s) in docs/cli.md or the docs' command lines" >&2
  exit 1
fi
echo "update-cli-docs: docs/cli.md matches the tools' --help and explains every option;" \
  "the docs' command lines use only existing options"
