// What LibTorch's ProcessGroupGloo.hpp needs of gloo's rendezvous store, for a LibTorch
// that ships without gloo's headers (the pip wheel): the interface its GlooStore
// implements (gloo/rendezvous/store.h, without the v2 additions, which
// GLOO_STORE_HAS_STORE_V2 leaves out). Nothing here is compiled into code: the SDK never
// makes a GlooStore, LibTorch's library does.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace gloo::rendezvous {

class Store {
public:
    virtual ~Store() = default;
    virtual void set(const std::string& key, const std::vector<char>& data) = 0;
    virtual std::vector<char> get(const std::string& key) = 0;
    virtual void wait(const std::vector<std::string>& keys) = 0;
    virtual void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) = 0;
};

}  // namespace gloo::rendezvous
