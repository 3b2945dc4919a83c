"""One-off tooling, not needed to run or test cairn: rebuilds
models/bge-small-en-v1.5-int8ffn2last4/model.onnx from the shipped fp32 model.

Dynamic int8 quantisation (QInt8 weights, one scale per output channel;
activations quantised at run time), except the FFN output MatMul of the last
four layers, which stays fp32: those were the weights whose quantisation cost
code ranking. With onnxruntime 1.20.1 (`pip install onnxruntime==1.20.1`) the
output is byte for byte the file shipped; its sha256 is printed to compare
with the folder's manifest.json.

    python3 scripts/quantize_model.py models/bge-small-en-v1.5/model.onnx OUT.onnx
"""

import hashlib
import sys

from onnx import TensorProto
from onnxruntime.quantization import QuantType, quantize_dynamic

FP32_LAYERS = range(8, 12)


def main(source: str, target: str) -> None:
    quantize_dynamic(
        source,
        target,
        weight_type=QuantType.QInt8,
        per_channel=True,
        nodes_to_exclude=[f"/encoder/layer.{i}/output/dense/MatMul" for i in FP32_LAYERS],
        # The fused graph's contrib operators hide some types from shape inference.
        extra_options={"DefaultTensorType": TensorProto.FLOAT},
    )
    with open(target, "rb") as built:
        print(hashlib.sha256(built.read()).hexdigest())


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
