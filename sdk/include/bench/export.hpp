// Symbol visibility. Plugins and the SDK are built with hidden visibility by default;
// what the host must find is marked BENCH_EXPORT.
#pragma once

#define BENCH_EXPORT __attribute__((visibility("default")))
