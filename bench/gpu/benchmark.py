#!/usr/bin/env python3
"""Benchmarks OpenCGC against PyTorch on one NVIDIA GPU: ResNet-50,
MobileNetV2, ViT-B/16 and BERT-base (sequence 128) at batch 1 and 32, in
float16, with random weights (no network needed).

Per model and batch, in one process on one GPU:
  * OpenCGC: a fresh `cgc-run` process on the float32 ONNX export with
    `--device cuda --precision float16` (converted at load; inputs and outputs
    stay float32). Latency: cgc-run's device-resident timing
    (Session::timeRuns) of the dispatches alone (inputs already on the
    device) on the device's clock, between two device timestamps, as CUDA
    events time PyTorch; the host-timed figure (submission and fence wait
    included) is kept beside it.
    Cold compile: that process's ONNX import + load + compile seconds.
    Memory: SessionStats.deviceBytes (the session's device buffers: inputs,
    outputs, scratch, constants, temporary and persistent resources), and
    the process's GPU memory as nvidia-smi reports it (context and library
    workspaces included), polled while it runs.
  * PyTorch eager: model.half().cuda() under torch.inference_mode().
  * torch.compile(model, mode="reduce-overhead") under torch.no_grad(), with
    fresh Inductor and Triton cache directories; cold compile: the first call
    (compilation included) to its completion on the GPU.
  PyTorch is timed with CUDA events around each call; its memory is
  torch.cuda.max_memory_allocated() over warm-up and timed runs after a reset
  (weights included; the CUDA context is not).
Each latency is the median of --runs timed runs after --warmup untimed ones.
Each framework also reports the largest relative error of its first output,
max|y - y_ref| / max|y_ref|, against PyTorch's float32 CPU output.

    python3 bench/gpu/benchmark.py --bundle BUNDLE [--models resnet50] [--batches 1,32]
        [--runs 100] [--warmup 20] [--out bench/results] [--merge] [--only opencgc|torch]
        [--skip-compile]
    python3 bench/gpu/benchmark.py --report-only [--results FILE.json]

Writes OUT/<date>-<gpu>.json and the same name with .md: one table per model
and batch, and the targets (OpenCGC <= 0.8x torch.compile latency at every
point; ResNet-50 float16 large-batch (batch 256) throughput >= 44,000 images/s; cold compile <= 3 s)
marked met or not met. With --merge, the points measured now replace those
of the same model and batch (per framework) in an existing JSON, so the
benchmark can run one model per invocation. A framework that fails at a
point is recorded with its error; the others still run.
"""
import argparse
import datetime
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
# export_models.py: build() of the reference models (their export runs as a
# script, export_point).
sys.path.insert(0, os.path.join(HERE, "..", "models"))
sys.path.insert(0, HERE)
from report import FRAMEWORK_TITLES, MODELS, TARGET_COLD_COMPILE_SECONDS  # noqa: E402
from report import TARGET_RATIO_TO_COMPILE, TARGET_RESNET50_THROUGHPUT, TIMING  # noqa: E402
from report import write_report  # noqa: E402

