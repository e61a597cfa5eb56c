// The precompiled header of the LibTorch headers that this project's translation units use
// most (cmake/BenchTorchPch.cmake compiles it once per build and every LibTorch target
// reuses it). Only includes: nothing here may change what a translation unit means, no
// macro, no using-declaration. Only headers that every LibTorch 2.3+ has, CPU or CUDA (no
// CUDA runtime header: a CUDA-only include stays in the file that needs it), and none that
// includes fmt (the SDK's spdlog needs Debian's fmt, cmake/BenchFmtFirst.cmake).
// Not installed: plugins built against an installed SDK do not see it.
#pragma once

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>
#include <ATen/record_function.h>
#include <c10/core/InferenceMode.h>
#include <torch/cuda.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/optimizer.h>
#include <torch/script.h>
#include <torch/types.h>
#include <torch/version.h>
