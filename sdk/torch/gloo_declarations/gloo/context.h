// What LibTorch's ProcessGroupGloo.hpp names of gloo, for a LibTorch that ships without
// gloo's headers (the pip wheel): the classes it holds by pointer, and the one member its
// inline code calls (ProcessGroupGloo::setTimeout; gloo_declarations/gloo/rendezvous/
// store.h says why that is enough). Declared only: nothing here is defined.
#pragma once

#include <chrono>

namespace gloo {

class Context {
public:
    void setTimeout(std::chrono::milliseconds timeout);
};

namespace transport {
class Device;
class UnboundBuffer;
}  // namespace transport

}  // namespace gloo
