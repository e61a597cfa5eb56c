#include <bench/torch/classification.hpp>

#include <algorithm>
#include <stdexcept>

namespace bench::libtorch {

namespace {

std::string shape_text(c10::IntArrayRef sizes) {
    std::string out = "[";
    for (std::size_t i = 0; i < sizes.size(); ++i) out += (i ? ", " : "") + std::to_string(sizes[i]);
    return out + "]";
}

}  // namespace

Accuracy classification_accuracy(const Forward& forward, const ImageDataset& dataset, const std::string& model,
                                 int64_t batch_size, torch::Device device, torch::ScalarType dtype) {
    if (batch_size < 1) throw std::invalid_argument("classification_accuracy: batch_size must be >= 1");
    const torch::NoGradGuard no_grad;
    Accuracy accuracy;
    accuracy.model = model;
    accuracy.dataset = dataset.folder.root.string();
    const int64_t count = dataset.count();
    for (int64_t start = 0; start < count; start += batch_size) {
        const int64_t real = std::min(batch_size, count - start);
        torch::Tensor batch = dataset.images.narrow(0, start, real);
        if (real < batch_size) {
            const torch::Tensor fill = torch::arange(batch_size - real, torch::kLong).remainder(count);
            batch = torch::cat({batch, dataset.images.index_select(0, fill)});
        }
        const torch::Tensor scores = forward(batch.to(device, dtype));
        if (scores.dim() != 2 || scores.size(0) != batch_size)
            throw std::runtime_error("classifying the images of " + accuracy.dataset + ": " + model + "'s output is " +
                                     shape_text(scores.sizes()) + ", expected scores [" + std::to_string(batch_size) +
                                     ", classes]");
        const torch::Tensor kept = scores.narrow(0, 0, real).to(torch::kCPU, torch::kFloat);
        const int64_t k = std::min<int64_t>(5, kept.size(1));
        const torch::Tensor best = std::get<1>(kept.topk(k, /*dim=*/1));  // [real, k], highest first
        const torch::Tensor hits = best.eq(dataset.labels.narrow(0, start, real).unsqueeze(1));
        accuracy.top1_correct += hits.select(1, 0).sum().item<int64_t>();
        accuracy.top5_correct += hits.any(1).sum().item<int64_t>();
        accuracy.inputs += real;
    }
    return accuracy;
}

}  // namespace bench::libtorch
