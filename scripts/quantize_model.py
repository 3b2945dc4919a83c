"""One-off tooling, not needed to run or test cairn: rebuilds
models/bge-small-en-v1.5-int8ffn2last1-doc256/model.onnx from the shipped fp32 model.

Dynamic int8 quantisation (QInt8 weights, one scale per output channel;
activations quantised at run time), except the last layer's FFN output MatMul,
which stays fp32.

cairn pools the [CLS] state alone, so the last layer's feed-forward block is
then cut to the [CLS] row: its input is sliced after it is quantised (the
scale still comes from every token, so the [CLS] row's vector is bit for bit
the uncut graph's) and the output is `cls_hidden_state`, one position per text.

Last, three fused operators are written out as the plainer ones onnxruntime
1.30 runs faster on a CPU, with the same arithmetic: `QAttention` as its int8
projection and `MultiHeadAttention` without a mask (which takes the flash
attention path; the model runs one text a call, so no position is padding),
`SkipLayerNormalization` as two Adds and `LayerNormalization` (the Adds in
this order, skip first: bias first is fused back into the slow operator), and
`BiasGelu` as an Add and `Gelu`.

The previous default, models/bge-small-en-v1.5-int8ffn2last4-doc256, kept the
FFN output of layers 8-11 in fp32 and the fused operators; it is rebuilt by
this script as of commit 895d2a5.

Build with onnxruntime 1.20.1 and onnx 1.23.2 (`pip install
onnxruntime==1.20.1 onnx==1.23.2`; cairn runs the model in onnxruntime 1.30):
the output is then byte for byte the file shipped, and its sha256 is printed
to compare with the folder's manifest.json. The folder's manifest.json,
tokenizer.json and LICENSE are the previous default's, but for the
quantization name, the source text and the sha256.

    python3 scripts/quantize_model.py models/bge-small-en-v1.5/model.onnx OUT.onnx
"""

import hashlib
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import QuantType, quantize_dynamic

FP32_LAYERS = [11]
LAST = "/encoder/layer.11"
# The last layer's attention block output (after its layer norm), and that output quantised.
ATTENTION_OUT = f"{LAST}/attention/output/LayerNorm/Add_1_output_0"
ATTENTION_OUT_QUANTISED = f"{ATTENTION_OUT}_quantized"
OUTPUT = "cls_hidden_state"
# LayerNormalization is a standard operator from opset 17.
OPSET = 17


def quantise(source: str, target: str) -> None:
    quantize_dynamic(
        source,
        target,
        weight_type=QuantType.QInt8,
        per_channel=True,
        nodes_to_exclude=[f"/encoder/layer.{i}/output/dense/MatMul" for i in FP32_LAYERS],
        # The fused graph's contrib operators hide some types from shape inference.
        extra_options={"DefaultTensorType": TensorProto.FLOAT},
    )


def cls_row(tensor: str) -> onnx.NodeProto:
    """A Slice keeping position 0 of `tensor` ([batch, positions, ...])."""
    return helper.make_node(
        "Slice",
        [tensor, "cls_row_start", "cls_row_end", "cls_row_axis"],
        [f"{tensor}_cls"],
        name=f"{tensor}_cls_slice",
    )


def cut_last_layer_to_cls(path: str) -> None:
    model = onnx.load(path)
    graph = model.graph
    for name, value in [("cls_row_start", 0), ("cls_row_end", 1), ("cls_row_axis", 1)]:
        graph.initializer.append(numpy_helper.from_array(np.array([value], np.int64), name))
    nodes = []
    for node in graph.node:
        if node.name == f"{LAST}/intermediate/dense/MatMul_quant":
            assert node.input[0] == ATTENTION_OUT_QUANTISED, node.input[0]
            node.input[0] = f"{ATTENTION_OUT_QUANTISED}_cls"
        if node.output[0] == "last_hidden_state":
            assert node.input[1] == ATTENTION_OUT, node.input[1]
            node.input[1] = f"{ATTENTION_OUT}_cls"
            node.output[0] = OUTPUT
        nodes.append(node)
        if node.output[0] in (ATTENTION_OUT, ATTENTION_OUT_QUANTISED):
            nodes.append(cls_row(node.output[0]))
    del graph.node[:]
    graph.node.extend(nodes)
    (output,) = graph.output
    output.name = OUTPUT
    output.type.tensor_type.shape.dim[1].dim_value = 1
    onnx.checker.check_model(model)
    onnx.save(model, path)


