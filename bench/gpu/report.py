"""The markdown report of bench/gpu/benchmark.py: one table per model and
batch, and the targets marked met, not met or not measured. Also what the
JSON's fields mean (TIMING) and the targets' thresholds.

    python3 bench/gpu/benchmark.py --report-only [--results FILE.json]
"""

MODELS = ("resnet50", "mobilenet_v2", "vit_b_16", "bert_base")
TITLES = {
    "resnet50": "ResNet-50",
    "mobilenet_v2": "MobileNetV2",
    "vit_b_16": "ViT-B/16",
    "bert_base": "BERT-base (sequence 128)",
}
UNITS = {"bert_base": "sequences"}
FRAMEWORKS = ("opencgc", "eager", "compile")
FRAMEWORK_TITLES = {"opencgc": "OpenCGC", "eager": "PyTorch eager", "compile": "torch.compile"}

# The targets.
TARGET_RATIO_TO_COMPILE = 0.8
TARGET_RESNET50_THROUGHPUT = 44000.0
TARGET_COLD_COMPILE_SECONDS = 3.0

TIMING = {
    "opencgc": "cgc-run --benchmark: the device's clock, two device timestamps around each "
               "execution of a command list holding the dispatches alone (inputs left on the "
               "device by the last run), as CUDA events around a call time PyTorch "
               "(Session::timeRuns; the host steady clock where the device has no timestamp "
               "queries); host-timed adds the submission and the fence wait around the same "
               "list's executions; end_to_end adds upload and readback (Session::run)",
    "torch": "CUDA events recorded on the current stream before and after each call; "
             "elapsed_time after the end event completes",
    "opencgc_cold_compile": "ONNX import + Session load (parse, graph compile, device "
                            "creation) + compile (state objects, buffers, constants upload) "
                            "of a fresh cgc-run process",
    "compile_cold_compile": "first call of the torch.compile'd module (compilation included, "
                            "fresh Inductor/Triton caches) until torch.cuda.synchronize()",
    "opencgc_memory": "device_bytes: SessionStats.deviceBytes, every device buffer of the "
                      "session; nvidia_smi_peak_bytes: the cgc-run process's used GPU memory from "
                      "nvidia-smi --query-compute-apps (CUDA context and library workspaces "
                      "included), the largest value polled while it ran",
    "torch_memory": "torch.cuda.max_memory_allocated() over warm-up and timed runs after "
                    "reset_peak_memory_stats (weights, activations, CUDA graph pools; not the "
                    "CUDA context); max_memory_reserved alongside",
}


def fmt_seconds(seconds):
    if seconds is None:
        return "—"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.3f} ms"
    return f"{seconds:.2f} s"


def fmt_bytes(count):
    if count is None:
        return "—"
    return f"{count / 2**20:,.0f} MiB" if count >= 2**20 else f"{count / 2**10:,.1f} KiB"


def median_of(entry):
    if not entry or not entry.get("ok") or not entry.get("latency"):
        return None
    return entry["latency"]["median"]


def evaluate_targets(points):
    """Each target: (description, measured, status), status met / not met / not measured."""
    targets = []
    # OpenCGC <= 0.8x torch.compile at every point.
    ratios, missing = [], []
    for point in points:
        ours, theirs = median_of(point.get("opencgc")), median_of(point.get("compile"))
        label = f"{TITLES.get(point['model'], point['model'])} b{point['batch']}"
        if ours is None or theirs is None:
            missing.append(label)
        else:
            ratios.append((ours / theirs, label))
    if ratios:
        worst = max(ratios)
        measured = f"worst {worst[0]:.2f}x ({worst[1]}) over {len(ratios)} point(s)"
    else:
        measured = "no point measured by both"
    if missing:
        measured += "; not measured: " + ", ".join(missing)
    if any(ratio > TARGET_RATIO_TO_COMPILE for ratio, _ in ratios):
        status = "not met"
    elif missing or not ratios:
        status = "not measured"
    else:
        status = "met"
    targets.append((f"OpenCGC latency <= {TARGET_RATIO_TO_COMPILE}x torch.compile at every point",
                    measured, status))

    # ResNet-50 large-batch throughput: at the largest batch measured (32 or more), as a
    # throughput run would choose it.
    resnets = [p for p in points if p["model"] == "resnet50" and p["batch"] >= 32
               and median_of(p.get("opencgc")) is not None]
    resnet = max(resnets, key=lambda p: p["batch"], default=None)
    label = (f"ResNet-50 large-batch throughput >= {TARGET_RESNET50_THROUGHPUT:,.0f} images/s")
    if resnet is None:
        targets.append((label, "not measured", "not measured"))
    else:
        throughput = resnet["batch"] / median_of(resnet.get("opencgc"))
        targets.append((label, f"{throughput:,.0f} images/s at batch {resnet['batch']}",
                        "met" if throughput >= TARGET_RESNET50_THROUGHPUT else "not met"))

    # Cold compile.
    colds, missing = [], []
    for point in points:
        entry = point.get("opencgc")
        label = f"{TITLES.get(point['model'], point['model'])} b{point['batch']}"
        if entry and entry.get("ok"):
            colds.append((entry["cold_compile_seconds"], label))
        else:
            missing.append(label)
    if colds:
        worst = max(colds)
        measured = f"worst {worst[0]:.2f} s ({worst[1]}) over {len(colds)} point(s)"
    else:
        measured = "not measured"
    if missing:
        measured += "; not measured: " + ", ".join(missing)
    if any(seconds > TARGET_COLD_COMPILE_SECONDS for seconds, _ in colds):
        status = "not met"
    elif missing or not colds:
        status = "not measured"
    else:
        status = "met"
    targets.append((f"OpenCGC cold compile (import + load + compile) <= "
                    f"{TARGET_COLD_COMPILE_SECONDS:g} s", measured, status))
    return targets


