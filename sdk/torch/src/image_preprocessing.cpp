#include <bench/torch/image_preprocessing.hpp>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <ATen/ops/_upsample_bilinear2d_aa.h>
#include <torch/torch.h>  // torch::tensor, NoGradGuard

namespace bench::libtorch {

torch::Tensor preprocess_image(const torch::Tensor& rgb, const ImagePreprocessing& settings) {
    if (!rgb.defined() || rgb.dim() != 3 || rgb.size(2) != 3 || rgb.scalar_type() != torch::kUInt8)
        throw std::invalid_argument("preprocess_image: expected a uint8 image [height, width, 3]");
    if (settings.crop < 1 || settings.resize < settings.crop)
        throw std::invalid_argument("preprocess_image: need 1 <= crop <= resize, got crop " +
                                    std::to_string(settings.crop) + ", resize " + std::to_string(settings.resize));
    for (const double s : settings.std)
        if (!(s > 0)) throw std::invalid_argument("preprocess_image: every std must be positive");
    const int64_t height = rgb.size(0), width = rgb.size(1);
    if (height < 1 || width < 1) throw std::invalid_argument("preprocess_image: the image is empty");

    const torch::NoGradGuard no_grad;
    int64_t new_height = settings.resize, new_width = settings.resize;
    if (height < width) new_width = settings.resize * width / height;  // int(size * long / short)
    else if (width < height) new_height = settings.resize * height / width;

    const torch::Tensor scaled = rgb.permute({2, 0, 1}).unsqueeze(0).to(torch::kFloat).div_(255.0);
    const torch::Tensor resized = at::_upsample_bilinear2d_aa(scaled, at::IntArrayRef{new_height, new_width},
                                                              /*align_corners=*/false);
    const auto top = static_cast<int64_t>(std::nearbyint((new_height - settings.crop) / 2.0));
    const auto left = static_cast<int64_t>(std::nearbyint((new_width - settings.crop) / 2.0));
    const torch::Tensor cropped = resized.squeeze(0).narrow(1, top, settings.crop).narrow(2, left, settings.crop);
    const torch::Tensor mean = torch::tensor({settings.mean[0], settings.mean[1], settings.mean[2]}, torch::kFloat);
    const torch::Tensor std = torch::tensor({settings.std[0], settings.std[1], settings.std[2]}, torch::kFloat);
    return ((cropped - mean.view({3, 1, 1})) / std.view({3, 1, 1})).contiguous();
}

}  // namespace bench::libtorch
