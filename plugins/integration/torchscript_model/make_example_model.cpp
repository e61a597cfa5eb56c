// Writes a small TorchScript CNN (random, seeded weights) to the path given as the
// only argument: the model the default suite and the tests give to torchscript_model.
#include <torch/script.h>

#include <iostream>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " OUTPUT.pt\n";
        return 2;
    }
    torch::manual_seed(0);
    torch::jit::Module model("ExampleCNN");
    auto parameter = [&](const char* name, std::vector<int64_t> shape, double scale) {
        model.register_parameter(name, torch::randn(shape) * scale, /*is_buffer=*/false);
    };
    parameter("conv1_w", {16, 3, 3, 3}, 0.2);
    parameter("conv1_b", {16}, 0.1);
    parameter("conv2_w", {32, 16, 3, 3}, 0.1);
    parameter("conv2_b", {32}, 0.1);
    parameter("fc_w", {10, 32}, 0.2);
    parameter("fc_b", {10}, 0.1);
    model.define(R"JIT(
def forward(self, x):
    x = torch.relu(torch.conv2d(x, self.conv1_w, self.conv1_b, [1, 1], [1, 1]))
    x = torch.relu(torch.conv2d(x, self.conv2_w, self.conv2_b, [2, 2], [1, 1]))
    x = torch.mean(x, [2, 3])
    return torch.linear(x, self.fc_w, self.fc_b)
)JIT");
    model.save(argv[1]);
    std::cout << "wrote " << argv[1] << "\n";
    return 0;
}
