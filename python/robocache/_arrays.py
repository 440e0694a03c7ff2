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

_CAPSULE_NAME = b"dltensor"


def _python_api(name, restype, *argtypes):
    """A prototype of our own: ctypes.pythonapi's function objects are
    shared with every other user of ctypes in the process."""
    return ctypes.PYFUNCTYPE(restype, *argtypes)((name, ctypes.pythonapi))


_capsule_pointer = _python_api("PyCapsule_GetPointer", ctypes.c_void_p,
                               ctypes.py_object, ctypes.c_char_p)
_capsule_is_valid = _python_api("PyCapsule_IsValid", ctypes.c_int,
                                ctypes.py_object, ctypes.c_char_p)
# The destructor's own: the dying capsule as a bare pointer, since making
# it a Python object again would raise its count from zero.
_dying_is_valid = _python_api("PyCapsule_IsValid", ctypes.c_int,
                              ctypes.c_void_p, ctypes.c_char_p)
_dying_pointer = _python_api("PyCapsule_GetPointer", ctypes.c_void_p,
                             ctypes.c_void_p, ctypes.c_char_p)
_capsule_new = _python_api("PyCapsule_New", ctypes.py_object,
                           ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)


@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def _capsule_destructor(capsule):
    """DLPack's rule: a capsule still named "dltensor" when it dies was
    never consumed, and its producer frees the array (a consumer renames
    the capsule and calls the deleter itself)."""
    if _dying_is_valid(capsule, _CAPSULE_NAME):
        _lib.kernels.rc_array_free(ctypes.cast(
            _dying_pointer(capsule, _CAPSULE_NAME),
            ctypes.POINTER(_lib.DLManagedTensor)))


# Never freed: a capsule may outlive this module at interpreter exit.
ctypes.pythonapi.Py_IncRef(ctypes.py_object(_capsule_destructor))
_DESTRUCTOR_ADDRESS = ctypes.cast(_capsule_destructor, ctypes.c_void_p).value


def _capsule(managed_address):
    return _capsule_new(managed_address, _CAPSULE_NAME, _DESTRUCTOR_ADDRESS)


def _free_unconsumed(capsule):
    """Frees the array of a capsule made without the destructor (torch's
    fast path, where the callback's cost would count) that torch
    refused."""
    if _capsule_is_valid(capsule, _CAPSULE_NAME):
        _lib.kernels.rc_array_free(ctypes.cast(
            _capsule_pointer(capsule, _CAPSULE_NAME),
            ctypes.POINTER(_lib.DLManagedTensor)))


def _top_module(obj):
    return type(obj).__module__.split(".", 1)[0]


class View:
    """An input array: its memory and layout, valid while the view lives."""

    __slots__ = ("name", "data", "shape", "dtype", "device", "device_id",
                 "owner", "kind")

    def describe(self):
        return _describe(self.shape, self.dtype, self.device, self.device_id)


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
    if torch is None or not torch.cuda.is_initialized():
        return 0
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        # The handle alone, without making a torch.cuda.Stream object.
        return raw(device_id)
    return torch.cuda.current_stream(device_id).cuda_stream


def torch_stream(device_id):
    """torch's current stream on `device_id` (torch in use, CUDA up)."""
    global torch_stream
    torch = sys.modules["torch"]
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is None:
        torch_stream = lambda d: torch.cuda.current_stream(d).cuda_stream
    else:
        torch_stream = raw
    return torch_stream(device_id)


_torch_dtype_names = {}
_numpy_dtype_names = {}


def _torch_dtype_name(dtype):
    if not _torch_dtype_names:
        torch = sys.modules["torch"]
        for name in ("float32", "float64", "bfloat16", "float16", "int64",
                     "int32", "int16", "int8", "uint8"):
            _torch_dtype_names[getattr(torch, name)] = name
    return _torch_dtype_names.get(dtype) or str(dtype)


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


def _check_aligned(v, alignment, remedy):
    """Refuses data whose address is not a multiple of its elements'
    alignment (a view at an odd byte offset into a buffer): the kernels
    load whole elements, which the GPU refuses with an error that stops
    every later call of the process and the CPU does only by chance."""
    if v.data % alignment and all(v.shape):
        raise ValueError("robocache: %s is not aligned: its data starts at "
                         "byte %d of a %d-byte element (a view at an odd "
                         "byte offset into a buffer); %s makes an aligned "
                         "copy" % (v.name, v.data % alignment, alignment,
                                   remedy))