def attribute(node: onnx.NodeProto, name: str):
    """The value of `node`'s attribute `name`."""
    return next(helper.get_attribute_value(a) for a in node.attribute if a.name == name)


def attention_unmasked(node: onnx.NodeProto) -> list[onnx.NodeProto]:
    """QAttention → its int8 projection, then MultiHeadAttention without a mask."""
    text, weight, bias, text_scale, weight_scale, _mask, text_zero, weight_zero = node.input[:8]
    qkv, q, k, v = (f"{node.name}_{part}" for part in ("qkv", "q", "k", "v"))
    return [
        helper.make_node(
            "MatMulIntegerToFloat",
            [text, weight, text_scale, weight_scale, text_zero, weight_zero],
            [qkv],
            name=f"{node.name}_projection",
            domain="com.microsoft",
        ),
        helper.make_node("Split", [qkv], [q, k, v], name=f"{node.name}_split", axis=2),
        helper.make_node(
            "MultiHeadAttention",
            [q, k, v, bias],
            [node.output[0]],
            name=f"{node.name}_heads",
            domain="com.microsoft",
            num_heads=attribute(node, "num_heads"),
        ),
    ]


def layer_norm_apart(node: onnx.NodeProto) -> list[onnx.NodeProto]:
    """SkipLayerNormalization → (input + skip) + bias, then LayerNormalization."""
    text, skip, gamma, beta, bias = (list(node.input) + [""] * 5)[:5]
    assert not any(node.output[1:]), f"{node.name} has outputs beyond the first"
    summed = f"{node.name}_sum"
    nodes = [helper.make_node("Add", [text, skip], [summed], name=f"{node.name}_skip")]
    if bias:
        nodes.append(helper.make_node("Add", [summed, bias], [f"{summed}_bias"], name=f"{node.name}_bias"))
        summed = f"{summed}_bias"
    nodes.append(
        helper.make_node(
            "LayerNormalization",
            [summed, gamma, beta],
            [node.output[0]],
            name=f"{node.name}_norm",
            axis=-1,
            epsilon=attribute(node, "epsilon"),
        )
    )
    return nodes


def gelu_apart(node: onnx.NodeProto) -> list[onnx.NodeProto]:
    """BiasGelu → Add, then Gelu."""
    text, bias = node.input
    summed = f"{node.name}_sum"
    return [
        helper.make_node("Add", [text, bias], [summed], name=f"{node.name}_bias"),
        helper.make_node("Gelu", [summed], [node.output[0]], name=f"{node.name}_gelu", domain="com.microsoft"),
    ]


REWRITES = {"QAttention": attention_unmasked, "SkipLayerNormalization": layer_norm_apart, "BiasGelu": gelu_apart}


def write_out_fused_operators(path: str) -> None:
    """Rewrites the fused operators of REWRITES; the opset becomes 17 for LayerNormalization."""
    model = onnx.load(path)
    nodes = []
    for node in model.graph.node:
        rewrite = REWRITES.get(node.op_type)
        nodes.extend(rewrite(node) if rewrite else [node])
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    for opset in model.opset_import:
        if opset.domain in ("", "ai.onnx"):
            opset.version = OPSET
    onnx.checker.check_model(model)
    onnx.save(model, path)


def main(source: str, target: str) -> None:
    quantise(source, target)
    cut_last_layer_to_cls(target)
    write_out_fused_operators(target)
    with open(target, "rb") as built:
        print(hashlib.sha256(built.read()).hexdigest())


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
