//! The OpenCL and CUDA emitters: a [`pollen_gpu::GpuProgram`] printed as kernels and a
//! host program in place of the `#pragma scop` region of the user's C file.
