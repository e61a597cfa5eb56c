// Writes a TorchScript classifier of solid colours, whose accuracy on a data set is known
// by construction (the tests' data set: tests/support/image_files.hpp): class k is the
// colour with red 16 + 32 k, and the model scores each class by how close the image's
// mean red, normalised as the ImageNet preprocessing does, is to that class's:
//   score_k = -(mean(x[:, 0]) - centre_k)^2
// so that its best five are the nearest colours. Eight classes by default.
//
//   make_colour_classifier OUTPUT.pt [--classes N] [--swap A,B]
//     --swap A,B  swaps the centres of classes A and B: a deliberately worse model
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
        } else {
            std::cerr << argv[0] << ": unknown argument '" << arg << "'\n";
            return 2;
        }
    }
    if (classes < 1 || swap_a >= classes || swap_b >= classes) {
        std::cerr << argv[0] << ": need 1 or more classes, and classes to swap among them\n";
        return 2;
    }
    std::vector<float> centres;
    for (int k = 0; k < classes; ++k) centres.push_back(static_cast<float>(((16 + 32 * k) / 255.0 - 0.485) / 0.229));
    if (swap_a >= 0 && swap_b >= 0) std::swap(centres[static_cast<std::size_t>(swap_a)], centres[static_cast<std::size_t>(swap_b)]);

    torch::jit::Module model("ColourClassifier");
    model.register_parameter("centres", torch::tensor(centres), /*is_buffer=*/false);
    model.define(R"JIT(
def forward(self, x):
    red = torch.mean(x[:, 0], [1, 2])
    distance = red.unsqueeze(1) - self.centres.unsqueeze(0)
    return -(distance * distance)
)JIT");
    model.save(argv[1]);
    std::cout << "wrote " << argv[1] << "\n";
    return 0;
}
