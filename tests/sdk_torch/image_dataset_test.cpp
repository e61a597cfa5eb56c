// Image folders as input: decoding JPEG and PNG files written here with libjpeg and
// libpng, the ImageNet preprocessing, the folder's classes, and a model benchmark fed
// with them.
#include <bench/torch/image_dataset.hpp>
#include <bench/torch/image_file.hpp>
#include <bench/torch/image_folder.hpp>
#include <bench/torch/image_preprocessing.hpp>

#include <fstream>
#include <string>

#include <spdlog/sinks/null_sink.h>
#include <torch/nn/modules/linear.h>

#include <gtest/gtest.h>

#include "../support/image_files.hpp"
#include "../support/test_support.hpp"

namespace {

using namespace bench::libtorch;
using benchtest::Pixels;
using benchtest::TempDir;
namespace fs = std::filesystem;

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "(no error)";
}

Pixels random_pixels(int width, int height, int channels, unsigned seed) {
    Pixels p{width, height, channels, std::vector<unsigned char>(static_cast<std::size_t>(width) * height * channels)};
    for (auto& byte : p.bytes) byte = static_cast<unsigned char>((seed = seed * 1103515245u + 12345u) >> 16);
    return p;
}

TEST(DecodeImage, PngRoundTripsExactly) {
    TempDir dir;
    const Pixels pixels = random_pixels(7, 5, 3, 1);
    benchtest::write_png(dir / "a.png", pixels);
    const torch::Tensor image = decode_image(dir / "a.png");
    ASSERT_EQ(image.sizes(), (std::vector<int64_t>{5, 7, 3}));
    ASSERT_EQ(image.scalar_type(), torch::kUInt8);
    EXPECT_EQ(
        std::vector<unsigned char>(image.data_ptr<unsigned char>(), image.data_ptr<unsigned char>() + image.numel()),
        pixels.bytes);
}

TEST(DecodeImage, PngGreyAndAlphaBecomeRgb) {
    TempDir dir;
    benchtest::write_png(dir / "grey.png", Pixels{2, 1, 1, {10, 200}});
    torch::Tensor grey = decode_image(dir / "grey.png");
    ASSERT_EQ(grey.sizes(), (std::vector<int64_t>{1, 2, 3}));
    for (int c = 0; c < 3; ++c) {
        EXPECT_EQ(grey[0][0][c].item<int>(), 10);
        EXPECT_EQ(grey[0][1][c].item<int>(), 200);
    }
    // Opaque pixels keep their colour; transparent ones are composited onto black.
    benchtest::write_png(dir / "alpha.png", Pixels{2, 1, 4, {200, 100, 50, 255, 200, 100, 50, 0}});
    const torch::Tensor alpha = decode_image(dir / "alpha.png");
    ASSERT_EQ(alpha.sizes(), (std::vector<int64_t>{1, 2, 3}));
    EXPECT_EQ(alpha[0][0][0].item<int>(), 200);
    EXPECT_EQ(alpha[0][0][1].item<int>(), 100);
    EXPECT_EQ(alpha[0][0][2].item<int>(), 50);
    EXPECT_EQ(alpha[0][1].sum().item<int>(), 0);
}

TEST(DecodeImage, JpegDecodesCloseToWhatWasWritten) {
    TempDir dir;
    benchtest::write_jpeg(dir / "solid.jpg", benchtest::solid(33, 17, 200, 40, 90));
    const torch::Tensor solid = decode_image(dir / "solid.jpg");
    ASSERT_EQ(solid.sizes(), (std::vector<int64_t>{17, 33, 3}));
    const torch::Tensor expected = torch::tensor({200, 40, 90}, torch::kInt).view({1, 1, 3});
    EXPECT_LE((solid.to(torch::kInt) - expected).abs().max().item<int>(), 3);

    benchtest::write_jpeg(dir / "grey.jpg", Pixels{2, 2, 1, {120, 120, 120, 120}});
    const torch::Tensor grey = decode_image(dir / "grey.jpg");
    ASSERT_EQ(grey.sizes(), (std::vector<int64_t>{2, 2, 3}));
    EXPECT_LE((grey.to(torch::kInt) - 120).abs().max().item<int>(), 1);
}

