// Real images as a model's input: an image folder decoded and preprocessed into a
// tensor, with the time that took measured apart from the model's.
#pragma once

#include <cstdint>
#include <string>

#include <torch/types.h>

#include <bench/context.hpp>
#include <bench/torch/image_folder.hpp>
#include <bench/torch/image_preprocessing.hpp>
#include <bench/torch/model_benchmark.hpp>

namespace bench::libtorch {

/// Images of a folder, preprocessed, in memory.
struct ImageDataset {
    ImageFolder folder;
    torch::Tensor images;  // float32 [count, 3, crop, crop] on the CPU: the folder's first images, in its order
    torch::Tensor labels;  // int64 [count]: their classes
    double preprocess_ms = 0;  // decoding and preprocessing them, wall clock

    int64_t count() const { return images.defined() ? images.size(0) : 0; }
};

/// Decodes (decode_image) and preprocesses (preprocess_image) the first `limit` images
/// of `folder` in its order, all of them when `limit` < 0 or beyond their count. An
/// image that cannot be decoded ends it: std::runtime_error naming the file and why.
BENCH_EXPORT ImageDataset load_image_dataset(const ImageFolder& folder, const ImagePreprocessing& settings = {},
                                             int64_t limit = -1);

/// Records what was loaded, outside any timed sample: the scalars "dataset_images"
/// (count), "preprocess_time" (ms: decoding and preprocessing them all) and
/// "preprocess_per_image" (ms), and info "dataset" ("DIR: 10 of 10 images, 8 classes").
BENCH_EXPORT void record_dataset(Context& ctx, const ImageDataset& dataset);

/// A batch of `batch_size` images of the data set: images 0, 1, ... in order, from the
/// first again when it has fewer. float32 on the CPU.
BENCH_EXPORT torch::Tensor dataset_batch(const ImageDataset& dataset, int64_t batch_size);

/// For a model plugin whose model takes images: when the scenario has the parameter
/// `dataset` (`--param dataset=DIR`), scans DIR (scan_image_folder), loads its first
/// batch_size images with `settings`, records them (record_dataset) and makes
/// spec.make_input return that batch (dataset_batch) on the device, in the dtype, in
/// place of the plugin's random input. Returns whether it did. A DIR that is not an
/// image folder is std::invalid_argument, a file that cannot be decoded
/// std::runtime_error: the scenario fails with the reason.
BENCH_EXPORT bool use_image_dataset(Context& ctx, ModelBenchmark& spec, const ImagePreprocessing& settings = {});

}  // namespace bench::libtorch
