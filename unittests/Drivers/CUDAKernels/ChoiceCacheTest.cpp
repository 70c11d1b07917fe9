//===- ChoiceCacheTest.cpp - timed choices kept per process ---------------===//

#include "drivers/cuda/kernels/ChoiceCache.h"

#include "gtest/gtest.h"

#include <string>
#include <thread>
#include <vector>

using namespace cgc::cuda;

namespace {

struct Choice {
  int algorithm = 0;
  std::string why;
};

TEST(ChoiceCacheTest, KeepsChoicesByKey) {
  ChoiceCache<Choice> cache;
  EXPECT_FALSE(cache.lookup("0:product 128x768x768").has_value());
  cache.store("0:product 128x768x768", {3, "timed"});
  cache.store("1:product 128x768x768", {5, "another device"});
  std::optional<Choice> found = cache.lookup("0:product 128x768x768");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->algorithm, 3);
  EXPECT_EQ(found->why, "timed");
  EXPECT_EQ(cache.lookup("1:product 128x768x768")->algorithm, 5);
  // A later store for the same key replaces the choice.
  cache.store("0:product 128x768x768", {4, "timed again"});
  EXPECT_EQ(cache.lookup("0:product 128x768x768")->algorithm, 4);
}

TEST(ChoiceCacheTest, ThreadsStoreAndLookUpAtOnce) {
  ChoiceCache<Choice> cache;
  std::vector<std::thread> threads;
  for (int thread = 0; thread < 8; ++thread)
    threads.emplace_back([&cache, thread] {
      for (int index = 0; index < 200; ++index) {
        std::string key = std::to_string(index % 50);
        cache.store(key, {index % 50, "thread " + std::to_string(thread)});
        std::optional<Choice> found = cache.lookup(key);
        ASSERT_TRUE(found.has_value());
        EXPECT_EQ(found->algorithm, index % 50);
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  for (int index = 0; index < 50; ++index)
    EXPECT_EQ(cache.lookup(std::to_string(index))->algorithm, index);
}

} // namespace
