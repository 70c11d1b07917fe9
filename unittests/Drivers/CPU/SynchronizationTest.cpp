//===- SynchronizationTest.cpp - barriers, queues and fences of the CPU driver ===//

#include "DriverTestSupport.h"
#include "TestPrograms.h"

#include <chrono>
#include <thread>

using namespace cgc::cpu::testing;

namespace {

class CPUSynchronizationTest : public CPUDriverTest {};

std::vector<float> rectify(const std::vector<float> &values) {
  std::vector<float> result(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    result[i] = std::max(values[i], 0.0f);
  return result;
}

TEST_F(CPUSynchronizationTest, BarrierOrdersADispatchBeforeACopy) {
  void *program = compile(kRelu);
  ASSERT_TRUE(program);
  std::vector<float> x = makeValues(16, 11);
  TestBuffer xBuffer = createBuffer(x), y = createBuffer(64), z = createBuffer(64);
  void *list = createList();
  recordDispatch(list, program, {bind(0, xBuffer), bind(1, y)});
  CgcBarrierDesc barrier{CGC_API_VERSION, CGC_BARRIER_TYPE_BUFFER_RANGE, y.range()};
  ASSERT_EQ(ddi->recordBarrier(list, &barrier), CGC_OK);
  ASSERT_EQ(ddi->recordCopy(list, z.address, y.address, 64), CGC_OK);
  execute(list);
  std::vector<float> expected = rectify(x);
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(z.floats()[i], expected[i]) << i;
}

TEST_F(CPUSynchronizationTest, FallbackSubgraphsChainBehindRangeBarriers) {
  // What the runtime records for the compiler's output: subgraphs of the
  // fallback target ("cpu.fallback"), which the driver compiles like its own
  // (it never reads the origin), and a range barrier over only the bytes the
  // second dispatch reads from the first.
  std::string text = kRelu;
  std::string origin = "origin = \"cpu\"";
  text.replace(text.find(origin), origin.size(), "origin = \"cpu.fallback\"");
  void *program = compile(text, "reluPartition");
  ASSERT_TRUE(program) << messages.take();
  std::vector<float> x = makeValues(16, 13);
  TestBuffer xBuffer = createBuffer(x), y = createBuffer(64), z = createBuffer(64);
  void *list = createList();
  recordDispatch(list, program, {bind(0, xBuffer), bind(1, y)});
  CgcBarrierDesc barrier{CGC_API_VERSION, CGC_BARRIER_TYPE_BUFFER_RANGE, {y.address + 16, 32}};
  ASSERT_EQ(ddi->recordBarrier(list, &barrier), CGC_OK);
  barrier.range = {y.address, 16};
  ASSERT_EQ(ddi->recordBarrier(list, &barrier), CGC_OK);
  barrier.range = {y.address + 48, 16};
  ASSERT_EQ(ddi->recordBarrier(list, &barrier), CGC_OK);
  recordDispatch(list, program, {bind(0, y), bind(1, z)});
  execute(list);
  std::vector<float> expected = rectify(x);
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(z.floats()[i], expected[i]) << i;
}

TEST_F(CPUSynchronizationTest, QueueWaitHoldsBackLaterWorkUntilAnotherQueueSignals) {
  void *program = compile(kRelu);
  ASSERT_TRUE(program);
  std::vector<float> source = makeValues(16, 12);
  TestBuffer sourceBuffer = createBuffer(source), x = createBuffer(64), y = createBuffer(64);

  // Queue A: wait for `produced`, then y = relu(x), then signal `consumed`.
  void *consumer = createList();
  recordDispatch(consumer, program, {bind(0, x), bind(1, y)});
  ASSERT_EQ(ddi->closeCommandList(consumer), CGC_OK);
  // Queue B: x = source, then signal `produced`.
  void *producer = createList();
  ASSERT_EQ(ddi->recordCopy(producer, x.address, sourceBuffer.address, 64), CGC_OK);
  ASSERT_EQ(ddi->closeCommandList(producer), CGC_OK);

  void *queueB = nullptr, *produced = nullptr, *consumed = nullptr;
  ASSERT_EQ(ddi->createQueue(device, &queueB), CGC_OK);
  ASSERT_EQ(ddi->createFence(device, 0, &produced), CGC_OK);
  ASSERT_EQ(ddi->createFence(device, 0, &consumed), CGC_OK);

  ASSERT_EQ(ddi->queueWait(queue, produced, 1), CGC_OK);
  ASSERT_EQ(ddi->executeCommandLists(queue, 1, &consumer), CGC_OK);
  ASSERT_EQ(ddi->queueSignal(queue, consumed, 1), CGC_OK);

  // Queue A is blocked: nothing behind its wait runs.
  EXPECT_EQ(ddi->waitFence(consumed, 1, 50'000'000), CGC_ERROR_TIMEOUT);
  EXPECT_EQ(ddi->getFenceCompletedValue(consumed), 0u);

  ASSERT_EQ(ddi->executeCommandLists(queueB, 1, &producer), CGC_OK);
  ASSERT_EQ(ddi->queueSignal(queueB, produced, 1), CGC_OK);
  ASSERT_EQ(ddi->waitFence(consumed, 1, 10'000'000'000ull), CGC_OK) << messages.take();
  EXPECT_EQ(ddi->getFenceCompletedValue(produced), 1u);
  std::vector<float> expected = rectify(source);
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(y.floats()[i], expected[i]) << i;
  ddi->destroyQueue(device, queueB);
}

TEST_F(CPUSynchronizationTest, QueueSignalFollowsEverythingSubmittedBefore) {
  void *program = compile(kRelu);
  ASSERT_TRUE(program);
  // A chain of copies, one list each: the signal comes after the last.
  std::vector<float> source = makeValues(16, 13);
  std::vector<TestBuffer> stages;
  stages.push_back(createBuffer(source));
  std::vector<void *> lists;
  for (int i = 0; i < 8; ++i) {
    stages.push_back(createBuffer(64));
    void *list = createList();
    ASSERT_EQ(ddi->recordCopy(list, stages.back().address, stages[stages.size() - 2].address, 64),
              CGC_OK);
    ASSERT_EQ(ddi->closeCommandList(list), CGC_OK);
    lists.push_back(list);
  }
  ASSERT_EQ(ddi->executeCommandLists(queue, 4, lists.data()), CGC_OK);
  ASSERT_EQ(ddi->executeCommandLists(queue, 4, lists.data() + 4), CGC_OK);
  ASSERT_EQ(ddi->queueSignal(queue, fence, 5), CGC_OK);
  ASSERT_EQ(ddi->waitFence(fence, 5, 10'000'000'000ull), CGC_OK);
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(stages.back().floats()[i], source[i]) << i;
}

TEST_F(CPUSynchronizationTest, HostWaitTimesOut) {
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(ddi->waitFence(fence, 1, 20'000'000), CGC_ERROR_TIMEOUT);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(20));
  EXPECT_NE(messages.take().find("not 1"), std::string::npos);
  EXPECT_EQ(ddi->waitFence(fence, 0, 0), CGC_OK); // already reached
}

TEST_F(CPUSynchronizationTest, HostSignalWakesAWaiterAndNeverGoesBack) {
  std::thread signaller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ddi->signalFence(fence, 3);
  });
  EXPECT_EQ(ddi->waitFence(fence, 2, UINT64_MAX), CGC_OK);
  signaller.join();
  EXPECT_EQ(ddi->getFenceCompletedValue(fence), 3u);
  EXPECT_EQ(ddi->signalFence(fence, 2), CGC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(messages.take().find("may not go backwards"), std::string::npos);
  EXPECT_EQ(ddi->getFenceCompletedValue(fence), 3u);
  // A queue signal below the current value leaves the timeline where it is.
  ASSERT_EQ(ddi->queueSignal(queue, fence, 1), CGC_OK);
  ASSERT_EQ(ddi->queueSignal(queue, fence, 4), CGC_OK);
  ASSERT_EQ(ddi->waitFence(fence, 4, 10'000'000'000ull), CGC_OK);
  EXPECT_EQ(ddi->getFenceCompletedValue(fence), 4u);
}

TEST_F(CPUSynchronizationTest, DestroyingABlockedQueueReturns) {
  void *blocked = nullptr, *never = nullptr;
  ASSERT_EQ(ddi->createQueue(device, &blocked), CGC_OK);
  ASSERT_EQ(ddi->createFence(device, 0, &never), CGC_OK);
  ASSERT_EQ(ddi->queueWait(blocked, never, 1), CGC_OK);
  ASSERT_EQ(ddi->queueSignal(blocked, fence, 1), CGC_OK);
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ddi->destroyQueue(device, blocked); // must not hang
  // The work behind the unsatisfied wait was dropped.
  EXPECT_EQ(ddi->getFenceCompletedValue(fence), 0u);
}

} // namespace
