// How often a classifier is right: top-1 and top-5 accuracy over a labelled image folder.
#pragma once

#include <cstdint>
#include <string>

#include <torch/types.h>

#include <bench/result.hpp>
#include <bench/torch/image_dataset.hpp>
#include <bench/torch/model_benchmark.hpp>

namespace bench::libtorch {

/// Runs `forward` over every image of `dataset` in batches of `batch_size` (the last
/// one filled up with the data set's first images, whose scores are not counted, so
/// that the model always sees the same shape), on `device` in `dtype`, and counts the
/// images whose label (the index of its class folder) has the highest score, and those
/// whose label is among the five highest (among all of them when the model scores
/// fewer than five classes). The scores are the model's output [batch, classes];
/// another shape is std::runtime_error saying what it got. Not timed: call it outside
/// the measured samples. The result is named `model`, with the folder as its data set,
/// for Context::record_accuracy.
BENCH_EXPORT Accuracy classification_accuracy(const Forward& forward, const ImageDataset& dataset,
                                              const std::string& model, int64_t batch_size, torch::Device device,
                                              torch::ScalarType dtype);

}  // namespace bench::libtorch