def point_table(point):
    """One markdown table: a row per figure, a column per framework."""
    unit = UNITS.get(point["model"], "images")
    entries = {framework: point.get(framework) for framework in FRAMEWORKS}
    ok = {framework: bool(entry and entry.get("ok")) for framework, entry in entries.items()}

    def cell(framework, value):
        entry = entries[framework]
        if entry is None:
            return "not run"
        if not entry.get("ok"):
            return "failed"
        return value(entry)

    def latency(key):
        return lambda e: fmt_seconds(e["latency"][key])

    rows = []
    header = "| | " + " | ".join(FRAMEWORK_TITLES[f] for f in FRAMEWORKS) + " |"
    rows.append(header)
    rows.append("|---|" + "---:|" * len(FRAMEWORKS))

    def row(title, value, frameworks=FRAMEWORKS):
        cells = [cell(f, value) if f in frameworks else "—" for f in FRAMEWORKS]
        rows.append(f"| {title} | " + " | ".join(cells) + " |")

    row("median latency", latency("median"))
    row("mean latency", latency("mean"))
    row("min latency", latency("min"))
    row("p90 latency", latency("p90"))
    row(f"throughput ({unit}/s, from the median)",
        lambda e: f"{point['batch'] / e['latency']['median']:,.0f}")
    ours = median_of(entries["opencgc"])

    def ratio(entry):
        theirs = median_of(entry)
        return f"{ours / theirs:.2f}x" if ours is not None and theirs else "—"

    rows.append("| OpenCGC latency / this | — | " + " | ".join(
        ratio(entries[f]) if ok[f] else "—" for f in FRAMEWORKS[1:]) + " |")
    # Results timed on the device's clock keep the host-timed figure too.
    if (entries.get("opencgc") or {}).get("host_latency"):
        row("OpenCGC host-timed (submission and fence wait included), median",
            lambda e: fmt_seconds(e["host_latency"]["median"]), ("opencgc",))
    row("OpenCGC end to end (upload, run, readback), median",
        lambda e: fmt_seconds(e["end_to_end"]["median"]) if e.get("end_to_end") else "—",
        ("opencgc",))
    row("cold compile",
        lambda e: (f"{e['cold_compile_seconds']:.2f} s"
                   + (f" (import {e['import_seconds']:.2f} + load {e['load_seconds']:.2f} + "
                      f"compile {e['compile_seconds']:.2f})" if "load_seconds" in e else ""))
        if e.get("cold_compile_seconds") is not None else "—",
        ("opencgc", "compile"))
    row("peak GPU memory",
        lambda e: (f"{fmt_bytes(e['device_bytes'])} session buffers; "
                   f"{fmt_bytes(e.get('nvidia_smi_peak_bytes'))} process (nvidia-smi)")
        if "device_bytes" in e else
        f"{fmt_bytes(e['peak_allocated_bytes'])} allocated "
        f"({fmt_bytes(e['peak_reserved_bytes'])} reserved)")
    row("max relative error vs float32 (CPU)",
        lambda e: f"{e['max_relative_error']:.2e}" if e.get("max_relative_error") is not None
        else "—")
    lines = rows
    errors = [(f, entries[f]["error"]) for f in FRAMEWORKS
              if entries[f] is not None and not entries[f].get("ok")]
    for framework, message in errors:
        lines.append("")
        lines.append(f"{FRAMEWORK_TITLES[framework]} failed:")
        lines.append("")
        lines.append("```")
        lines.extend(message.splitlines()[-15:])
        lines.append("```")
    return lines


def write_report(results, path):
    points = results.get("points", [])
    lines = [f"# OpenCGC vs PyTorch: {results.get('gpu', 'GPU')}, {results.get('precision')}",
             "",
             f"Date {results.get('date')}. {results.get('settings', {}).get('runs')} timed runs "
             f"after {results.get('settings', {}).get('warmup')} warm-up runs per point; "
             "latencies are medians.",
             ""]
    software = results.get("software", {})
    if software:
        lines.append("Software: " + ", ".join(f"{k} {v}" for k, v in software.items()) + ".")
        lines.append("")
    lines.append("How each is measured:")
    lines.append("")
    timing = {**TIMING, **results.get("timing", {})}
    lines.append(f"- OpenCGC latency: {timing['opencgc']}.")
    lines.append(f"- PyTorch eager and torch.compile(mode=\"reduce-overhead\") latency: "
                 f"{timing['torch']}.")
    lines.append(f"- OpenCGC cold compile: {timing['opencgc_cold_compile']}; torch.compile cold "
                 f"compile: {timing['compile_cold_compile']}.")
    lines.append(f"- OpenCGC memory: {timing['opencgc_memory']}.")
    lines.append(f"- PyTorch memory: {timing['torch_memory']}.")
    lines.append("")
    lines.append("## Targets")
    lines.append("")
    lines.append("| target | measured | status |")
    lines.append("|---|---|---|")
    for description, measured, status in evaluate_targets(points):
        lines.append(f"| {description} | {measured} | **{status}** |")
    for point in points:
        lines.append("")
        lines.append(f"## {TITLES.get(point['model'], point['model'])}, batch {point['batch']}")
        lines.append("")
        lines.extend(point_table(point))
    lines.append("")
    with open(path, "w") as file:
        file.write("\n".join(lines))