def slugify(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "gpu"


def summarize(samples):
    """Latency figures (seconds) of a series: nearest-rank percentiles."""
    ordered = sorted(samples)
    count = len(ordered)
    if not count:
        return None

    def percentile(p):
        rank = min(max(int(math.ceil(p / 100.0 * count)), 1), count)
        return ordered[rank - 1]

    return {
        "runs": count,
        "min": ordered[0],
        "median": (ordered[(count - 1) // 2] + ordered[count // 2]) / 2,
        "mean": sum(ordered) / count,
        "p90": percentile(90),
        "p99": percentile(99),
        "max": ordered[-1],
    }


def error_text(exc):
    lines = traceback.format_exception_only(type(exc), exc)
    return "".join(lines).strip()[-2000:]


def relative_error(actual, expected):
    """max|a - e| / max|e| as numpy float64, or None when it cannot be computed."""
    import numpy as np

    a = np.asarray(actual, dtype=np.float64)
    e = np.asarray(expected, dtype=np.float64)
    if a.shape != e.shape:
        return None
    scale = float(np.abs(e).max()) if e.size else 0.0
    if scale == 0.0:
        return None
    return float(np.abs(a - e).max() / scale)


# ----------------------------------------------------------------------------
# Models
# ----------------------------------------------------------------------------


def export_point(model, batch, work, opset):
    """Exports the float32 ONNX model of one point (bench/models/export_models.py)
    unless already there; returns its directory (model.onnx, inputs.txt,
    input_<i>.npy, expected_<i>.npy).

    The export runs in a process of its own that has exited before OpenCGC's
    cold compile is timed: run in this one, its CPU work (torch's thread
    pools, the ONNX exporter) overlapped the cgc-run process right after it
    and added up to 2 s to its compile (H100 machine, 16 cores: BERT-base
    batch 1 3.46 s against 1.18 s with the export already on disk)."""
    root = os.path.join(work, f"b{batch}")
    directory = os.path.join(root, model)
    done = os.path.join(directory, "exported")
    if not os.path.exists(done):
        script = os.path.join(HERE, "..", "models", "export_models.py")
        subprocess.run([sys.executable, script, "--out", root, "--models", model,
                        "--batch", str(batch), "--opset", str(opset)], check=True)
        with open(done, "w") as marker:
            marker.write("ok\n")
    return directory


def read_inputs(directory):
    """The exported inputs as (name, file) pairs, in order."""
    pairs = []
    with open(os.path.join(directory, "inputs.txt")) as listing:
        for line in listing:
            line = line.strip()
            if line:
                name, file = line.split("=", 1)
                pairs.append((name, os.path.join(directory, file)))
    return pairs


def expected_output(directory):
    import numpy as np

    return np.load(os.path.join(directory, "expected_0.npy"))


# ----------------------------------------------------------------------------
# OpenCGC
# ----------------------------------------------------------------------------


def query_compute_apps():
    """{pid: used MiB} of the processes nvidia-smi lists on the GPUs."""
    out = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,used_memory",
                          "--format=csv,noheader,nounits"],
                         capture_output=True, text=True, timeout=10, check=True).stdout
    apps = {}
    for line in out.splitlines():
        fields = [field.strip() for field in line.split(",")]
        if len(fields) == 2 and fields[0].isdigit() and fields[1].isdigit():
            apps[int(fields[0])] = int(fields[1])
    return apps


class GpuMemoryPoller:
    """Polls nvidia-smi for the used GPU memory of the process started inside
    the `with` block; keeps the largest value. Inside a PID namespace
    nvidia-smi lists host pids: the process is then the only one not listed
    before it started."""

    def __init__(self, interval):
        self.interval = interval
        self.pid = None
        self.peak_mib = None
        self.error = None
        self.matched = None  # "pid" or "only new process"
        self._before = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        if shutil.which("nvidia-smi") is None:
            self.error = "nvidia-smi is not installed"
            return self
        try:
            self._before = set(query_compute_apps())
        except (OSError, subprocess.SubprocessError) as exc:
            self.error = "nvidia-smi: " + error_text(exc)
        return self

    def start(self, pid):
        self.pid = pid
        if self.error is None:
            self._thread.start()

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=15)

    def _run(self):
        while not self._stop.is_set():
            try:
                apps = query_compute_apps()
            except (OSError, subprocess.SubprocessError) as exc:
                self.error = "nvidia-smi: " + error_text(exc)
                return
            new = [pid for pid in apps if pid not in self._before]
            value = None
            if self.pid in apps:
                value, self.matched = apps[self.pid], "pid"
            elif len(new) == 1:
                value, self.matched = apps[new[0]], "only new process"
            if value is not None:
                self.peak_mib = value if self.peak_mib is None else max(self.peak_mib, value)
            self._stop.wait(self.interval)


