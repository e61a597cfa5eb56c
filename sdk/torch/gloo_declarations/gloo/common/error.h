// For ProcessGroupGloo.hpp without gloo's headers: gloo/context.h declares what it names.
#pragma once

#include <gloo/context.h>