def _view_numpy(array, name):
    numpy = sys.modules["numpy"]
    if type(array) is not numpy.ndarray and isinstance(
            array, numpy.ma.MaskedArray):
        raise TypeError("robocache: %s is a masked array, whose mask "
                        "robocache would not read; .filled(value) or "
                        ".compressed() gives the values to use" % name)
    face = array.__array_interface__
    v = View()
    v.name, v.kind, v.owner = name, "numpy", array
    v.data = face["data"][0]
    v.shape = tuple(array.shape)
    dtype = array.dtype
    dtype_name = _numpy_dtype_names.get(dtype)
    if dtype_name is None:
        # dtype.name is slow enough to matter at a few microseconds a call.
        # It leaves the byte order out: a swapped one is a dtype no check
        # accepts.
        dtype_name = dtype.name if dtype.isnative else (
            "%s in the other byte order (%r; .astype(%r) converts it)"
            % (dtype.name, dtype.str, dtype.newbyteorder("=").str))
        _numpy_dtype_names[dtype] = dtype_name
    v.dtype = dtype_name
    v.device, v.device_id = CPU, 0
    if not _contiguous(v.shape, face.get("strides"), array.itemsize):
        raise ValueError("robocache: %s must be C-contiguous; got strides %s "
                         "(numpy.ascontiguousarray makes it so)"
                         % (name, array.strides))
    _check_aligned(v, dtype.alignment, "numpy.require(x, requirements='CA')")
    return v


def _view_torch(tensor, name):
    if tensor.layout != sys.modules["torch"].strided:
        raise TypeError("robocache: %s is a %s tensor; accepted: a dense "
                        "(strided) one (.to_dense() makes it so)"
                        % (name, str(tensor.layout).replace("torch.", "")))
    if tensor.is_neg():
        # A view whose values are its memory negated (z.conj().imag, say):
        # read as torch's own operations read it, from a resolved copy.
        tensor = tensor.resolve_neg()
    v = View()
    v.name, v.kind, v.owner = name, "torch", tensor
    v.data = tensor.data_ptr()
    v.shape = tuple(tensor.shape)
    v.dtype = _torch_dtype_name(tensor.dtype)
    index = tensor.get_device()
    if tensor.is_cuda:
        v.device, v.device_id = CUDA, index
    elif index < 0 and tensor.device.type == "cpu":
        v.device, v.device_id = CPU, 0
    else:
        raise ValueError("robocache: %s is on %s; accepted: cpu or cuda"
                         % (name, tensor.device))
    if not tensor.is_contiguous():
        raise ValueError("robocache: %s must be contiguous; got strides %s "
                         "(.contiguous() makes it so)"
                         % (name, tuple(tensor.stride())))
    _check_aligned(v, tensor.element_size(), ".clone()")
    return v


def _dtype_name(dtype):
    """A DLDataType's name, as NumPy's ("float32")."""
    name = _DTYPES.get((dtype.code, dtype.bits),
                       "code %d/%d bits" % (dtype.code, dtype.bits))
    return name if dtype.lanes == 1 else name + "x%d" % dtype.lanes


def _describe(shape, dtype, device, device_id):
    where = _DEVICE_NAME.get(device, "device type %d" % device)
    if device == CUDA:
        where += ":%d" % device_id
    return "%s %s on %s" % (dtype, tuple(shape), where)


