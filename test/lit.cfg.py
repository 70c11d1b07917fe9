# lit configuration for OpenCGC's IR, pass and tool tests.
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "OpenCGC"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.cgc_obj_root, "test")

config.substitutions.append(("%cgc_src_root", config.cgc_src_root))
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(["cgc-opt"], [config.cgc_tools_dir])
# The ONNX importer's tests need the importer (libonnx at configure time).
if os.path.exists(os.path.join(config.cgc_tools_dir, "cgc-import")):
    config.available_features.add("onnx")
    llvm_config.add_tool_substitutions(["cgc-import", "cgc-onnx-testgen"], [config.cgc_tools_dir])
    if os.path.exists(os.path.join(config.cgc_tools_dir, "cgc-run")):
        config.available_features.add("cgc-run")
        llvm_config.add_tool_substitutions(["cgc-run"], [config.cgc_tools_dir])
    if os.path.exists(os.path.join(config.cgc_tools_dir, "cgc-compile")):
        config.available_features.add("cgc-compile")
        llvm_config.add_tool_substitutions(["cgc-compile"], [config.cgc_tools_dir])
# The conformance runner's own tests copy ONNX's backend test data.
if os.path.exists(os.path.join(config.cgc_tools_dir, "cgc-onnx-conformance")) and \
        os.path.isdir(os.path.join(config.onnx_test_data, "node")):
    config.available_features.add("onnx-conformance")
    config.substitutions.append(("%onnx_test_data", config.onnx_test_data))
    llvm_config.add_tool_substitutions(["cgc-onnx-conformance"], [config.cgc_tools_dir])
llvm_config.add_tool_substitutions(["FileCheck", "not", "count"], [config.llvm_tools_dir])
