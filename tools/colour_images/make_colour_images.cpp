// Writes an image folder of colours for trying --param dataset=DIR (docs/models.md,
// "Accuracy"): eight classes, class_0 to class_7, whose colours have red near
// 16 + 32 k (the centres of tools' make_colour_classifier), N images each. Each image is
// one colour: red within --spread levels of its class's (uniform), green and blue
// uniform over 0-255; its size uniform in 160-480 x 160-480; JPEG (quality 90) and PNG
// in turn. Seeded: the same arguments write the same images.
//
//   make_colour_images DIR [--per-class N] [--spread L] [--seed S]    (defaults 25, 12, 1)
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>

#include "../../tests/support/image_files.hpp"

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: " << argv[0] << " DIR [--per-class N] [--spread L] [--seed S]\n";
        return 2;
    }
    int per_class = 25, spread = 12;
    unsigned seed = 1;
    for (int i = 2; i + 1 < argc; i += 2) {
        const std::string arg = argv[i];
        if (arg == "--per-class") per_class = std::atoi(argv[i + 1]);
        else if (arg == "--spread") spread = std::atoi(argv[i + 1]);
        else if (arg == "--seed") seed = static_cast<unsigned>(std::atol(argv[i + 1]));
        else {
            std::cerr << argv[0] << ": unknown argument '" << arg << "'\n";
            return 2;
        }
    }
    if (argc % 2 != 0 || per_class < 1 || spread < 0 || spread > 16) {
        std::cerr << argv[0] << ": need an even number of options, --per-class >= 1, 0 <= --spread <= 16\n";
        return 2;
    }
    const std::filesystem::path root = argv[1];
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> offset(-spread, spread), channel(0, 255), side(160, 480);
    int written = 0;
    for (int k = 0; k < benchtest::colour_classes; ++k) {
        const std::filesystem::path folder = root / ("class_" + std::to_string(k));
        std::filesystem::create_directories(folder);
        for (int i = 0; i < per_class; ++i) {
            const int red = benchtest::colour_red(k) + offset(rng);
            const int green = channel(rng), blue = channel(rng);
            const int width = side(rng), height = side(rng);
            const benchtest::Pixels pixels =
                benchtest::solid(width, height, static_cast<unsigned char>(red), static_cast<unsigned char>(green),
                                 static_cast<unsigned char>(blue));
            const std::string name = std::to_string(1000 + i).substr(1);
            if (i % 2 == 0) benchtest::write_jpeg(folder / (name + ".jpg"), pixels, 90);
            else benchtest::write_png(folder / (name + ".png"), pixels);
            ++written;
        }
    }
    std::cout << "wrote " << written << " images in " << benchtest::colour_classes << " classes under " << root.string()
              << "\n";
    return 0;
}
