// Not MLIR: a declaration that does not parse.
cgc.module {
  cgc_pattern.pattern @broken benefit(1) {
