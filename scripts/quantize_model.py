"""One-off tooling, not needed to run or test cairn: rebuilds
models/bge-small-en-v1.5-int8ffn2last4-doc256/model.onnx from the shipped fp32 model.

Dynamic int8 quantisation (QInt8 weights, one scale per output channel;
activations quantised at run time), except the FFN output MatMul of the last
four layers, which stays fp32: those were the weights whose quantisation cost
code ranking.

cairn pools the [CLS] state alone, so the last layer's feed-forward block is
then cut to the [CLS] row: its input is sliced after it is quantised (the
scale still comes from every token, so the [CLS] row's vector is bit for bit
the uncut graph's) and the output is `cls_hidden_state`, one position per text.

With onnxruntime 1.20.1 (`pip install onnxruntime==1.20.1`) the output is byte
for byte the file shipped; its sha256 is printed to compare with the folder's
manifest.json.

    python3 scripts/quantize_model.py models/bge-small-en-v1.5/model.onnx OUT.onnx
"""

import hashlib
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import QuantType, quantize_dynamic

FP32_LAYERS = range(8, 12)
LAST = "/encoder/layer.11"
# The last layer's attention block output (after its layer norm), and that output quantised.
ATTENTION_OUT = f"{LAST}/attention/output/LayerNorm/Add_1_output_0"
ATTENTION_OUT_QUANTISED = f"{ATTENTION_OUT}_quantized"
OUTPUT = "cls_hidden_state"


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


def main(source: str, target: str) -> None:
    quantise(source, target)
    cut_last_layer_to_cls(target)
    with open(target, "rb") as built:
        print(hashlib.sha256(built.read()).hexdigest())


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