TEST(DecodeImage, TheFormatIsToldByTheBytesNotTheName) {
    TempDir dir;
    benchtest::write_png(dir / "really_a_png.jpg", benchtest::solid(3, 3, 1, 2, 3));
    EXPECT_EQ(decode_image(dir / "really_a_png.jpg")[1][1][2].item<int>(), 3);
}

TEST(DecodeImage, ErrorsNameTheFileAndTheReason) {
    TempDir dir;
    benchtest::write_file(dir / "text.jpg", "hello");
    EXPECT_EQ(error_of([&] { decode_image(dir / "text.jpg"); }),
              (dir / "text.jpg").string() + ": not a JPEG or PNG file (it starts with 68 65 6c 6c)");
    benchtest::write_file(dir / "empty.png", "");
    EXPECT_EQ(error_of([&] { decode_image(dir / "empty.png"); }),
              (dir / "empty.png").string() + ": not a JPEG or PNG file (it is empty)");
    EXPECT_EQ(error_of([&] { decode_image(dir / "missing.png"); }),
              (dir / "missing.png").string() + ": cannot open: No such file or directory");

    // Truncated files: the libraries' own reasons.
    benchtest::write_jpeg(dir / "whole.jpg", random_pixels(64, 64, 3, 2));
    const std::string jpeg = benchtest::read_file(dir / "whole.jpg");
    benchtest::write_file(dir / "cut.jpg", jpeg.substr(0, jpeg.size() / 2));
    EXPECT_EQ(error_of([&] { decode_image(dir / "cut.jpg"); }),
              (dir / "cut.jpg").string() + ": cannot decode the JPEG: Premature end of JPEG file");
    benchtest::write_png(dir / "whole.png", random_pixels(64, 64, 3, 3));
    const std::string png = benchtest::read_file(dir / "whole.png");
    benchtest::write_file(dir / "cut.png", png.substr(0, png.size() / 2));
    const std::string cut_png = error_of([&] { decode_image(dir / "cut.png"); });
    EXPECT_TRUE(cut_png.starts_with((dir / "cut.png").string() + ": cannot decode the PNG: ")) << cut_png;
}

TEST(PreprocessImage, ASolidImageIsItsNormalisedColourEverywhere) {
    const Pixels pixels = benchtest::solid(300, 200, 255, 0, 128);
    const torch::Tensor rgb =
        torch::from_blob(const_cast<unsigned char*>(pixels.bytes.data()), {200, 300, 3}, torch::kUInt8);
    const torch::Tensor x = preprocess_image(rgb);
    ASSERT_EQ(x.sizes(), (std::vector<int64_t>{3, 224, 224}));
    ASSERT_EQ(x.scalar_type(), torch::kFloat);
    const double expected[3] = {(1.0 - 0.485) / 0.229, (0.0 - 0.456) / 0.224, (128 / 255.0 - 0.406) / 0.225};
    for (int c = 0; c < 3; ++c) {
        EXPECT_NEAR(x[c].min().item<double>(), expected[c], 1e-5) << c;
        EXPECT_NEAR(x[c].max().item<double>(), expected[c], 1e-5) << c;
    }
}

