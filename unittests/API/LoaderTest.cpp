//===- LoaderTest.cpp - Finding, rejecting and unloading driver plugins ---===//
//
// The API loads drivers once per process, so each case runs in a child
// process (a gtest death test that exits normally): the child sets
// CGC_DRIVER_PATH, calls the API, prints what it saw to stderr and exits with
// the number of failed checks; the parent checks the exit code and stderr.
//
//===----------------------------------------------------------------------===//

#include "cgc/api.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

const std::string kDrivers = CGC_TEST_DRIVERS_DIR;

/// Runs in the child: loads with `driverPath`, then `body` returns the number
/// of failed checks; exit() runs static destructors, which unload drivers.
template <typename Body>
[[noreturn]] void runWithDriverPath(const std::string &driverPath, Body body) {
  setenv("CGC_DRIVER_PATH", driverPath.c_str(), 1);
  setenv("CGC_LOG", "1", 1);
  int failures = body();
  std::exit(failures);
}

int check(bool condition, const char *what) {
  if (!condition)
    std::fprintf(stderr, "CHECK FAILED: %s\n", what);
  return condition ? 0 : 1;
}

/// Finds the adapter of `driverName`; prints every adapter's "driver/name".
CgcAdapter findAdapter(const char *driverName, std::string *nameOut = nullptr) {
  CgcAdapter found = nullptr;
  CgcAdapter adapter = nullptr;
  for (uint32_t i = 0; cgcEnumerateAdapters(i, &adapter) == CGC_OK; ++i) {
    CgcAdapterDesc desc = {};
    desc.version = CGC_API_VERSION;
    if (cgcGetAdapterDesc(adapter, &desc) != CGC_OK)
      continue;
    std::fprintf(stderr, "adapter %s/%s\n", desc.driverName, desc.name);
    if (!found && std::strcmp(desc.driverName, driverName) == 0) {
      found = adapter;
      if (nameOut)
        *nameOut = desc.name;
    }
  }
  // Past the last adapter: NOT_FOUND, whose message lists skipped drivers.
  std::fprintf(stderr, "enumerate end: %s\n", cgcGetLastErrorMessage());
  return found;
}

TEST(LoaderTest, RejectsAnotherDdiVersion) {
  EXPECT_EXIT(runWithDriverPath(kDrivers + "/bad-version:" + kDrivers + "/mock",
                                [] {
                                  return check(!findAdapter("badversion"), "badversion loaded") +
                                         check(findAdapter("mock") != nullptr, "mock missing");
                                }),
              ::testing::ExitedWithCode(0),
              "cgc: skipped driver .*libcgc-driver-badversion.so: the driver's function table "
              "has ddiVersion 2; this API needs 1.*enumerate end: cgcEnumerateAdapters: no "
              "adapter .*skipped .*libcgc-driver-badversion.so: .*ddiVersion 2");
}

TEST(LoaderTest, RejectsFailingOpen) {
  EXPECT_EXIT(runWithDriverPath(kDrivers + "/failing-open",
                                [] { return check(!findAdapter("failingopen"), "loaded"); }),
              ::testing::ExitedWithCode(0),
              "skipped .*libcgc-driver-failingopen.so: cgcDriverOpen failed with "
              "CGC_ERROR_DEVICE_LOST: the test driver found no device to open");
}

TEST(LoaderTest, RejectsSmallTable) {
  EXPECT_EXIT(runWithDriverPath(kDrivers + "/small-table",
                                [] { return check(!findAdapter("smalltable"), "loaded"); }),
              ::testing::ExitedWithCode(0),
              "skipped .*libcgc-driver-smalltable.so: the driver's function table is 64 bytes; "
              "this API needs at least");
}

TEST(LoaderTest, OlderTableLacksOptionalFeatures) {
  // A table that ends before the timestamp-query entries (a driver built
  // against an older ddi.h) loads; the API answers for the feature itself and
  // never calls past the driver's table.
  EXPECT_EXIT(runWithDriverPath(
                  kDrivers + "/older-table",
                  [] {
                    CgcAdapter adapter = findAdapter("older");
                    CgcDeviceDesc desc = {CGC_API_VERSION, 0, nullptr};
                    CgcDevice device = nullptr;
                    int failures = check(adapter != nullptr, "older not loaded") +
                                   check(cgcCreateDevice(adapter, &desc, &device) == CGC_OK,
                                         "device");
                    CgcFeatureDataTimestampQueries data = {7};
                    failures += check(cgcCheckFeatureSupport(device,
                                                             CGC_FEATURE_TIMESTAMP_QUERIES, &data,
                                                             sizeof(data)) == CGC_OK,
                                      "feature query");
                    failures += check(data.timestampQueriesSupported == 0, "supported");
                    CgcQueryHeapDesc heapDesc = {CGC_API_VERSION, CGC_QUERY_HEAP_TYPE_TIMESTAMP, 1};
                    CgcQueryHeap heap = nullptr;
                    failures += check(cgcCreateQueryHeap(device, &heapDesc, &heap) ==
                                          CGC_ERROR_UNSUPPORTED,
                                      "heap");
                    std::fprintf(stderr, "%s\n", cgcGetLastErrorMessage());
                    cgcReleaseDevice(device);
                    return failures;
                  }),
              ::testing::ExitedWithCode(0),
              "adapter older/Older table.*cgcCreateQueryHeap: the 'older' driver's device has no "
              "timestamp queries");
}

