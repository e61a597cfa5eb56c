#include <bench/torch/image_dataset.hpp>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

#include <bench/clock.hpp>
#include <bench/torch/image_file.hpp>

namespace bench::libtorch {

ImageDataset load_image_dataset(const ImageFolder& folder, const ImagePreprocessing& settings, int64_t limit) {
    const auto available = static_cast<int64_t>(folder.images.size());
    const int64_t count = limit < 0 ? available : std::min(limit, available);
    if (count < 1) throw std::invalid_argument("data set " + folder.root.string() + ": no images to load");
    ImageDataset dataset;
    dataset.folder = folder;
    dataset.images = torch::empty({count, 3, settings.crop, settings.crop}, torch::kFloat);
    dataset.labels = torch::empty({count}, torch::kLong);
    const auto start = Clock::now();
    for (int64_t i = 0; i < count; ++i) {
        const ImageFolder::Image& image = folder.images[static_cast<std::size_t>(i)];
        dataset.images[i].copy_(preprocess_image(decode_image(image.file), settings));
        dataset.labels[i] = image.label;
    }
    dataset.preprocess_ms = elapsed_ns(start, Clock::now()) / 1e6;
    return dataset;
}

void record_dataset(Context& ctx, const ImageDataset& dataset) {
    const int64_t count = dataset.count();
    ctx.record_scalar("dataset_images", static_cast<double>(count), "count");
    ctx.record_scalar("preprocess_time", dataset.preprocess_ms, "ms");
    if (count > 0) ctx.record_scalar("preprocess_per_image", dataset.preprocess_ms / static_cast<double>(count), "ms");
    ctx.set_info("dataset", dataset.folder.root.string() + ": " + std::to_string(count) + " of " +
                                std::to_string(dataset.folder.images.size()) + " images, " +
                                std::to_string(dataset.folder.classes.size()) + " classes");
}

torch::Tensor dataset_batch(const ImageDataset& dataset, int64_t batch_size) {
    const int64_t count = dataset.count();
    if (count < 1) throw std::invalid_argument("dataset_batch: the data set holds no images");
    if (batch_size < 1) throw std::invalid_argument("dataset_batch: batch_size must be >= 1");
    if (batch_size <= count) return dataset.images.narrow(0, 0, batch_size).clone();
    const torch::Tensor index = torch::arange(batch_size, torch::kLong).remainder(count);
    return dataset.images.index_select(0, index);
}

bool use_image_dataset(Context& ctx, ModelBenchmark& spec, const ImagePreprocessing& settings) {
    if (!ctx.params().contains("dataset")) return false;
    const std::string dir = ctx.params().get_string("dataset");
    if (dir.empty()) throw std::invalid_argument("parameter dataset: expected a folder, got an empty value");
    const int64_t batch = ctx.config().batch_size;
    auto dataset = std::make_shared<const ImageDataset>(load_image_dataset(scan_image_folder(dir), settings, batch));
    record_dataset(ctx, *dataset);
    spec.make_input = [dataset](int64_t batch_size, torch::Device device, torch::ScalarType dtype) {
        return dataset_batch(*dataset, batch_size).to(device, dtype);
    };
    return true;
}

}  // namespace bench::libtorch
