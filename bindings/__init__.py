"""movecore.bindings: the C ABI over the same kernels (cffi). See the C ABI issue."""