def run_opencgc(args, directory, work):
    """One fresh cgc-run process: benchmark JSON, outputs, nvidia-smi memory."""
    import numpy as np

    bundle = os.path.abspath(args.bundle)
    binary = os.path.join(bundle, "bin", "cgc-run")
    if not os.path.exists(binary):
        raise RuntimeError(f"{binary} does not exist (--bundle names a directory made by "
                           "scripts/bundle.sh)")
    report_path = os.path.join(work, "cgc-run.json")
    outputs = os.path.join(work, "cgc-run-outputs")
    if os.path.exists(report_path):
        os.remove(report_path)
    shutil.rmtree(outputs, ignore_errors=True)
    command = [binary, os.path.join(directory, "model.onnx"), "--device", args.device,
               "--precision", args.precision]
    for name, file in read_inputs(directory):
        command += ["--input", f"{name}={file}"]
    command += ["--output-dir", outputs, "--benchmark", str(args.runs),
                "--benchmark-warmup", str(args.warmup), "--benchmark-json", report_path]
    environment = dict(os.environ)
    library = os.path.join(bundle, "lib")
    environment["LD_LIBRARY_PATH"] = library + (
        ":" + environment["LD_LIBRARY_PATH"] if environment.get("LD_LIBRARY_PATH") else "")
    environment["CGC_DRIVER_PATH"] = os.path.join(library, "cgc-drivers")

    log_path = os.path.join(work, "cgc-run.log")
    started = time.perf_counter()
    with open(log_path, "w") as log, GpuMemoryPoller(args.smi_interval) as poller:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=environment)
        if not args.no_smi:
            poller.start(process.pid)
        try:
            status = process.wait(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            status = None
    wall = time.perf_counter() - started
    with open(log_path) as log:
        text = log.read()
    # Recorded with the machine's directories as $BUNDLE and $WORK, so
    # that results name no paths of the machine they came from.
    recorded = " ".join(command).replace(bundle, "$BUNDLE")
    work_root = os.path.dirname(os.path.dirname(os.path.abspath(directory)))
    recorded = recorded.replace(work_root, "$WORK")
    result = {"command": recorded, "process_seconds": wall, "log_tail": text[-3000:]}
    if status is None:
        raise RuntimeError(f"cgc-run ran past --timeout {args.timeout} s; last output:\n"
                           + text[-1500:])
    if status != 0:
        raise RuntimeError(f"cgc-run exited with status {status}:\n" + text[-1500:])
    with open(report_path) as file:
        report = json.load(file)
    benchmark = report.get("benchmark") or {}
    device_resident = benchmark.get("device_resident")
    device_clock = benchmark.get("device_resident_device_clock")
    end_to_end = benchmark.get("end_to_end")
    if not device_resident:
        raise RuntimeError(f"{report_path} holds no device-resident timing")
    import_seconds = report.get("import_seconds", 0.0) or 0.0
    result.update({
        "ok": True,
        # The device's clock where it has timestamp queries, as PyTorch's
        # CUDA events; the host's otherwise.
        "latency": without_samples(device_clock or device_resident),
        "latency_clock": "device" if device_clock else "host",
        "host_latency": without_samples(device_resident),
        "end_to_end": without_samples(end_to_end),
        "input_uploads_in_timing": device_resident.get("input_uploads", 0),
        "import_seconds": import_seconds,
        "load_seconds": report["load_seconds"],
        "compile_seconds": report["compile_seconds"],
        "cold_compile_seconds": import_seconds + report["load_seconds"] + report["compile_seconds"],
        "first_run_seconds": report.get("first_run_seconds"),
        "device_bytes": report["device_bytes"],
        "nvidia_smi_peak_bytes": poller.peak_mib * 2**20 if poller.peak_mib is not None else None,
        "nvidia_smi_matched_by": poller.matched,
        "nvidia_smi_error": poller.error if poller.peak_mib is None else None,
        "adapter": report.get("adapter"),
        "partitions": report.get("partitions"),
        "dispatches": report.get("dispatches"),
    })
    if args.no_smi:
        result["nvidia_smi_error"] = "not polled (--no-smi)"
    elif result["nvidia_smi_peak_bytes"] is None and not poller.error:
        result["nvidia_smi_error"] = "nvidia-smi listed no process that could be cgc-run"
    # The first output, as cgc-run names its file.
    names = [output["name"] for output in report.get("outputs", [])]
    if names:
        file = os.path.join(outputs, re.sub(r"[^A-Za-z0-9._-]", "_", names[0]) + ".npy")
        if os.path.exists(file):
            result["max_relative_error"] = relative_error(np.load(file),
                                                          expected_output(directory))
    return result


def without_samples(figures):
    """cgc-run's latency figures without the per-run samples."""
    if not figures:
        return None
    return {key: value for key, value in figures.items() if key != "samples"}


# ----------------------------------------------------------------------------
# PyTorch
# ----------------------------------------------------------------------------


def torch_point(model_name, batch, precision):
    """The model on the GPU in `precision` and its inputs (the exported ones)."""
    import torch

    import export_models

    model, inputs = export_models.build(model_name, batch)
    if model_name == "bert_base":
        model = export_models.FirstOutput(model)
    dtype = torch.float16 if precision == "float16" else torch.float32
    model = model.to(device="cuda", dtype=dtype).eval()
    args = []
    for _, tensor in inputs:
        tensor = tensor.to("cuda")
        args.append(tensor.to(dtype) if tensor.is_floating_point() else tensor)
    return model, tuple(args)


def first_output(value):
    if isinstance(value, (tuple, list)):
        return first_output(value[0])
    if hasattr(value, "last_hidden_state"):
        return value.last_hidden_state
    return value


def time_calls(call, runs, warmup):
    """Seconds per call, by CUDA events on the current stream."""
    import torch

    for _ in range(warmup):
        call()
    torch.cuda.synchronize()
    seconds = []
    for _ in range(runs):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        call()
        end.record()
        end.synchronize()
        seconds.append(start.elapsed_time(end) / 1000.0)
    return seconds


def release_gpu():
    import gc

    import torch

    gc.collect()
    torch.cuda.synchronize()
    torch.cuda.empty_cache()


def run_eager(args, model_name, batch, directory):
    import torch

    try:
        model, inputs = torch_point(model_name, batch, args.precision)
        release_gpu()
        torch.cuda.reset_peak_memory_stats()
        with torch.inference_mode():
            reference = first_output(model(*inputs)).float().cpu().numpy()
            seconds = time_calls(lambda: model(*inputs), args.runs, args.warmup)
        result = {
            "ok": True,
            "latency": summarize(seconds),
            "peak_allocated_bytes": torch.cuda.max_memory_allocated(),
            "peak_reserved_bytes": torch.cuda.max_memory_reserved(),
            "max_relative_error": relative_error(reference, expected_output(directory)),
        }
    finally:
        model = inputs = None
        release_gpu()
    return result


def fresh_compile_caches(work):
    """Points Inductor and Triton at empty cache directories and turns off
    the caches that live elsewhere, so that the first call compiles cold."""
    import torch
    import torch._dynamo

    caches = tempfile.mkdtemp(prefix="compile-cache-", dir=work)
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(caches, "inductor")
    os.environ["TRITON_CACHE_DIR"] = os.path.join(caches, "triton")
    import torch._inductor.config as inductor_config

    for name in ("fx_graph_cache", "fx_graph_remote_cache", "autotune_local_cache",
                 "autotune_remote_cache", "bundled_autotune_remote_cache"):
        if hasattr(inductor_config, name):
            setattr(inductor_config, name, False)
    import torch._functorch.config as functorch_config

    for name in ("enable_autograd_cache", "enable_remote_autograd_cache"):
        if hasattr(functorch_config, name):
            setattr(functorch_config, name, False)
    torch._dynamo.reset()
    return caches


def run_compile(args, model_name, batch, directory, work):
    import torch
    import torch._dynamo

    caches = None
    try:
        model, inputs = torch_point(model_name, batch, args.precision)
        caches = fresh_compile_caches(work)
        release_gpu()
        torch.cuda.reset_peak_memory_stats()
        compiled = torch.compile(model, mode="reduce-overhead")
        mark_step = getattr(torch.compiler, "cudagraph_mark_step_begin", None)

        def call():
            # Each call is a new inference step for CUDA graph trees.
            if mark_step is not None:
                mark_step()
            return compiled(*inputs)

        with torch.no_grad():
            torch.cuda.synchronize()
            started = time.perf_counter()
            reference = first_output(call())
            torch.cuda.synchronize()
            cold = time.perf_counter() - started
            reference = reference.float().cpu().numpy()
            seconds = time_calls(call, args.runs, args.warmup)
        result = {
            "ok": True,
            "latency": summarize(seconds),
            "cold_compile_seconds": cold,
            "peak_allocated_bytes": torch.cuda.max_memory_allocated(),
            "peak_reserved_bytes": torch.cuda.max_memory_reserved(),
            "max_relative_error": relative_error(reference, expected_output(directory)),
        }
    finally:
        compiled = model = inputs = None
        torch._dynamo.reset()
        release_gpu()
        if caches:
            shutil.rmtree(caches, ignore_errors=True)
    return result


# ----------------------------------------------------------------------------
# One point
# ----------------------------------------------------------------------------


def measure(args, model, batch, work):
    """Every requested framework at one point; errors are recorded, not raised."""
    point = {"model": model, "batch": batch,
             "updated": datetime.datetime.now().isoformat(timespec="seconds")}
    point_work = os.path.join(work, f"{model}-b{batch}")
    os.makedirs(point_work, exist_ok=True)
    try:
        directory = export_point(model, batch, work, args.opset)
    except Exception as exc:  # noqa: BLE001 - recorded per point
        message = "exporting the ONNX model: " + error_text(exc)
        print(f"  FAILED: {message.splitlines()[-1]}", flush=True)
        for framework in selected_frameworks(args):
            point[framework] = {"ok": False, "error": message}
        return point

    steps = []
    if args.only in (None, "opencgc"):
        steps.append(("opencgc", lambda: run_opencgc(args, directory, point_work)))
    if args.only in (None, "torch"):
        steps.append(("eager", lambda: run_eager(args, model, batch, directory)))
        if not args.skip_compile:
            steps.append(("compile",
                          lambda: run_compile(args, model, batch, directory, point_work)))
    for framework, step in steps:
        print(f"  {FRAMEWORK_TITLES[framework]} ...", flush=True)
        try:
            point[framework] = step()
        except Exception as exc:  # noqa: BLE001 - one failing framework must not end the run
            point[framework] = {"ok": False, "error": error_text(exc)}
            if args.verbose:
                traceback.print_exc()
        entry = point[framework]
        if entry.get("ok"):
            median = entry["latency"]["median"]
            print(f"  {FRAMEWORK_TITLES[framework]}: median {median * 1e3:.3f} ms", flush=True)
        else:
            print(f"  {FRAMEWORK_TITLES[framework]}: FAILED: {entry['error'].splitlines()[-1]}",
                  flush=True)
    return point


def selected_frameworks(args):
    frameworks = []
    if args.only in (None, "opencgc"):
        frameworks.append("opencgc")
    if args.only in (None, "torch"):
        frameworks.append("eager")
        if not args.skip_compile:
            frameworks.append("compile")
    return frameworks


# ----------------------------------------------------------------------------
# Results
# ----------------------------------------------------------------------------


def merge_points(existing, new_points):
    """Replaces, per framework, the entries of points with the same model and batch."""
    by_key = {(p["model"], p["batch"]): p for p in existing}
    order = [(p["model"], p["batch"]) for p in existing]
    for point in new_points:
        key = (point["model"], point["batch"])
        if key in by_key:
            by_key[key].update(point)
        else:
            by_key[key] = point
            order.append(key)
    model_rank = {name: index for index, name in enumerate(MODELS)}
    order.sort(key=lambda key: (model_rank.get(key[0], len(MODELS)), key[0], key[1]))
    return [by_key[key] for key in order]


def software_versions():
    import torch

    versions = {"python": sys.version.split()[0], "torch": torch.__version__,
                "CUDA (torch)": torch.version.cuda}
    if torch.backends.cudnn.is_available():
        versions["cuDNN (torch)"] = torch.backends.cudnn.version()
    for module in ("torchvision", "transformers"):
        try:
            versions[module] = __import__(module).__version__
        except Exception:  # noqa: BLE001 - optional information
            pass
    try:
        driver = subprocess.run(["nvidia-smi", "--query-gpu=driver_version",
                                 "--format=csv,noheader"], capture_output=True, text=True,
                                timeout=10).stdout.strip().splitlines()
        if driver:
            versions["NVIDIA driver"] = driver[0]
    except (OSError, subprocess.SubprocessError):
        pass
    return versions


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bundle", help="a directory made by scripts/bundle.sh")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--batches", default="1,32")
    parser.add_argument("--runs", type=int, default=100, help="timed runs per point (>= 50)")
    parser.add_argument("--warmup", type=int, default=20, help="untimed runs before them")
    parser.add_argument("--out", default=os.path.join(HERE, "..", "results"))
    parser.add_argument("--results", help="the JSON file (default OUT/<date>-<gpu>.json)")
    parser.add_argument("--date", default=datetime.date.today().isoformat(),
                        help="the date in the default file name (YYYY-MM-DD)")
    parser.add_argument("--merge", action="store_true",
                        help="merge into an existing JSON instead of starting a new one")
    parser.add_argument("--report-only", action="store_true",
                        help="only regenerate the markdown from the JSON")
    parser.add_argument("--only", choices=("opencgc", "torch"))
    parser.add_argument("--skip-compile", action="store_true", help="skip torch.compile")
    parser.add_argument("--precision", default="float16", choices=("float16", "float32"))
    parser.add_argument("--device", default="cuda", help="cgc-run's --device")
    parser.add_argument("--opset", type=int, default=17)
    parser.add_argument("--timeout", type=int, default=480, help="seconds per cgc-run process")
    parser.add_argument("--smi-interval", type=float, default=0.5,
                        help="seconds between nvidia-smi polls while cgc-run runs")
    parser.add_argument("--no-smi", action="store_true",
                        help="do not poll nvidia-smi while cgc-run runs")
    parser.add_argument("--work", help="where ONNX exports go (default: a temporary directory)")
    parser.add_argument("--verbose", action="store_true", help="print tracebacks of failures")
    args = parser.parse_args()

    if args.report_only:
        path = args.results or default_results_path(args)
        with open(path) as file:
            results = json.load(file)
        markdown = os.path.splitext(path)[0] + ".md"
        write_report(results, markdown)
        print(f"wrote {markdown}")
        return 0

    if not args.bundle and args.only != "torch":
        parser.error("--bundle is required unless --only torch")
    if args.runs < 1 or args.warmup < 0:
        parser.error("--runs must be positive and --warmup non-negative")
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    for model in models:
        if model not in MODELS:
            parser.error(f"unknown model {model!r}; choose from {', '.join(MODELS)}")
    try:
        batches = [int(b) for b in args.batches.split(",") if b.strip()]
    except ValueError:
        parser.error(f"--batches {args.batches!r}: expected integers separated by commas")

    work = args.work or tempfile.mkdtemp(prefix="cgc-bench-")
    os.makedirs(work, exist_ok=True)
    # Before torch is imported: no compilation cache from an earlier process.
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="inductor-", dir=work)
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="triton-", dir=work)
    try:
        return run(args, models, batches, work)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)


