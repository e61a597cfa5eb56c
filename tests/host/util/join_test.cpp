// A list given as one string, split into its items and joined again (util/join.hpp): the
// one way the host reads a comma-separated list (axes, --param values, formats).
#include "util/join.hpp"

#include <gtest/gtest.h>

namespace {

using benchhost::join;
using benchhost::split;
using Items = std::vector<std::string>;

TEST(Split, GivesEveryItemInOrderEmptyOnesIncluded) {
    EXPECT_EQ(split("eager,compiled"), (Items{"eager", "compiled"}));
    EXPECT_EQ(split("eager"), (Items{"eager"}));
    EXPECT_EQ(split("eager,,compiled,"), (Items{"eager", "", "compiled", ""}));
    EXPECT_EQ(split(",x"), (Items{"", "x"}));
    EXPECT_EQ(split(""), (Items{""}));
    EXPECT_EQ(split("a:b c", ':'), (Items{"a", "b c"}));
}

TEST(Split, IsTheInverseOfJoin) {
    for (const Items& items : {Items{"gbench-json", "junit", "summary-md"}, Items{"1", "", "2", ""}, Items{""},
                               Items{"", "x"}, Items{"", "", "y"}})
        EXPECT_EQ(split(join(items)), items);
    for (const std::string text : {"a,b", "x,,y,", "", ",x", ",,"}) EXPECT_EQ(join(split(text)), text);
    EXPECT_EQ(join({"", "x"}, ", "), ", x");
    EXPECT_EQ(join({}), "");
}

}  // namespace