TEST(LoaderTest, RejectsPartOfAnOptionalGroup) {
  EXPECT_EXIT(runWithDriverPath(kDrivers + "/partial-group",
                                [] { return check(!findAdapter("partialgroup"), "loaded"); }),
              ::testing::ExitedWithCode(0),
              "skipped .*libcgc-driver-partialgroup.so: the driver's function table sets part of "
              "the timestamp-query entries but not 'destroyQueryHeap'");
}

TEST(LoaderTest, DriverPathOrderDecides) {
  EXPECT_EXIT(runWithDriverPath(kDrivers + "/order-a:" + kDrivers + "/order-b",
                                [] {
                                  std::string name;
                                  return check(findAdapter("order", &name) != nullptr, "none") +
                                         check(name == "order A", "not order A");
                                }),
              ::testing::ExitedWithCode(0),
              "adapter order/order A.*skipped .*order-b/libcgc-driver-order.so: driver 'order' "
              "is already loaded from .*order-a/libcgc-driver-order.so");
  EXPECT_EXIT(runWithDriverPath(kDrivers + "/order-b::/nonexistent:" + kDrivers + "/order-a",
                                [] {
                                  std::string name;
                                  return check(findAdapter("order", &name) != nullptr, "none") +
                                         check(name == "order B", "not order B");
                                }),
              ::testing::ExitedWithCode(0), "adapter order/order B");
}

TEST(LoaderTest, UnloadsInReverseOrderAtExit) {
  EXPECT_EXIT(runWithDriverPath(kDrivers + "/mock:" + kDrivers + "/order-a",
                                [] {
                                  CgcAdapter adapter = findAdapter("mock");
                                  CgcDeviceDesc desc = {CGC_API_VERSION, 0, nullptr};
                                  CgcDevice device = nullptr;
                                  int failures = check(adapter != nullptr, "no mock") +
                                                 check(cgcCreateDevice(adapter, &desc, &device) ==
                                                           CGC_OK,
                                                       "device");
                                  cgcReleaseDevice(device);
                                  return failures;
                                }),
              ::testing::ExitedWithCode(0),
              "cgc-test-driver close order A\ncgc-test-driver close Mock adapter\n");
}

TEST(LoaderTest, LiveDeviceKeepsItsDriverLoaded) {
  EXPECT_EXIT(runWithDriverPath(kDrivers + "/mock:" + kDrivers + "/order-a",
                                [] {
                                  CgcDeviceDesc desc = {CGC_API_VERSION, 0, nullptr};
                                  CgcDevice device = nullptr; // deliberately never released
                                  return check(cgcCreateDevice(findAdapter("mock"), &desc,
                                                               &device) == CGC_OK,
                                               "device");
                                }),
              ::testing::ExitedWithCode(0),
              "cgc-test-driver close order A\ncgc: driver 'mock' still has 1 live devices at "
              "exit; left loaded");
}

TEST(LoaderTest, NoAdapterPastTheEnd) {
  EXPECT_EXIT(runWithDriverPath("/nonexistent",
                                [] {
                                  CgcAdapter adapter = nullptr;
                                  uint32_t count = 0;
                                  while (cgcEnumerateAdapters(count, &adapter) == CGC_OK)
                                    ++count;
                                  std::fprintf(stderr, "%s\n", cgcGetLastErrorMessage());
                                  return check(cgcEnumerateAdapters(count, &adapter) ==
                                                   CGC_ERROR_NOT_FOUND,
                                               "not NOT_FOUND");
                                }),
              ::testing::ExitedWithCode(0),
              "cgcEnumerateAdapters: no adapter [0-9]+ \\([0-9]+ adapters from drivers in "
              "\\[/nonexistent, .*/cgc-drivers\\]");
}

} // namespace
