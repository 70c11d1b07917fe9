//===- DriverLoader.cpp - Finding, loading and unloading driver plugins ---===//
//
// Drivers are shared libraries named libcgc-driver-<name>.so, searched in the
// directories of $CGC_DRIVER_PATH (colon-separated, in order) and then in
// <directory of libcgc-api.so>/cgc-drivers. Within a directory, files load in
// name order. The first driver to report a driverName wins: a driver found
// earlier on the path shadows a later one of the same name (so that
// CGC_DRIVER_PATH can override the installed driver).
//
// A library is rejected, with a reason kept for cgcEnumerateAdapters' error
// message (and printed to stderr when CGC_LOG=1), when dlopen fails, it lacks
// cgcDriverOpen, the open fails, or the table it returns has another
// ddiVersion, a structSize smaller than the table's required part
// (CGC_DDI_REQUIRED_STRUCT_SIZE), no driverName, a null required entry or
// part of an optional group. A rejected table is not trusted: none of its
// functions is called, the library is only dlclose'd. An accepted table is
// copied into this API's CgcDdiFunctions, so that the optional entries past
// an older driver's structSize read as null.
//
// Unloading. The registry is a function-local static, built on the first
// API call that needs drivers (C++ guarantees that initialization runs once
// and is thread-safe) and destroyed at process exit, in reverse order of
// construction relative to other statics. Its destructor closes each driver
// (CgcDdiFunctions::close, then dlclose) in reverse load order, but only a
// driver with no live device: devices are reference counted by the objects
// made from them, so a live device means the application still holds API
// objects (leaked, or owned by a static destroyed after the registry).
// Closing such a driver under them would turn their later release into a
// call into unmapped code; instead the registry leaves that driver loaded
// and its records allocated, and the process exit reclaims them.
//
//===----------------------------------------------------------------------===//

#include "DriverLoader.h"

#include "Status.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <set>
#include <string_view>

namespace cgc::api {
namespace {

constexpr std::string_view kDriverPrefix = "libcgc-driver-";
constexpr std::string_view kDriverSuffix = ".so";

bool isLogging() {
  const char *log = std::getenv("CGC_LOG");
  return log && std::string_view(log) == "1";
}

/// The directory holding libcgc-api.so, found from one of its own functions.
std::string getLibraryDirectory() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&getDriverRegistry), &info) || !info.dli_fname)
    return {};
  std::string path = info.dli_fname;
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

std::vector<std::string> getSearchDirectories() {
  std::vector<std::string> directories;
  if (const char *driverPath = std::getenv("CGC_DRIVER_PATH")) {
    std::string_view rest = driverPath;
    while (!rest.empty()) {
      size_t colon = rest.find(':');
      std::string_view directory = rest.substr(0, colon);
      if (!directory.empty())
        directories.emplace_back(directory);
      rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    }
  }
  std::string libraryDirectory = getLibraryDirectory();
  if (!libraryDirectory.empty())
    directories.push_back(libraryDirectory + "/cgc-drivers");
  return directories;
}

