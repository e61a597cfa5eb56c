// Top-1 and top-5 accuracy over an image folder, on a data set whose accuracy is known
// by construction (support/image_files.hpp) and the nearest-colour classifier in C++.
#include <bench/torch/classification.hpp>

#include <string>

#include <gtest/gtest.h>

#include "../support/image_files.hpp"
#include "../support/test_support.hpp"

namespace {

using namespace bench::libtorch;

/// Scores class k by -(mean normalised red - class k's normalised red)^2, as
/// make_colour_classifier's TorchScript model does; `calls` counts the batches it saw.
Forward colour_classifier(std::vector<int64_t>* batch_sizes) {
    std::vector<float> centres;
    for (int k = 0; k < benchtest::colour_classes; ++k)
        centres.push_back(static_cast<float>((benchtest::colour_red(k) / 255.0 - 0.485) / 0.229));
    const torch::Tensor centre = torch::tensor(centres);
    return [centre, batch_sizes](const torch::Tensor& x) {
        batch_sizes->push_back(x.size(0));
        const torch::Tensor red = x.select(1, 0).mean({1, 2});
        const torch::Tensor distance = red.unsqueeze(1) - centre.to(x.scalar_type()).unsqueeze(0);
        return -(distance * distance);
    };
}

TEST(ClassificationAccuracy, CountsTheTopOneAndTopFiveExactly) {
    benchtest::TempDir dir;
    benchtest::write_colour_dataset(dir.path());
    const ImageDataset dataset = load_image_dataset(scan_image_folder(dir.path()));
    ASSERT_EQ(dataset.count(), 10);
    for (const int64_t batch : {1, 3, 4, 10, 16}) {
        for (const torch::ScalarType dtype : {torch::kFloat, torch::kBFloat16}) {
            std::vector<int64_t> seen;
            const bench::Accuracy accuracy =
                classification_accuracy(colour_classifier(&seen), dataset, "colours", batch, torch::kCPU, dtype);
            EXPECT_EQ(accuracy.model, "colours");
            EXPECT_EQ(accuracy.dataset, dir.path().string());
            EXPECT_EQ(accuracy.inputs, 10) << batch;
            EXPECT_EQ(accuracy.top1_correct, 7) << batch;
            EXPECT_EQ(accuracy.top5_correct, 9) << batch;
            EXPECT_DOUBLE_EQ(accuracy.top1(), 0.7);
            // Every batch the model saw had the same size: the last one filled up.
            EXPECT_EQ(seen, std::vector<int64_t>(static_cast<std::size_t>((10 + batch - 1) / batch), batch)) << batch;
        }
    }
}

TEST(ClassificationAccuracy, WithFewerThanFiveClassesTheTopFiveIsEveryClass) {
    benchtest::TempDir dir;
    benchtest::write_colour_dataset(dir.path());
    const ImageDataset dataset = load_image_dataset(scan_image_folder(dir.path()));
    // A model that scores three classes, class 2 highest: the five images of classes 0 to
    // 2 are in its top 5, the others' classes it does not score at all.
    const Forward three_scores = [](const torch::Tensor& x) {
        return torch::tensor({0.f, 1.f, 2.f}).repeat({x.size(0), 1});
    };
    const bench::Accuracy accuracy = classification_accuracy(three_scores, dataset, "m", 4, torch::kCPU, torch::kFloat);
    EXPECT_EQ(accuracy.top5_correct, 5);
    EXPECT_EQ(accuracy.top1_correct, 2);  // class_2's two images
}

TEST(ClassificationAccuracy, AnOutputThatIsNotScoresIsAnError) {
    benchtest::TempDir dir;
    benchtest::write_colour_dataset(dir.path());
    const ImageDataset dataset = load_image_dataset(scan_image_folder(dir.path()), {}, 2);
    const Forward flat = [](const torch::Tensor& x) { return torch::zeros({x.size(0)}); };
    try {
        classification_accuracy(flat, dataset, "flat", 2, torch::kCPU, torch::kFloat);
        FAIL() << "no error";
    } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()), "classifying the images of " + dir.path().string() +
                                             ": flat's output is [2], expected scores [2, classes]");
    }
}

}  // namespace
