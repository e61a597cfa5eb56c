// Writes a TorchScript classifier of solid colours, whose accuracy on a data set is known
// by construction (the tests' data set: tests/support/image_files.hpp): class k is the
// colour with red 16 + 32 k, and the model scores each class by how close the image's
// mean red, normalised as the ImageNet preprocessing does, is to that class's:
//   score_k = -(mean(x[:, 0]) - centre_k)^2
// so that its best five are the nearest colours. Eight classes by default.
//
// With --trunk W, the mean red is estimated instead by a trunk of real work, as a model
// would compute a feature: a 3x3 convolution of the 3 channels to W (each channel a
// box filter of the red channel, plus seeded Gaussian noise of standard deviation
// --noise on every weight, bias 3 so that the ReLU after it keeps its input), then a
// 1x1 convolution of W to W averaging the channels (the same noise), and the mean of
// that, less 3. The noise makes the estimate wrong by an amount that depends on the
// image's green and blue: a trunk costs more than the exact mean and is wrong on some
// images, how many depending on its width and seed (docs/models.md measures some).
//
//   make_colour_classifier OUTPUT.pt [--classes N] [--swap A,B] [--trunk W [--noise S] [--seed N]]
//     --swap A,B  swaps the centres of classes A and B: a deliberately worse model
//     --trunk W   the convolutional trunk above, W channels wide (default: none)
//     --noise S   its weights' noise (default 0.05); --seed N its seed (default 0)
#include <torch/script.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: " << argv[0] << " OUTPUT.pt [--classes N] [--swap A,B]\n";
        return 2;
    }
    int classes = 8;
    int swap_a = -1, swap_b = -1;
    int trunk = 0;
    double noise = 0.05;
    long seed = 0;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--classes" && i + 1 < argc) {
            classes = std::atoi(argv[++i]);
        } else if (arg == "--swap" && i + 1 < argc) {
            const std::string pair = argv[++i];
            const auto comma = pair.find(',');
            if (comma == std::string::npos) {
                std::cerr << argv[0] << ": --swap takes A,B, got '" << pair << "'\n";
                return 2;
            }
            swap_a = std::atoi(pair.substr(0, comma).c_str());
            swap_b = std::atoi(pair.substr(comma + 1).c_str());
        } else if (arg == "--trunk" && i + 1 < argc) {
            trunk = std::atoi(argv[++i]);
        } else if (arg == "--noise" && i + 1 < argc) {
            noise = std::atof(argv[++i]);
        } else if (arg == "--seed" && i + 1 < argc) {
            seed = std::atol(argv[++i]);
        } else {
            std::cerr << argv[0] << ": unknown argument '" << arg << "'\n";
            return 2;
        }
    }
    if (classes < 1 || swap_a >= classes || swap_b >= classes || trunk < 0 || noise < 0) {
        std::cerr << argv[0] << ": need 1 or more classes, and classes to swap among them\n";
        return 2;
    }
    std::vector<float> centres;
    for (int k = 0; k < classes; ++k) centres.push_back(static_cast<float>(((16 + 32 * k) / 255.0 - 0.485) / 0.229));
    if (swap_a >= 0 && swap_b >= 0)
        std::swap(centres[static_cast<std::size_t>(swap_a)], centres[static_cast<std::size_t>(swap_b)]);

    torch::jit::Module model("ColourClassifier");
    model.register_parameter("centres", torch::tensor(centres), /*is_buffer=*/false);
    if (trunk == 0) {
        model.define(R"JIT(
def forward(self, x):
    red = torch.mean(x[:, 0], [1, 2])
    distance = red.unsqueeze(1) - self.centres.unsqueeze(0)
    return -(distance * distance)
)JIT");
    } else {
        torch::manual_seed(static_cast<uint64_t>(seed));
        torch::Tensor w1 = torch::randn({trunk, 3, 3, 3}) * noise;
        w1.select(1, 0).add_(1.0 / 9);  // a box filter of the red channel, in every output channel
        torch::Tensor w2 = torch::randn({trunk, trunk, 1, 1}) * noise / trunk;
        w2.add_(1.0 / trunk);  // the mean of the channels
        model.register_parameter("w1", w1, false);
        model.register_parameter("b1", torch::full({trunk}, 3.0), false);
        model.register_parameter("w2", w2, false);
        model.define(R"JIT(
def forward(self, x):
    h = torch.relu(torch.conv2d(x, self.w1, self.b1, [1, 1], [1, 1]))
    g = torch.conv2d(h, self.w2)
    red = torch.mean(g, [1, 2, 3]) - 3.0
    distance = red.unsqueeze(1) - self.centres.unsqueeze(0)
    return -(distance * distance)
)JIT");
    }
    model.save(argv[1]);
    std::cout << "wrote " << argv[1] << "\n";
    return 0;
}
