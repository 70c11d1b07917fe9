#!/usr/bin/env python3
"""Exports the reference models to ONNX with random weights, plus inputs and
PyTorch's outputs as .npy, for checking OpenCGC against PyTorch.

Runs where PyTorch 2.11, torchvision and transformers are installed (the GPU
machine); needs no network: weights are random with a fixed seed.

    python3 bench/models/export_models.py --out models/ [--models resnet50,bert_base] [--padded]

Writes, per model, DIR/<model>/model.onnx, input_<i>.npy (named in
inputs.txt as NAME=FILE lines for cgc-run) and expected_<i>.npy.
"""
import argparse
import os
import sys

import numpy as np
import torch

MODELS = ("resnet50", "mobilenet_v2", "vit_b_16", "bert_base")


def init_depthwise_fan_in(model: torch.nn.Module) -> None:
    """Re-initializes every grouped convolution (MobileNetV2's depthwise ones) with
    Kaiming's normal over the fan-in.

    torchvision draws them over the fan-out, which for a C x 1 x 3 x 3 depthwise
    weight is C*9 instead of the 9 inputs each output sums, so every depthwise layer
    shrinks the activations by about sqrt(C): MobileNetV2's outputs come out near
    3e-9, below float16's range, and no framework's float16 output can then be
    compared. Over the fan-in they stay of order 1 (PyTorch's own float16 output is
    then within 2e-3 of float32's)."""
    for module in model.modules():
        if isinstance(module, torch.nn.Conv2d) and module.groups > 1:
            torch.nn.init.kaiming_normal_(module.weight, mode="fan_in", nonlinearity="relu")


def build(name: str, batch: int, padded: bool = False):
    """The model in eval mode and example inputs as (name, tensor) pairs."""
    torch.manual_seed(0)
    if name in ("resnet50", "mobilenet_v2", "vit_b_16"):
        import torchvision

        model = getattr(torchvision.models, name)(weights=None).eval()
        if name == "mobilenet_v2":
            init_depthwise_fan_in(model)
        if name == "vit_b_16":
            # torchvision zero-initializes ViT's classification head, which would make
            # every output 0 and the comparison unable to fail.
            torch.nn.init.normal_(model.heads.head.weight, std=0.02)
            torch.nn.init.normal_(model.heads.head.bias, std=0.02)
        image = torch.randn(batch, 3, 224, 224, generator=torch.Generator().manual_seed(1))
        return model, [("input", image)]
    if name == "bert_base":
        from transformers import BertConfig, BertModel

        config = BertConfig()  # bert-base: 12 layers, hidden 768, 12 heads
        model = BertModel(config).eval()
        generator = torch.Generator().manual_seed(1)
        ids = torch.randint(0, config.vocab_size, (batch, 128), generator=generator)
        mask = torch.ones(batch, 128, dtype=torch.int64)
        if padded:
            # Sequence i keeps its first 128 - 8·(i mod 7 + 1) tokens.
            for i in range(batch):
                mask[i, 128 - 8 * (i % 7 + 1):] = 0
        types = torch.zeros(batch, 128, dtype=torch.int64)
        return model, [("input_ids", ids), ("attention_mask", mask), ("token_type_ids", types)]
    raise SystemExit(f"unknown model {name!r}; choose from {', '.join(MODELS)}")


class FirstOutput(torch.nn.Module):
    """Exports a transformers model's last_hidden_state as a plain tensor."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, *args):
        return self.model(*args).last_hidden_state


def export(name: str, out_dir: str, batch: int, opset: int, padded: bool = False) -> None:
    model, inputs = build(name, batch, padded)
    if name == "bert_base":
        model = FirstOutput(model)
    directory = os.path.join(out_dir, name)
    os.makedirs(directory, exist_ok=True)
    args = tuple(tensor for _, tensor in inputs)
    with torch.no_grad():
        expected = model(*args)
    outputs = expected if isinstance(expected, (tuple, list)) else [expected]
    path = os.path.join(directory, "model.onnx")
    torch.onnx.export(model, args, path, input_names=[n for n, _ in inputs],
                      output_names=[f"output_{i}" for i in range(len(outputs))],
                      opset_version=opset, dynamo=False, do_constant_folding=True)
    with open(os.path.join(directory, "inputs.txt"), "w") as listing:
        for i, (input_name, tensor) in enumerate(inputs):
            file = f"input_{i}.npy"
            np.save(os.path.join(directory, file), tensor.numpy())
            listing.write(f"{input_name}={file}\n")
    for i, tensor in enumerate(outputs):
        np.save(os.path.join(directory, f"expected_{i}.npy"), tensor.numpy())
    size = os.path.getsize(path) / 2**20
    print(f"{name}: {path} ({size:.1f} MiB), inputs {[tuple(t.shape) for _, t in inputs]}, "
          f"outputs {[tuple(t.shape) for t in outputs]}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--opset", type=int, default=17)
    parser.add_argument("--padded", action="store_true",
                        help="BERT's attention mask pads each sequence's tail (8 to 56 tokens) "
                             "instead of keeping every token")
    args = parser.parse_args()
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    for name in args.models.split(","):
        export(name.strip(), args.out, args.batch, args.opset, args.padded)
    return 0


if __name__ == "__main__":
    sys.exit(main())
