"""The part of the ONNX file format that the attention rewrite reads and writes.

An ONNX model is a protocol buffer (onnx.proto, whose field numbers the ONNX
project keeps stable). onnxruntime already depends on ``protobuf``, so the
messages are declared here from those field numbers rather than taken from
the ``onnx`` package, whose import alone costs some 0.7 s (it loads
``ml_dtypes``), more than the rewrite saves in a thousand queries. Only the
fields the rewrite touches are declared: every other field of a message
(shapes, documentation, metadata, functions ...) is kept as protobuf's unknown
fields and written back as it was read.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

_PACKAGE = "tiermem.onnx_subset"

#: (message, [(field, number, type, repeated, message type)]) from onnx.proto.
_MESSAGES: list[tuple[str, list[tuple[str, int, str, bool, str | None]]]] = [
    ("OperatorSetIdProto", [("domain", 1, "string", False, None),
                            ("version", 2, "int64", False, None)]),
    ("TensorProto", [("dims", 1, "int64", True, None), ("data_type", 2, "int32", False, None),
                     ("float_data", 4, "float", True, None),
                     ("int32_data", 5, "int32", True, None),
                     ("int64_data", 7, "int64", True, None), ("name", 8, "string", False, None),
                     ("raw_data", 9, "bytes", False, None),
                     ("data_location", 14, "int32", False, None)]),
    ("AttributeProto", [("name", 1, "string", False, None), ("f", 2, "float", False, None),
                        ("i", 3, "int64", False, None), ("ints", 8, "int64", True, None),
                        ("type", 20, "int32", False, None)]),
    ("NodeProto", [("input", 1, "string", True, None), ("output", 2, "string", True, None),
                   ("name", 3, "string", False, None), ("op_type", 4, "string", False, None),
                   ("attribute", 5, "message", True, "AttributeProto"),
                   ("domain", 7, "string", False, None)]),
    ("ValueInfoProto", [("name", 1, "string", False, None)]),
    ("GraphProto", [("node", 1, "message", True, "NodeProto"),
                    ("initializer", 5, "message", True, "TensorProto"),
                    ("input", 11, "message", True, "ValueInfoProto"),
                    ("output", 12, "message", True, "ValueInfoProto"),
                    ("value_info", 13, "message", True, "ValueInfoProto")]),
    ("ModelProto", [("graph", 7, "message", False, "GraphProto"),
                    ("opset_import", 8, "message", True, "OperatorSetIdProto")]),
]

#: AttributeProto.type values.
ATTRIBUTE_FLOAT, ATTRIBUTE_INT = 1, 2
#: TensorProto.data_type values read here, as numpy types.
_TENSOR_TYPES = {1: np.float32, 6: np.int32, 7: np.int64, 11: np.float64}
#: TensorProto.data_type of 32-bit integers, for a Cast's ``to``.
INT32 = 6
_EXTERNAL = 1


_classes_made: dict[str, Any] = {}
# Messages of two pools do not mix, so two threads loading at once must share one.
_classes_lock = threading.Lock()


def _classes() -> dict[str, Any]:
    with _classes_lock:
        if not _classes_made:
            _classes_made.update(_make_classes())
        return _classes_made


def _make_classes() -> dict[str, Any]:
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    field = descriptor_pb2.FieldDescriptorProto
    kinds = {"string": field.TYPE_STRING, "int64": field.TYPE_INT64, "int32": field.TYPE_INT32,
             "float": field.TYPE_FLOAT, "bytes": field.TYPE_BYTES,
             "message": field.TYPE_MESSAGE}
    schema = descriptor_pb2.FileDescriptorProto(name="tiermem_onnx_subset.proto",
                                                package=_PACKAGE, syntax="proto2")
    for message, fields in _MESSAGES:
        declared = schema.message_type.add(name=message)
        for name, number, kind, repeated, type_name in fields:
            declared.field.add(
                name=name, number=number, type=kinds[kind],
                label=field.LABEL_REPEATED if repeated else field.LABEL_OPTIONAL,
                type_name=f".{_PACKAGE}.{type_name}" if type_name else None)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(schema)
    classes = {}
    for message, _ in _MESSAGES:
        descriptor = pool.FindMessageTypeByName(f"{_PACKAGE}.{message}")
        get_class = getattr(message_factory, "GetMessageClass", None)
        classes[message] = (get_class(descriptor) if get_class is not None
                            else message_factory.MessageFactory(pool).GetPrototype(descriptor))
    return classes


def load_model(data: bytes) -> Any:
    """The ModelProto of an ONNX file's bytes."""
    model = _classes()["ModelProto"]()
    model.ParseFromString(data)
    return model


def make_node(op_type: str, inputs: Sequence[str], outputs: Sequence[str], name: str,
              domain: str = "", **attributes: int | float) -> Any:
    """A NodeProto; ``attributes`` are ints or floats."""
    node = _classes()["NodeProto"](op_type=op_type, input=list(inputs), output=list(outputs),
                                   name=name, domain=domain)
    for key, value in attributes.items():
        if isinstance(value, int):
            node.attribute.add(name=key, i=value, type=ATTRIBUTE_INT)
        else:
            node.attribute.add(name=key, f=value, type=ATTRIBUTE_FLOAT)
    return node


def tensor_values(tensor: Any) -> np.ndarray | None:
    """A TensorProto's values, when they are numbers stored in the file; None for
    another type or data kept outside it."""
    kind = _TENSOR_TYPES.get(tensor.data_type)
    if kind is None or tensor.data_location == _EXTERNAL:
        return None
    dims = tuple(tensor.dims)
    if tensor.raw_data:
        values = np.frombuffer(tensor.raw_data, dtype=np.dtype(kind).newbyteorder("<"))
    else:
        stored = {np.float32: tensor.float_data, np.int32: tensor.int32_data,
                  np.int64: tensor.int64_data}.get(kind)
        if stored is None:
            return None
        values = np.asarray(stored, dtype=kind)
    if values.size != int(np.prod(dims, dtype=np.int64)):
        return None
    return values.astype(kind).reshape(dims)