TEST(PreprocessImage, ResizesTheShorterSideAndCropsTheCentre) {
    // 50 wide, 100 high, the top half white: resized to 256 x 512, its white half is rows
    // 0-255; the crop starts at row (512 - 224) / 2 = 144, so its rows 0-111 are white
    // and 112-223 black (blurred over about one source row, 5 rows here, at the edge).
    Pixels pixels = benchtest::solid(50, 100, 0, 0, 0);
    for (int y = 0; y < 50; ++y)
        for (int col = 0; col < 50; ++col)
            for (int c = 0; c < 3; ++c) pixels.at(y, col, c) = 255;
    const torch::Tensor rgb = torch::from_blob(pixels.bytes.data(), {100, 50, 3}, torch::kUInt8);
    const torch::Tensor x = preprocess_image(rgb, {.resize = 256, .crop = 224, .mean = {0, 0, 0}, .std = {1, 1, 1}});
    ASSERT_EQ(x.sizes(), (std::vector<int64_t>{3, 224, 224}));
    EXPECT_NEAR(x.narrow(1, 0, 105).min().item<double>(), 1.0, 1e-5);
    EXPECT_NEAR(x.narrow(1, 119, 105).max().item<double>(), 0.0, 1e-5);
    EXPECT_NEAR(x[0][111].mean().item<double>() + x[0][112].mean().item<double>(), 1.0,
                1e-5);  // symmetric about the edge

    // A quarter white: rows 0-127 after resizing, all above the crop.
    Pixels quarter = benchtest::solid(50, 100, 0, 0, 0);
    for (int y = 0; y < 25; ++y)
        for (int col = 0; col < 50; ++col) quarter.at(y, col, 0) = 255;
    const torch::Tensor q = preprocess_image(torch::from_blob(quarter.bytes.data(), {100, 50, 3}, torch::kUInt8),
                                             {.resize = 256, .crop = 224, .mean = {0, 0, 0}, .std = {1, 1, 1}});
    EXPECT_NEAR(q.abs().max().item<double>(), 0.0, 1e-5);
}

TEST(PreprocessImage, RejectsWhatItCannotWorkWith) {
    const torch::Tensor rgb = torch::zeros({10, 10, 3}, torch::kUInt8);
    EXPECT_NE(error_of([&] { preprocess_image(rgb.to(torch::kFloat)); }).find("expected a uint8 image"),
              std::string::npos);
    EXPECT_NE(error_of([&] { preprocess_image(rgb, {.resize = 100, .crop = 224}); }).find("crop <= resize"),
              std::string::npos);
    EXPECT_NE(error_of([&] { preprocess_image(rgb, {.std = {1, 0, 1}}); }).find("positive"), std::string::npos);
}

/// DIR/<class>/<file> for each entry.
void make_folder(const fs::path& root, const std::vector<std::pair<std::string, std::string>>& files) {
    for (const auto& [klass, file] : files) {
        fs::create_directories(root / klass);
        benchtest::write_png(root / klass / file, benchtest::solid(8, 8, 10, 20, 30));
    }
}

TEST(ImageFolder, ClassesAreTheSortedSubFolders) {
    TempDir dir;
    make_folder(dir.path(), {{"zebra", "b.png"}, {"zebra", "a.PNG"}, {"ant", "x.jpg"}, {"moth", "m.jpeg"}});
    fs::create_directories(dir / "empty_class");
    fs::create_directories(dir / ".hidden");
    benchtest::write_file(dir / ".hidden/h.png", "");
    benchtest::write_file(dir / "zebra/README.txt", "not an image");
    benchtest::write_file(dir / "loose.png", "");
    const ImageFolder folder = scan_image_folder(dir.path());
    EXPECT_EQ(folder.classes, (std::vector<std::string>{"ant", "empty_class", "moth", "zebra"}));
    ASSERT_EQ(folder.images.size(), 4u);
    EXPECT_EQ(folder.images[0].file, dir / "ant/x.jpg");
    EXPECT_EQ(folder.images[0].label, 0);
    EXPECT_EQ(folder.images[1].label, 2);
    EXPECT_EQ(folder.images[2].file, dir / "zebra/a.PNG");
    EXPECT_EQ(folder.images[3].file, dir / "zebra/b.png");
    EXPECT_EQ(folder.images[3].label, 3);
}

TEST(ImageFolder, SaysWhatIsWrongWithTheFolder) {
    TempDir dir;
    EXPECT_EQ(error_of([&] { scan_image_folder(dir / "nope"); }),
              "data set " + (dir / "nope").string() + " does not exist");
    benchtest::write_file(dir / "file", "x");
    EXPECT_NE(error_of([&] { scan_image_folder(dir / "file"); }).find(" is not a folder"), std::string::npos);
    fs::create_directories(dir / "flat");
    benchtest::write_png(dir / "flat/a.png", benchtest::solid(2, 2, 0, 0, 0));
    EXPECT_EQ(error_of([&] { scan_image_folder(dir / "flat"); }),
              "data set " + (dir / "flat").string() +
                  " has no class folders (expected one sub-folder per class, holding its JPEG and PNG files)");
    fs::create_directories(dir / "no_images/cat");
    benchtest::write_file(dir / "no_images/cat/notes.txt", "x");
    EXPECT_EQ(error_of([&] { scan_image_folder(dir / "no_images"); }),
              "data set " + (dir / "no_images").string() + " has no .jpg, .jpeg or .png files in its 1 class folders");
}

