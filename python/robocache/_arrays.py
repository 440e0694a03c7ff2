"""Arrays in and out through DLPack.

In: any object with ``__dlpack__`` (NumPy arrays, torch tensors on CPU or
CUDA, CuPy ...) becomes a :class:`View`: its data pointer, shape, dtype and
device, with the producer's memory kept alive while the view lives.  CUDA
inputs are read on the stream robocache computes on (torch's current
stream when torch is in use), which the DLPack handshake makes the
producer order its work before.

Out: robocache allocates the result (rc_array_new: host memory, or
stream-ordered device memory) and hands it to the caller's library with
that library's ``from_dlpack``: NumPy in, NumPy out; torch in, torch out;
no copy either way.
"""
import ctypes
import sys

from . import _lib

CPU, CUDA = 1, 2
_DEVICE_NAME = {CPU: "cpu", CUDA: "cuda"}
# DLPack (code, bits) <-> the names robocache uses.
_DTYPES = {(0, 8): "int8", (1, 8): "uint8", (0, 16): "int16",
           (1, 16): "uint16", (0, 32): "int32", (1, 32): "uint32",
           (0, 64): "int64", (1, 64): "uint64", (2, 16): "float16",
           (2, 32): "float32", (2, 64): "float64", (4, 16): "bfloat16"}
_TORCH_DTYPES = {"torch.float32": "float32", "torch.float64": "float64",
                 "torch.bfloat16": "bfloat16", "torch.int64": "int64",
                 "torch.int32": "int32", "torch.uint8": "uint8",
                 "torch.float16": "float16", "torch.int8": "int8",
                 "torch.int16": "int16"}

_pyapi = ctypes.pythonapi
_pyapi.PyCapsule_GetPointer.restype = ctypes.c_void_p
_pyapi.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_pyapi.PyCapsule_IsValid.restype = ctypes.c_int
_pyapi.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_pyapi.PyCapsule_New.restype = ctypes.py_object
_pyapi.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                 ctypes.c_void_p]
_CAPSULE_NAME = b"dltensor"