def run(args, models, batches, work):
    """Measures every point, saving the JSON and markdown after each."""
    import torch

    if not torch.cuda.is_available():
        print("benchmark.py: error: PyTorch sees no CUDA device", file=sys.stderr)
        return 1
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    torch.backends.cudnn.benchmark = True
    gpu = torch.cuda.get_device_name(0)
    path = args.results or os.path.join(args.out, f"{args.date}-{slugify(gpu)}.json")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)

    results = None
    if args.merge and os.path.exists(path):
        with open(path) as file:
            results = json.load(file)
        if results.get("precision") != args.precision:
            print(f"benchmark.py: error: {path} holds {results.get('precision')} results; "
                  f"this run is {args.precision}", file=sys.stderr)
            return 1
    if results is None:
        results = {"points": []}
    results.update({
        "gpu": gpu,
        "date": args.date,
        "precision": args.precision,
        "software": software_versions(),
        "settings": {"runs": args.runs, "warmup": args.warmup, "cudnn_benchmark": True},
        "timing": TIMING,
        "targets": {"ratio_to_torch_compile": TARGET_RATIO_TO_COMPILE,
                    "resnet50_large_batch_throughput": TARGET_RESNET50_THROUGHPUT,
                    "cold_compile_seconds": TARGET_COLD_COMPILE_SECONDS},
    })

    markdown = os.path.splitext(path)[0] + ".md"
    for model in models:
        for batch in batches:
            print(f"{model} batch {batch} ({gpu}, {args.precision})", flush=True)
            point = measure(args, model, batch, work)
            # Saved after every point: a later failure or time limit keeps it.
            results["points"] = merge_points(results["points"], [point])
            with open(path, "w") as file:
                json.dump(results, file, indent=2)
            write_report(results, markdown)
    print(f"wrote {path} and {markdown}")
    return 0


def default_results_path(args):
    """OUT/<date>-<gpu>.json; the GPU's name from PyTorch, else the only
    JSON of that date in OUT."""
    try:
        import torch

        if torch.cuda.is_available():
            gpu = slugify(torch.cuda.get_device_name(0))
            return os.path.join(args.out, f"{args.date}-{gpu}.json")
    except ImportError:
        pass
    candidates = sorted(name for name in os.listdir(args.out)
                        if name.startswith(args.date) and name.endswith(".json"))
    if len(candidates) != 1:
        raise SystemExit(f"benchmark.py: error: pass --results; {len(candidates)} JSON file(s) "
                         f"of {args.date} in {args.out}")
    return os.path.join(args.out, candidates[0])


if __name__ == "__main__":
    sys.exit(main())