TEST(ImageDataset, LoadsBatchesAndLabels) {
    TempDir dir;
    fs::create_directories(dir / "a");
    fs::create_directories(dir / "b");
    benchtest::write_png(dir / "a/1.png", benchtest::solid(20, 10, 255, 255, 255));
    benchtest::write_jpeg(dir / "b/1.jpg", benchtest::solid(10, 30, 0, 0, 0));
    benchtest::write_png(dir / "b/2.png", benchtest::solid(12, 12, 0, 0, 0));
    const ImageFolder folder = scan_image_folder(dir.path());
    const ImagePreprocessing small{.resize = 16, .crop = 8};
    const ImageDataset all = load_image_dataset(folder, small);
    ASSERT_EQ(all.count(), 3);
    EXPECT_EQ(all.images.sizes(), (std::vector<int64_t>{3, 3, 8, 8}));
    EXPECT_TRUE(all.labels.equal(torch::tensor({0, 1, 1}, torch::kLong)));
    EXPECT_GT(all.preprocess_ms, 0);
    EXPECT_EQ(load_image_dataset(folder, small, 2).count(), 2);

    // Batches take the images in order, round again when there are fewer.
    const torch::Tensor batch = dataset_batch(all, 5);
    ASSERT_EQ(batch.size(0), 5);
    EXPECT_TRUE(batch[3].equal(all.images[0]));
    EXPECT_TRUE(batch[4].equal(all.images[1]));
    EXPECT_TRUE(dataset_batch(all, 2).equal(all.images.narrow(0, 0, 2)));

    // An image that does not decode ends it, naming the file.
    benchtest::write_file(dir / "b/3.png", "<html>");
    EXPECT_EQ(error_of([&] { load_image_dataset(scan_image_folder(dir.path()), small); }),
              (dir / "b/3.png").string() + ": not a JPEG or PNG file (it starts with 3c 68 74 6d)");
}

TEST(ImageDataset, AModelBenchmarkRunsOnTheFolderWhenAsked) {
    TempDir dir;
    fs::create_directories(dir / "only");
    benchtest::write_png(dir / "only/1.png", benchtest::solid(40, 30, 255, 0, 0));
    bench::ScenarioConfig config;
    config.batch_size = 3;
    config.measurement_iterations = 2;
    config.warmup_iterations = 0;
    config.params.set("dataset", dir.path().string());
    bench::Context ctx(config,
                       std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::null_sink_mt>()));

    torch::nn::Linear fc(3 * 224 * 224, 2);
    ModelBenchmark spec;
    spec.model = "linear";
    spec.throughput_unit = "images/s";
    spec.module = fc.ptr();
    torch::Tensor seen;
    spec.forward = [&](const torch::Tensor& x) {
        seen = x;
        return fc->forward(x.flatten(1));
    };
    spec.make_input = [](int64_t, torch::Device, torch::ScalarType) -> torch::Tensor {
        throw std::logic_error("the random input is not used");
    };
    ASSERT_TRUE(use_image_dataset(ctx, spec));
    run_model_benchmark(ctx, spec);
    ASSERT_EQ(seen.size(0), 3);
    // The one red image, three times.
    EXPECT_NEAR(seen[2][0].mean().item<double>(), (1.0 - 0.485) / 0.229, 1e-5);
    const auto& result = ctx.result();
    EXPECT_EQ(result.find_scalar("dataset_images")->value, 1);
    EXPECT_GT(result.find_scalar("preprocess_time")->value, 0);
    EXPECT_EQ(result.info.at("dataset"), dir.path().string() + ": 1 of 1 images, 1 classes");

    bench::ScenarioConfig without;
    bench::Context plain(without,
                         std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::null_sink_mt>()));
    EXPECT_FALSE(use_image_dataset(plain, spec));
}

}  // namespace