def _view_dlpack(obj, name, kind, stream):
    device, device_id = obj.__dlpack_device__()
    if device == CUDA:
        if stream is None:
            stream = current_stream(device_id)
        # DLPack: 1 names the legacy default stream, 0 is not allowed.
        capsule = obj.__dlpack__(stream=stream or 1)
    else:
        capsule = obj.__dlpack__()
    address = _capsule_pointer(capsule, _CAPSULE_NAME)
    managed = _lib.DLManagedTensor.from_address(address)
    t = managed.dl_tensor
    v = View()
    # The capsule keeps the producer's memory: it frees it when collected.
    v.name, v.kind, v.owner = name, kind, capsule
    v.device, v.device_id = t.device.device_type, t.device.device_id
    v.shape = tuple(t.shape[i] for i in range(t.ndim))
    v.dtype = _dtype_name(t.dtype)
    v.data = (t.data or 0) + t.byte_offset
    strides = (tuple(t.strides[i] for i in range(t.ndim))
               if t.strides else None)
    if not _contiguous(v.shape, strides, 1):
        raise ValueError("robocache: %s must be C-contiguous; got strides %s"
                         % (name, strides))
    if v.device not in (CPU, CUDA):
        raise ValueError("robocache: %s is on DLPack device type %d; "
                         "accepted: CPU (1) or CUDA (2)" % (name, v.device))
    _check_aligned(v, max(t.dtype.bits // 8, 1), "a copy")
    return v


class Exported:
    """A robocache-owned array not yet handed over: the DLPack producer
    side (``__dlpack__``, ``__dlpack_device__``), for any library's
    from_dlpack."""

    __slots__ = ("_managed", "_device", "_stream", "__weakref__")

    def __init__(self, managed, stream=0):
        self._managed = managed
        t = managed.contents.dl_tensor
        self._device = (t.device.device_type, t.device.device_id)
        self._stream = stream

    def __repr__(self):
        if self._managed is None:
            return "<robocache.Exported: handed over by __dlpack__>"
        t = self._managed.contents.dl_tensor
        return ("<robocache.Exported %s: take it with a library's "
                "from_dlpack>" % _describe(
                    [t.shape[i] for i in range(t.ndim)],
                    _dtype_name(t.dtype), *self._device))

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
        return _capsule(ctypes.cast(managed, ctypes.c_void_p))

    def __del__(self):
        # An exported array is its capsule's: the capsule's destructor
        # frees it if no consumer took it.
        if self._managed is not None:
            _lib.kernels.rc_array_free(self._managed)
            self._managed = None


def new_array(shape, dtype, device=-1, stream=0):
    """An Exported array of robocache's memory: host when `device` < 0."""
    n = len(shape)
    address = ctypes.c_void_p()
    _lib.check(_lib.kernels.rc_array_new(
        device, n, (ctypes.c_int64 * n)(*shape), _lib.TYPE[dtype],
        stream, ctypes.byref(address)),
        "allocating a %s %s array" % (dtype, tuple(shape)))
    return Exported(ctypes.cast(address, ctypes.POINTER(
        _lib.DLManagedTensor)), stream)


def data_pointer(exported):
    """The data pointer of an Exported array not handed over yet."""
    return exported._managed.contents.dl_tensor.data or 0


def _torch_from_capsule(capsule):
    """torch's own capsule reader, without torch.utils.dlpack's checks
    (the capsule is ours), found once."""
    global _torch_from_capsule
    torch = sys.modules["torch"]
    _torch_from_capsule = getattr(torch._C, "_from_dlpack", None) or \
        torch.utils.dlpack.from_dlpack
    return _torch_from_capsule(capsule)


def torch_from_new(address):
    """A torch tensor over the new array at `address` (an rc_array_new
    result made on torch's current stream); freed here if torch refuses
    it."""
    capsule = _capsule_new(address, _CAPSULE_NAME, None)
    try:
        return _torch_from_capsule(capsule)
    except BaseException:
        _free_unconsumed(capsule)
        raise


# NumPy's array-interface type strings of robocache's host dtypes.
_TYPESTR = {name: ("<" if sys.byteorder == "little" else ">") + code
            for name, code in (("int8", "i1"), ("uint8", "u1"),
                               ("int16", "i2"), ("uint16", "u2"),
                               ("int32", "i4"), ("uint32", "u4"),
                               ("int64", "i8"), ("uint64", "u8"),
                               ("float16", "f2"), ("float32", "f4"),
                               ("float64", "f8"))}


class _HostArray:
    """An Exported host array as NumPy's array interface: numpy.asarray
    makes a writable array over it, whose base this object is, keeping the
    memory.  (numpy.from_dlpack makes a read-only one: a DLPack capsule
    before version 1 cannot say that its memory may be written.)"""

    __slots__ = ("__array_interface__", "_exported")

    def __init__(self, exported, typestr):
        t = exported._managed.contents.dl_tensor
        self.__array_interface__ = {
            "version": 3, "typestr": typestr,
            "shape": tuple(t.shape[i] for i in range(t.ndim)),
            "data": ((t.data or 0) + t.byte_offset, False)}
        self._exported = exported


def hand_over(exported, like):
    """`exported` as an array of `like`'s kind: torch, numpy, or whichever
    library `like` is from (its module's from_dlpack); where that library
    has no from_dlpack, `exported` itself (any from_dlpack can take it)."""
    if like == "numpy" and exported._device[0] == CPU:
        t = exported._managed.contents.dl_tensor
        typestr = _TYPESTR.get(_DTYPES.get((t.dtype.code, t.dtype.bits)))
        if typestr is not None and t.dtype.lanes == 1:
            return sys.modules["numpy"].asarray(_HostArray(exported, typestr))
    if like == "torch":
        torch = sys.modules["torch"]
        # Made on torch's current stream: the capsule needs no handshake.
        capsule = exported.__dlpack__()
        return torch.utils.dlpack.from_dlpack(capsule)
    module = sys.modules.get(like)
    if module is None or not hasattr(module, "from_dlpack"):
        return exported
    return module.from_dlpack(exported)