/// The driver libraries in `directory`, in name order.
std::vector<std::string> listDriverLibraries(const std::string &directory) {
  std::vector<std::string> names;
  DIR *dir = opendir(directory.c_str());
  if (!dir)
    return names;
  while (dirent *entry = readdir(dir)) {
    std::string_view name = entry->d_name;
    if (name.size() > kDriverPrefix.size() + kDriverSuffix.size() &&
        name.starts_with(kDriverPrefix) && name.ends_with(kDriverSuffix))
      names.emplace_back(name);
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

/// The name of the first null entry of `ddi`, or null when all are set.
const char *findNullEntry(const CgcDdiFunctions &ddi) {
#define CGC_CHECK_ENTRY(name)                                                  \
  if (!ddi.name)                                                               \
    return #name;
  CGC_CHECK_ENTRY(close)
  CGC_CHECK_ENTRY(getAdapterCount)
  CGC_CHECK_ENTRY(getAdapterDesc)
  CGC_CHECK_ENTRY(createDevice)
  CGC_CHECK_ENTRY(destroyDevice)
  CGC_CHECK_ENTRY(getCaps)
  CGC_CHECK_ENTRY(createBuffer)
  CGC_CHECK_ENTRY(destroyBuffer)
  CGC_CHECK_ENTRY(mapBuffer)
  CGC_CHECK_ENTRY(unmapBuffer)
  CGC_CHECK_ENTRY(createProgram)
  CGC_CHECK_ENTRY(destroyProgram)
  CGC_CHECK_ENTRY(getProgramBindingProperties)
  CGC_CHECK_ENTRY(createCommandList)
  CGC_CHECK_ENTRY(destroyCommandList)
  CGC_CHECK_ENTRY(resetCommandList)
  CGC_CHECK_ENTRY(closeCommandList)
  CGC_CHECK_ENTRY(recordSetProgram)
  CGC_CHECK_ENTRY(recordDispatchGraph)
  CGC_CHECK_ENTRY(recordBarrier)
  CGC_CHECK_ENTRY(recordCopy)
  CGC_CHECK_ENTRY(createQueue)
  CGC_CHECK_ENTRY(destroyQueue)
  CGC_CHECK_ENTRY(executeCommandLists)
  CGC_CHECK_ENTRY(queueSignal)
  CGC_CHECK_ENTRY(queueWait)
  CGC_CHECK_ENTRY(createFence)
  CGC_CHECK_ENTRY(destroyFence)
  CGC_CHECK_ENTRY(getFenceCompletedValue)
  CGC_CHECK_ENTRY(signalFence)
  CGC_CHECK_ENTRY(waitFence)
#undef CGC_CHECK_ENTRY
  return nullptr;
}

/// Why the optional groups of `ddi` are unusable, or "" when each group is
/// complete or absent.
std::string checkOptionalGroups(const CgcDdiFunctions &ddi) {
  const std::pair<const char *, bool> timestampEntries[] = {
      {"createQueryHeap", ddi.createQueryHeap != nullptr},
      {"destroyQueryHeap", ddi.destroyQueryHeap != nullptr},
      {"recordEndQuery", ddi.recordEndQuery != nullptr},
      {"recordResolveQueryData", ddi.recordResolveQueryData != nullptr},
      {"getTimestampFrequency", ddi.getTimestampFrequency != nullptr}};
  size_t set = 0;
  for (const auto &[name, present] : timestampEntries)
    set += present;
  if (set == 0 || set == std::size(timestampEntries))
    return {};
  for (const auto &[name, present] : timestampEntries)
    if (!present)
      return concat("the driver's function table sets part of the timestamp-query entries but "
                    "not '",
                    name, "' (set all of them or none)");
  return {};
}

class Loader {
public:
  explicit Loader(DriverRegistry &registry) : registry(registry) {}

  void loadAll() {
    registry.searchedDirectories = getSearchDirectories();
    for (const std::string &directory : registry.searchedDirectories)
      for (const std::string &name : listDriverLibraries(directory))
        load(directory + "/" + name);
  }

private:
  void reject(const std::string &path, const std::string &reason) {
    registry.rejections.push_back(path + ": " + reason);
    if (isLogging())
      std::fprintf(stderr, "cgc: skipped driver %s: %s\n", path.c_str(), reason.c_str());
  }

  void load(const std::string &path) {
    char resolved[PATH_MAX];
    std::string canonical = realpath(path.c_str(), resolved) ? resolved : path;
    if (!loadedFiles.insert(canonical).second)
      return; // the same file through two search directories
    void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      const char *error = dlerror();
      reject(path, concat("dlopen failed: ", error ? error : "unknown error"));
      return;
    }
    auto open = reinterpret_cast<PFN_cgcDriverOpen>(dlsym(library, CGC_DRIVER_OPEN_SYMBOL));
    if (!open) {
      reject(path, "it does not export " CGC_DRIVER_OPEN_SYMBOL);
      dlclose(library);
      return;
    }
    const CgcDdiFunctions *ddi = nullptr;
    void *driver = nullptr;
    CgcStatus status = callDriver(open, CGC_DDI_VERSION, getDriverHost(), &ddi, &driver);
    if (status != CGC_OK) {
      std::string_view message = getDriverMessage();
      reject(path, concat(CGC_DRIVER_OPEN_SYMBOL " failed with ",
                          isKnownStatus(status) ? cgcStatusName(status) : "an unknown status",
                          message.empty() ? "" : ": ", message));
      dlclose(library);
      return;
    }
    if (std::string reason = checkTable(ddi); !reason.empty()) {
      reject(path, reason);
      dlclose(library);
      return;
    }
    // This API's view of the table: the driver's entries, null past its end.
    CgcDdiFunctions table{};
    std::memcpy(&table, ddi, std::min<size_t>(ddi->structSize, sizeof(table)));
    table.structSize = sizeof(table);
    if (std::string reason = checkOptionalGroups(table); !reason.empty()) {
      reject(path, reason);
      dlclose(library);
      return;
    }
    for (LoadedDriver *loaded : registry.drivers) {
      if (std::strcmp(loaded->ddi->driverName, ddi->driverName) == 0) {
        reject(path, concat("driver '", ddi->driverName, "' is already loaded from ",
                            loaded->path));
        callDriver(ddi->close, driver);
        dlclose(library);
        return;
      }
    }
    auto *loaded = new LoadedDriver;
    loaded->path = path;
    loaded->library = library;
    loaded->table = table;
    loaded->ddi = &loaded->table;
    loaded->driver = driver;
    registry.drivers.push_back(loaded);
    uint32_t adapterCount = callDriver(ddi->getAdapterCount, driver);
    for (uint32_t index = 0; index < adapterCount; ++index)
      registry.adapters.push_back(new CgcAdapter_T{loaded, index});
    if (isLogging())
      std::fprintf(stderr, "cgc: loaded driver '%s' from %s (%u adapters)\n", ddi->driverName,
                   path.c_str(), adapterCount);
  }

  /// Why the table `ddi` is unusable, or "" when it is fine.
  static std::string checkTable(const CgcDdiFunctions *ddi) {
    if (!ddi)
      return CGC_DRIVER_OPEN_SYMBOL " succeeded but returned no function table";
    if (ddi->ddiVersion != CGC_DDI_VERSION)
      return concat("the driver's function table has ddiVersion ", ddi->ddiVersion,
                    "; this API needs ", CGC_DDI_VERSION);
    if (ddi->structSize < CGC_DDI_REQUIRED_STRUCT_SIZE)
      return concat("the driver's function table is ", ddi->structSize,
                    " bytes; this API needs at least ", CGC_DDI_REQUIRED_STRUCT_SIZE);
    if (!ddi->driverName || !*ddi->driverName)
      return "the driver's function table has no driverName";
    if (const char *entry = findNullEntry(*ddi))
      return concat("the driver's function table entry '", entry, "' is null");
    return {};
  }

  DriverRegistry &registry;
  std::set<std::string> loadedFiles;
};

} // namespace

DriverRegistry::DriverRegistry() { Loader(*this).loadAll(); }

DriverRegistry::~DriverRegistry() {
  for (auto it = drivers.rbegin(); it != drivers.rend(); ++it) {
    LoadedDriver *driver = *it;
    if (driver->liveDevices.load() != 0) {
      if (isLogging())
        std::fprintf(stderr,
                     "cgc: driver '%s' still has %u live devices at exit; left loaded\n",
                     driver->ddi->driverName, driver->liveDevices.load());
      continue; // its adapters and record stay allocated for those devices
    }
    callDriver(driver->ddi->close, driver->driver);
    dlclose(driver->library);
    for (CgcAdapter_T *&adapter : adapters) {
      if (adapter && adapter->driver == driver) {
        delete adapter;
        adapter = nullptr;
      }
    }
    delete driver;
  }
}

const DriverRegistry &getDriverRegistry() {
  static DriverRegistry registry;
  return registry;
}

} // namespace cgc::api