# The destructor gets a borrowed PyObject *: these take it as a plain
# pointer, so that ctypes never adds or drops a reference to it.
_capsule_is_valid = ctypes.PYFUNCTYPE(
    ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(
        ("PyCapsule_IsValid", _pyapi))
_capsule_pointer = ctypes.PYFUNCTYPE(
    ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
        ("PyCapsule_GetPointer", _pyapi))


@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def _capsule_destructor(capsule):
    """A capsule nobody consumed frees its array; a consumed one was
    renamed ("used_dltensor") and belongs to the consumer."""
    if _capsule_is_valid(capsule, _CAPSULE_NAME):
        address = _capsule_pointer(capsule, _CAPSULE_NAME)
        _lib.kernels.rc_array_free(
            ctypes.cast(address, ctypes.POINTER(_lib.DLManagedTensor)))


_DESTRUCTOR = ctypes.cast(_capsule_destructor, ctypes.c_void_p).value


def _top_module(obj):
    return type(obj).__module__.split(".", 1)[0]


class View:
    """An input array: its memory and layout, valid while the view lives."""

    __slots__ = ("name", "data", "shape", "dtype", "device", "device_id",
                 "owner", "kind")

    def describe(self):
        where = _DEVICE_NAME.get(self.device, "device type %d" % self.device)
        if self.device == CUDA:
            where += ":%d" % self.device_id
        return "%s %s on %s" % (self.dtype, tuple(self.shape), where)


def _contiguous(shape, strides, itemsize):
    """C order, in elements (DLPack) or bytes (NumPy) as `itemsize` says."""
    if strides is None:
        return True
    expected = itemsize
    for size, stride in zip(reversed(shape), reversed(strides)):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


def current_stream(device_id):
    """The stream robocache computes on for CUDA device `device_id`:
    torch's current stream where torch is in use, else the legacy default
    stream (0)."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_initialized():
        return torch.cuda.current_stream(device_id).cuda_stream
    return 0


def view(obj, name, stream=None):
    """A View of `obj`, the argument called `name`; CUDA memory is made
    ready for `stream` (None: current_stream of its device)."""
    kind = _top_module(obj)
    if kind == "numpy" and hasattr(obj, "__array_interface__"):
        return _view_numpy(obj, name)
    if kind == "torch" and hasattr(obj, "data_ptr"):
        return _view_torch(obj, name)
    if not hasattr(obj, "__dlpack__") or not hasattr(obj,
                                                     "__dlpack_device__"):
        raise TypeError("robocache: %s must be an array with __dlpack__ "
                        "(numpy.ndarray, torch.Tensor, ...); got %s"
                        % (name, type(obj).__name__))
    return _view_dlpack(obj, name, kind, stream)


def _view_numpy(array, name):
    face = array.__array_interface__
    v = View()
    v.name, v.kind, v.owner = name, "numpy", array
    v.data = face["data"][0]
    v.shape = tuple(array.shape)
    v.dtype = array.dtype.name
    v.device, v.device_id = CPU, 0
    if not _contiguous(v.shape, face.get("strides"), array.itemsize):
        raise ValueError("robocache: %s must be C-contiguous; got strides %s "
                         "(numpy.ascontiguousarray makes it so)"
                         % (name, array.strides))
    return v


def _view_torch(tensor, name):
    v = View()
    v.name, v.kind, v.owner = name, "torch", tensor
    v.data = tensor.data_ptr()
    v.shape = tuple(tensor.shape)
    v.dtype = _TORCH_DTYPES.get(str(tensor.dtype), str(tensor.dtype))
    if tensor.is_cuda:
        v.device, v.device_id = CUDA, tensor.device.index
    elif tensor.device.type == "cpu":
        v.device, v.device_id = CPU, 0
    else:
        raise ValueError("robocache: %s is on %s; accepted: cpu or cuda"
                         % (name, tensor.device))
    if not tensor.is_contiguous():
        raise ValueError("robocache: %s must be contiguous; got strides %s "
                         "(.contiguous() makes it so)"
                         % (name, tuple(tensor.stride())))
    return v


def _view_dlpack(obj, name, kind, stream):
    device, device_id = obj.__dlpack_device__()
    if device == CUDA:
        if stream is None:
            stream = current_stream(device_id)
        # DLPack: 1 names the legacy default stream, 0 is not allowed.
        capsule = obj.__dlpack__(stream=stream or 1)
    else:
        capsule = obj.__dlpack__()
    address = _pyapi.PyCapsule_GetPointer(capsule, _CAPSULE_NAME)
    managed = _lib.DLManagedTensor.from_address(address)
    t = managed.dl_tensor
    v = View()
    # The capsule keeps the producer's memory: it frees it when collected.
    v.name, v.kind, v.owner = name, kind, capsule
    v.device, v.device_id = t.device.device_type, t.device.device_id
    v.shape = tuple(t.shape[i] for i in range(t.ndim))
    v.dtype = _DTYPES.get((t.dtype.code, t.dtype.bits),
                          "code %d/%d bits" % (t.dtype.code, t.dtype.bits))
    if t.dtype.lanes != 1:
        v.dtype += "x%d" % t.dtype.lanes
    v.data = (t.data or 0) + t.byte_offset
    strides = (tuple(t.strides[i] for i in range(t.ndim))
               if t.strides else None)
    if not _contiguous(v.shape, strides, 1):
        raise ValueError("robocache: %s must be C-contiguous; got strides %s"
                         % (name, strides))
    if v.device not in (CPU, CUDA):
        raise ValueError("robocache: %s is on DLPack device type %d; "
                         "accepted: CPU (1) or CUDA (2)" % (name, v.device))
    return v


class Exported:
    """A robocache-owned array not yet handed over: the DLPack producer
    side (``__dlpack__``, ``__dlpack_device__``)."""

    __slots__ = ("_managed", "_device", "_stream", "__weakref__")

    def __init__(self, managed, stream=0):
        self._managed = managed
        t = managed.contents.dl_tensor
        self._device = (t.device.device_type, t.device.device_id)
        self._stream = stream

    def __dlpack_device__(self):
        return self._device

    def __dlpack__(self, stream=None, **_ignored):
        if self._managed is None:
            raise BufferError("robocache: this array was already exported")
        if (self._device[0] == CUDA and stream not in (None, -1)
                and stream != self._stream):
            # The consumer reads on its own stream: order it after ours.
            waiting = 0 if stream == 1 else stream
            _lib.check(_lib.kernels.rc_stream_wait(waiting, self._stream),
                       "ordering the consumer's stream after robocache's")
        managed, self._managed = self._managed, None
        return _pyapi.PyCapsule_New(ctypes.cast(managed, ctypes.c_void_p),
                                    _CAPSULE_NAME, _DESTRUCTOR)

    def __del__(self):
        if self._managed is not None:
            _lib.kernels.rc_array_free(self._managed)
            self._managed = None


def new_array(shape, dtype, device=-1, stream=0):
    """An Exported array of robocache's memory: host when `device` < 0."""
    n = len(shape)
    managed = ctypes.POINTER(_lib.DLManagedTensor)()
    _lib.check(_lib.kernels.rc_array_new(
        device, n, (ctypes.c_int64 * n)(*shape), _lib.TYPE[dtype],
        stream, ctypes.byref(managed)),
        "allocating a %s %s array" % (dtype, tuple(shape)))
    return Exported(managed, stream)


def data_pointer(exported):
    """The data pointer of an Exported array not handed over yet."""
    return exported._managed.contents.dl_tensor.data or 0


def hand_over(exported, like):
    """`exported` as an array of `like`'s kind: numpy, torch, or whichever
    library `like` is from (its module's from_dlpack)."""
    if like == "torch":
        torch = sys.modules["torch"]
        # Made on torch's current stream: the capsule needs no handshake.
        return torch.utils.dlpack.from_dlpack(exported.__dlpack__())
    module = sys.modules.get(like)
    if module is None or not hasattr(module, "from_dlpack"):
        import numpy
        module = numpy
    return module.from_dlpack(exported)
