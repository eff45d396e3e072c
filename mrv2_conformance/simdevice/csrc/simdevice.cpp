// mrv2sim: a simulated accelerator for the conformance suite, registered as PyTorch's
// PrivateUse1 backend. Its memory is host memory that only copies reach, and its timing
// is adversarial and deterministic: every asynchronous copy waits in its stream's queue
// and runs at the latest moment stream order allows (an operation on that stream that
// touches its memory, a synchronize, an event wait, a blocking copy). Until then an
// in-flight copy's destination holds poison, and a pinned source is read when the copy
// runs, so a source refilled too early delivers the refilled data. Compute runs
// eagerly on the CPU kernels (the boxed CPU fallback) after the queued copies it
// depends on. docs/device.md describes the semantics and what they can show.
#include <ATen/EmptyTensor.h>
#include <ATen/native/CPUFallback.h>
#include <ATen/ops/_local_scalar_dense_native.h>
#include <ATen/ops/as_strided_cpu_dispatch.h>
#include <ATen/ops/resize_native.h>
#include <ATen/ops/set_cpu_dispatch.h>
#include <ATen/ops/set_native.h>
#include <ATen/ops/view_native.h>
#include <ATen/ops/_reshape_alias_native.h>
#include <ATen/detail/PrivateUse1HooksInterface.h>
#include <c10/core/Allocator.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/extension.h>
#include <torch/library.h>

#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace mrv2sim {

using c10::DeviceIndex;
using c10::DeviceType;
using c10::Stream;
using c10::StreamId;

constexpr DeviceType kSim = DeviceType::PrivateUse1;
constexpr unsigned char kPoisonByte = 0x5A;

std::recursive_mutex& mu() {
  static std::recursive_mutex m;
  return m;
}

int device_count() {
  static int n = [] {
    const char* env = std::getenv("MRV2_SIM_DEVICES");
    int v = env ? std::atoi(env) : 4;
    return v < 2 ? 2 : (v > 16 ? 16 : v);
  }();
  return n;
}

thread_local DeviceIndex t_device = 0;
// Copies made by the CPU fallback itself (moving operands to the kernels and results
// back) happen at once: the queued work they depend on has been run before.
thread_local bool t_internal = false;

struct InternalScope {
  bool prev;
  InternalScope() : prev(t_internal) { t_internal = true; }
  ~InternalScope() { t_internal = prev; }
};

void check_index(DeviceIndex i) {
  TORCH_CHECK(i >= 0 && i < device_count(), "mrv2sim: device index ", int(i),
              " is out of range: there are ", device_count(), " devices (0..",
              device_count() - 1, ")");
}

// ---- memory -------------------------------------------------------------------------
struct Block {
  size_t size;
  DeviceIndex device;  // -1: pinned host memory
};
std::map<uintptr_t, Block>& blocks() {
  static std::map<uintptr_t, Block> b;
  return b;
}

const Block* find_block(const void* p, uintptr_t* base = nullptr) {
  auto a = reinterpret_cast<uintptr_t>(p);
  auto& b = blocks();
  auto it = b.upper_bound(a);
  if (it == b.begin()) return nullptr;
  --it;
  if (a >= it->first + std::max<size_t>(it->second.size, 1)) return nullptr;
  if (base) *base = it->first;
  return &it->second;
}

void free_block(void* p) {
  {
    std::lock_guard<std::recursive_mutex> g(mu());
    blocks().erase(reinterpret_cast<uintptr_t>(p));
  }
  std::free(p);
}

void* alloc_block(size_t n, DeviceIndex device) {
  void* p = std::aligned_alloc(64, ((std::max<size_t>(n, 1) + 63) / 64) * 64);
  TORCH_CHECK(p, "mrv2sim: out of memory allocating ", n, " bytes");
  // Fresh memory is poison, as a real device's is garbage: nothing may read it unwritten.
  std::memset(p, kPoisonByte, n);
  std::lock_guard<std::recursive_mutex> g(mu());
  blocks()[reinterpret_cast<uintptr_t>(p)] = Block{n, device};
  return p;
}

struct DeviceAllocator final : c10::Allocator {
  c10::DataPtr allocate(size_t n) override {
    DeviceIndex d = t_device;
    void* p = alloc_block(n, d);
    return {p, p, &free_block, c10::Device(kSim, d)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &free_block; }
  void copy_data(void* dst, const void* src, std::size_t n) const override {
    std::memcpy(dst, src, n);
  }
};

struct PinnedAllocator final : c10::Allocator {
  c10::DataPtr allocate(size_t n) override {
    void* p = alloc_block(n, -1);
    return {p, p, &free_block, c10::Device(c10::kCPU)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &free_block; }
  void copy_data(void* dst, const void* src, std::size_t n) const override {
    std::memcpy(dst, src, n);
  }
};

DeviceAllocator g_device_allocator;
PinnedAllocator g_pinned_allocator;

bool is_pinned(const void* p) {
  std::lock_guard<std::recursive_mutex> g(mu());
  const Block* b = find_block(p);
  return b && b->device == -1;
}

// ---- streams and their queues -------------------------------------------------------
struct Range {
  uintptr_t lo, hi;
  bool overlaps(const Range& o) const { return lo < o.hi && o.lo < hi; }
};

struct Work {
  uint64_t seq;
  std::function<void()> run;
  std::vector<Range> device_memory;  // what it touches on the device
  std::vector<Range> host_memory;    // host memory it writes
  std::vector<Range> host_reads;     // pinned host memory it reads when it runs
};

struct StreamState {
  std::deque<Work> queue;
  uint64_t next_seq = 1;  // sequence number of the next work
  uint64_t done_seq = 0;  // every work up to this one has run
};

struct Counters {
  int64_t deferred = 0;        // copies queued
  int64_t run_by_touch = 0;    // run because an operation touched their memory
  int64_t run_by_sync = 0;     // run by a synchronize, event or blocking copy
  int64_t poisoned_bytes = 0;  // destination bytes poisoned while in flight
};
Counters g_counters;

std::vector<std::vector<StreamState>>& streams() {
  static std::vector<std::vector<StreamState>> s(device_count(), std::vector<StreamState>(1));
  return s;
}

StreamState& state(DeviceIndex d, StreamId id) {
  check_index(d);
  auto& per = streams()[d];
  TORCH_CHECK(id >= 0 && static_cast<size_t>(id) < per.size(), "mrv2sim: unknown stream ",
              id, " on device ", int(d));
  return per[id];
}

thread_local std::vector<StreamId> t_current;

StreamId current_id(DeviceIndex d) {
  if (t_current.empty()) t_current.assign(device_count(), 0);
  return t_current[d];
}

Stream make_stream(DeviceIndex d, StreamId id) {
  return Stream(Stream::UNSAFE, c10::Device(kSim, d), id);
}

void run_one(StreamState& s, Work& w, bool by_sync) {
  InternalScope internal;
  w.run();
  (by_sync ? g_counters.run_by_sync : g_counters.run_by_touch)++;
}

// Every work up to the first still queued has run (the queue is in seq order).
void update_done(StreamState& s) {
  s.done_seq = s.queue.empty() ? s.next_seq - 1 : s.queue.front().seq - 1;
}

void run_through(StreamState& s, uint64_t seq, bool by_sync) {
  while (!s.queue.empty() && s.queue.front().seq <= seq) {
    Work w = std::move(s.queue.front());
    s.queue.pop_front();
    run_one(s, w, by_sync);
  }
  update_done(s);
}

void run_all(StreamState& s) { run_through(s, s.next_seq - 1, true); }

bool overlaps_any(const std::vector<Range>& a, const std::vector<Range>& b) {
  for (const auto& r : a)
    for (const auto& t : b)
      if (r.overlaps(t)) return true;
  return false;
}

// Runs, in stream order, the queued work of stream s that an operation touching
// `touched` depends on: the work touching that memory, and (transitively) the earlier
// work touching the memory of those. Work on other memory stays queued: a real
// device may run it any time later, and the latest moment is the adversarial one
// (a pinned source refilled meanwhile delivers the refilled data).
void run_touching(StreamState& s, const std::vector<Range>& touched) {
  std::vector<Range> needed = touched;
  std::vector<bool> run(s.queue.size(), false);
  bool any = false;
  for (size_t i = s.queue.size(); i-- > 0;) {
    const Work& w = s.queue[i];
    if (overlaps_any(w.device_memory, needed) || overlaps_any(w.host_memory, needed) ||
        overlaps_any(w.host_reads, needed)) {
      run[i] = true;
      any = true;
      for (const auto* rs : {&w.device_memory, &w.host_memory, &w.host_reads})
        needed.insert(needed.end(), rs->begin(), rs->end());
    }
  }
  if (!any) return;
  std::deque<Work> rest;
  std::deque<Work> queue = std::move(s.queue);
  s.queue.clear();
  for (size_t i = 0; i < queue.size(); ++i) {
    if (run[i])
      run_one(s, queue[i], false);
    else
      rest.push_back(std::move(queue[i]));
  }
  s.queue = std::move(rest);
  update_done(s);
}

void synchronize_device(DeviceIndex d) {
  for (auto& s : streams()[d]) run_all(s);
}

void enqueue(DeviceIndex d, Work w) {
  StreamState& s = state(d, current_id(d));
  w.seq = s.next_seq++;
  s.queue.push_back(std::move(w));
  g_counters.deferred++;
}

Range storage_range(const at::Tensor& t) {
  auto base = reinterpret_cast<uintptr_t>(t.storage().data());
  return {base, base + std::max<size_t>(t.storage().nbytes(), 1)};
}

// ---- events -------------------------------------------------------------------------
struct Event {
  DeviceIndex device = -1;
  StreamId stream = 0;
  uint64_t seq = 0;
};

bool event_done(const Event& e) {
  if (e.device < 0) return true;
  return state(e.device, e.stream).done_seq >= e.seq;
}

// ---- the device as torch sees it ----------------------------------------------------
struct GuardImpl final : c10::impl::DeviceGuardImplInterface {
  GuardImpl() = default;
  explicit GuardImpl(DeviceType t) { TORCH_CHECK(t == kSim); }
  DeviceType type() const override { return kSim; }
  c10::Device exchangeDevice(c10::Device d) const override {
    check_index(d.index());
    auto old = t_device;
    t_device = d.index();
    return c10::Device(kSim, old);
  }
  c10::Device getDevice() const override { return c10::Device(kSim, t_device); }
  void setDevice(c10::Device d) const override {
    check_index(d.index());
    t_device = d.index();
  }
  void uncheckedSetDevice(c10::Device d) const noexcept override { t_device = d.index(); }
  Stream getStream(c10::Device d) const override {
    std::lock_guard<std::recursive_mutex> g(mu());
    check_index(d.index());
    return make_stream(d.index(), current_id(d.index()));
  }
  Stream getDefaultStream(c10::Device d) const override { return make_stream(d.index(), 0); }
  Stream getNewStream(c10::Device d, int /*priority*/) const override {
    std::lock_guard<std::recursive_mutex> g(mu());
    check_index(d.index());
    auto& per = streams()[d.index()];
    per.emplace_back();
    return make_stream(d.index(), static_cast<StreamId>(per.size() - 1));
  }
  Stream getStreamFromGlobalPool(c10::Device d, bool high) const override {
    return getNewStream(d, high ? -1 : 0);
  }
  Stream exchangeStream(Stream s) const noexcept override {
    std::lock_guard<std::recursive_mutex> g(mu());
    auto d = s.device_index();
    auto old = make_stream(d, current_id(d));
    t_current[d] = s.id();
    return old;
  }
  DeviceIndex deviceCount() const noexcept override { return device_count(); }
  void record(void** event, const Stream& stream, const DeviceIndex device_index,
              const c10::EventFlag /*flag*/) const override {
    TORCH_CHECK(device_index == -1 || device_index == stream.device_index(),
                "mrv2sim: event of device ", int(device_index),
                " recorded on a stream of device ", int(stream.device_index()));
    std::lock_guard<std::recursive_mutex> g(mu());
    auto* e = static_cast<Event*>(*event);
    if (!e) {
      e = new Event();
      *event = e;
    }
    StreamState& s = state(stream.device_index(), stream.id());
    e->device = stream.device_index();
    e->stream = stream.id();
    e->seq = s.next_seq - 1;  // the last work queued before the record
  }
  // A wait makes the waiting stream's later work see everything before the record:
  // that work is run now (the earliest correct moment is as good as the latest here,
  // since nothing but the waiting stream could observe the difference).
  void block(void* event, const Stream& /*stream*/) const override {
    if (!event) return;
    std::lock_guard<std::recursive_mutex> g(mu());
    auto* e = static_cast<Event*>(event);
    if (e->device >= 0) run_through(state(e->device, e->stream), e->seq, true);
  }
  bool queryEvent(void* event) const override {
    if (!event) return true;
    std::lock_guard<std::recursive_mutex> g(mu());
    return event_done(*static_cast<Event*>(event));
  }
  void destroyEvent(void* event, const DeviceIndex) const noexcept override {
    delete static_cast<Event*>(event);
  }
  bool queryStream(const Stream& stream) const override {
    std::lock_guard<std::recursive_mutex> g(mu());
    return state(stream.device_index(), stream.id()).queue.empty();
  }
  void synchronizeStream(const Stream& stream) const override {
    std::lock_guard<std::recursive_mutex> g(mu());
    run_all(state(stream.device_index(), stream.id()));
  }
  void synchronizeEvent(void* event) const override {
    block(event, Stream(Stream::DEFAULT, c10::Device(kSim, 0)));
  }
  void synchronizeDevice(const DeviceIndex device_index) const override {
    std::lock_guard<std::recursive_mutex> g(mu());
    synchronize_device(device_index < 0 ? t_device : device_index);
  }
  double elapsedTime(void*, void*, const DeviceIndex) const override { return 0.0; }
  void recordDataPtrOnStream(const c10::DataPtr&, const Stream&) const override {}
};

struct Hooks final : at::PrivateUse1HooksInterface {
  bool isBuilt() const override { return true; }
  bool isAvailable() const override { return true; }
  bool hasPrimaryContext(DeviceIndex) const override { return true; }
  DeviceIndex deviceCount() const override { return device_count(); }
  void setCurrentDevice(DeviceIndex d) const override {
    check_index(d);
    t_device = d;
  }
  DeviceIndex getCurrentDevice() const override { return t_device; }
  DeviceIndex exchangeDevice(DeviceIndex d) const override {
    check_index(d);
    auto old = t_device;
    t_device = d;
    return old;
  }
  DeviceIndex maybeExchangeDevice(DeviceIndex d) const override { return exchangeDevice(d); }
  bool isPinnedPtr(const void* data) const override { return is_pinned(data); }
  c10::Allocator* getPinnedMemoryAllocator() const override { return &g_pinned_allocator; }
  at::Device getDeviceFromPtr(void* data) const override {
    std::lock_guard<std::recursive_mutex> g(mu());
    const Block* b = find_block(data);
    TORCH_CHECK(b && b->device >= 0, "mrv2sim: pointer is not device memory");
    return at::Device(kSim, b->device);
  }
  void resizePrivateUse1Bytes(const c10::Storage& storage, size_t newsize) const override {
    TORCH_CHECK(false, "mrv2sim: storages cannot be resized in place (", storage.nbytes(),
                " -> ", newsize, " bytes)");
  }
};

// ---- kernels ------------------------------------------------------------------------
at::Tensor as_cpu(const at::Tensor& t) {
  if (t.is_cpu()) return t;
  return at::from_blob(t.data_ptr(), t.sizes(), t.strides(), t.options().device(at::kCPU));
}

// Poison that no real value of the contract takes: a 0x5A bytes pattern for integers
// and NaN for floats; a bool is the negation of the value it will receive.
void poison(const at::Tensor& dst_cpu, const at::Tensor& incoming_cpu) {
  if (dst_cpu.numel() == 0) return;
  auto t = dst_cpu.scalar_type();
  if (t == at::kBool) {
    dst_cpu.copy_(incoming_cpu.logical_not());
  } else if (at::isFloatingType(t)) {
    dst_cpu.fill_(std::numeric_limits<double>::quiet_NaN());
  } else if (at::isIntegralType(t, false)) {
    int64_t v = 0;
    std::memset(&v, kPoisonByte, std::min<size_t>(sizeof(v), dst_cpu.element_size()));
    dst_cpu.fill_(v);
  } else {
    dst_cpu.zero_();
  }
  g_counters.poisoned_bytes += dst_cpu.numel() * dst_cpu.element_size();
}

at::Tensor empty_memory_format(c10::IntArrayRef size, std::optional<c10::ScalarType> dtype,
                               std::optional<c10::Layout> layout,
                               std::optional<c10::Device> device, std::optional<bool> pin,
                               std::optional<c10::MemoryFormat> memory_format) {
  auto dev = c10::device_or_default(device);
  TORCH_CHECK(c10::layout_or_default(layout) == c10::Layout::Strided,
              "mrv2sim: only strided tensors");
  TORCH_CHECK(!c10::pinned_memory_or_default(pin), "mrv2sim: only host memory is pinned");
  c10::DeviceGuard guard(dev);
  return at::detail::empty_generic(size, &g_device_allocator,
                                   c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
                                   c10::dtype_or_default(dtype), memory_format);
}

at::Tensor empty_strided(c10::IntArrayRef size, c10::IntArrayRef stride,
                         std::optional<c10::ScalarType> dtype, std::optional<c10::Layout> layout,
                         std::optional<c10::Device> device, std::optional<bool> pin) {
  auto dev = c10::device_or_default(device);
  TORCH_CHECK(c10::layout_or_default(layout) == c10::Layout::Strided,
              "mrv2sim: only strided tensors");
  TORCH_CHECK(!c10::pinned_memory_or_default(pin), "mrv2sim: only host memory is pinned");
  c10::DeviceGuard guard(dev);
  return at::detail::empty_strided_generic(size, stride, &g_device_allocator,
                                           c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
                                           c10::dtype_or_default(dtype));
}

// One copy, queued or at once, by the rules of a real accelerator:
// - host to device: queued; a pinned source is read when it runs, a pageable one is
//   staged now (as CUDA stages pageable memory); non_blocking=False waits for it;
// - device to host: into pinned memory with non_blocking, queued (the host
//   destination holds poison until it runs); otherwise the stream is drained first;
// - device to device: queued on the stream (async with respect to the host).
at::Tensor copy_from(const at::Tensor& self, const at::Tensor& dst, bool non_blocking) {
  std::lock_guard<std::recursive_mutex> g(mu());
  if (t_internal) {
    as_cpu(dst).copy_(as_cpu(self));
    return dst;
  }
  const bool h2d = self.is_cpu() && !dst.is_cpu();
  const bool d2h = !self.is_cpu() && dst.is_cpu();
  const DeviceIndex d = d2h ? self.device().index() : dst.device().index();
  check_index(d);
  StreamState& s = state(d, current_id(d));
  if (!h2d && !d2h && self.device() != dst.device()) {
    // Between two devices: both sides drained, then copied at once.
    run_all(s);
    run_all(state(self.device().index(), current_id(self.device().index())));
    InternalScope internal;
    as_cpu(dst).copy_(as_cpu(self));
    return dst;
  }
  if (d2h && !(non_blocking && is_pinned(dst.storage().data()))) {
    run_all(s);
    InternalScope internal;
    dst.copy_(as_cpu(self));
    return dst;
  }
  // Queued. The work keeps both tensors (and so their memory) alive until it runs.
  at::Tensor src = self;
  if (h2d && !is_pinned(self.storage().data())) src = self.clone();
  Work w;
  if (!dst.is_cpu()) w.device_memory.push_back(storage_range(dst));
  if (!src.is_cpu()) w.device_memory.push_back(storage_range(src));
  if (dst.is_cpu()) w.host_memory.push_back(storage_range(dst));
  if (src.is_cpu()) w.host_reads.push_back(storage_range(src));
  at::Tensor dst_keep = dst;
  w.run = [src, dst_keep]() { as_cpu(dst_keep).copy_(as_cpu(src)); };
  // Stream order: the earlier work on this stream that reads or writes the destination
  // runs before the destination turns to poison (a reader queued before this copy
  // sees what was there, as on a real device).
  run_touching(s, {storage_range(dst)});
  {
    // Poison is what a reader sees before the copy lands.
    InternalScope internal;
    at::Tensor incoming = as_cpu(src);
    if (incoming.scalar_type() != dst.scalar_type()) incoming = incoming.to(dst.scalar_type());
    poison(as_cpu(dst), incoming);
  }
  enqueue(d, std::move(w));
  if (!non_blocking && h2d) run_all(s);
  return dst;
}

at::Tensor copy_from_and_resize(const at::Tensor& self, const at::Tensor& dst) {
  at::native::resize_(dst, self.sizes(), std::nullopt);
  return copy_from(self, dst, false);
}

at::Scalar local_scalar_dense(const at::Tensor& self) {
  std::lock_guard<std::recursive_mutex> g(mu());
  if (!t_internal) run_all(state(self.device().index(), current_id(self.device().index())));
  return at::native::_local_scalar_dense_cpu(as_cpu(self));
}

at::Tensor as_strided(const at::Tensor& self, c10::SymIntArrayRef size,
                      c10::SymIntArrayRef stride, std::optional<c10::SymInt> offset) {
  return at::cpu::as_strided_symint(self, size, stride, offset);
}

const at::Tensor& resize_(const at::Tensor& self, c10::SymIntArrayRef size,
                          std::optional<at::MemoryFormat> memory_format) {
  return at::native::resize_(self, C10_AS_INTARRAYREF_SLOW(size), memory_format);
}

at::Tensor reshape_alias(const at::Tensor& self, c10::SymIntArrayRef size,
                         c10::SymIntArrayRef stride) {
  return at::native::_reshape_alias(self, C10_AS_INTARRAYREF_SLOW(size),
                                    C10_AS_INTARRAYREF_SLOW(stride));
}

at::Tensor view(const at::Tensor& self, c10::SymIntArrayRef size) {
  return at::native::view(self, C10_AS_INTARRAYREF_SLOW(size));
}

at::Tensor& set_tensor(at::Tensor& self, const at::Tensor& source) {
  return at::native::set_tensor_(self, source);
}
at::Tensor& set_storage(at::Tensor& self, at::Storage source) {
  return at::native::set_(self, source);
}
at::Tensor& set_storage_offset(at::Tensor& self, at::Storage source, int64_t offset,
                               c10::IntArrayRef size, c10::IntArrayRef stride) {
  return at::cpu::set_(self, source, offset, size, stride);
}

// Indexing takes host index tensors beside device operands, as on CUDA.
bool takes_host_indices(const c10::OperatorName& name) {
  const std::string& n = name.name;
  return n == "aten::index" || n == "aten::index_put_" || n == "aten::index_put" ||
         n == "aten::_index_put_impl_";
}

void collect(const c10::IValue& v, std::vector<at::Tensor>& out) {
  if (v.isTensor()) {
    if (v.toTensor().defined()) out.push_back(v.toTensor());
  } else if (v.isTensorList()) {
    for (const at::Tensor& t : v.toTensorList()) out.push_back(t);
  } else if (v.isList()) {
    for (const c10::IValue& e : v.toListRef()) collect(e, out);
  }
}

// Every other operation: the operands on one device (as CUDA requires), the queued
// copies they depend on run first, then the CPU kernel, eagerly.
void fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  std::lock_guard<std::recursive_mutex> g(mu());
  const auto& schema = op.schema();
  const auto n = schema.arguments().size();
  std::vector<at::Tensor> tensors;
  for (size_t i = stack->size() - n; i < stack->size(); ++i) collect((*stack)[i], tensors);
  DeviceIndex dev = -1;
  std::vector<Range> touched;
  for (const auto& t : tensors) {
    if (t.device().type() == kSim) {
      if (dev >= 0 && t.device().index() != dev) {
        TORCH_CHECK(false, "Expected all tensors to be on the same device, but found at "
                    "least two devices, simdev:", int(dev), " and simdev:",
                    int(t.device().index()), "! (in ", schema.operator_name(), ")");
      }
      dev = t.device().index();
      touched.push_back(storage_range(t));
    }
  }
  if (dev >= 0 && !takes_host_indices(schema.operator_name())) {
    for (const auto& t : tensors) {
      TORCH_CHECK(!t.is_cpu() || t.dim() == 0,
                  "Expected all tensors to be on the same device, but found at least two "
                  "devices, simdev:", int(dev), " and cpu! (in ", schema.operator_name(),
                  ")");
    }
  }
  if (dev >= 0) {
    StreamState& s = state(dev, current_id(dev));
    run_touching(s, touched);
  }
  c10::DeviceGuard guard(c10::Device(kSim, dev >= 0 ? dev : t_device));
  InternalScope internal;
  at::native::cpu_fallback(op, stack);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("empty.memory_format", empty_memory_format);
  m.impl("empty_strided", empty_strided);
  m.impl("as_strided", as_strided);
  m.impl("resize_", resize_);
  m.impl("_reshape_alias", reshape_alias);
  m.impl("_copy_from", copy_from);
  m.impl("_copy_from_and_resize", copy_from_and_resize);
  m.impl("_local_scalar_dense", local_scalar_dense);
  m.impl("set_.source_Tensor", set_tensor);
  m.impl("set_.source_Storage", set_storage);
  m.impl("set_.source_Storage_storage_offset", set_storage_offset);
  m.impl("view", view);
}

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&fallback>());
}

C10_REGISTER_GUARD_IMPL(PrivateUse1, GuardImpl);

struct Registration {
  Registration() {
    c10::SetAllocator(kSim, &g_device_allocator);
    at::RegisterPrivateUse1HooksInterface(new Hooks());
  }
};
Registration g_registration;

// ---- Python: what the suite asks of the device --------------------------------------
// Whether queued work on any stream will still write host memory in [ptr, ptr+n).
bool host_write_pending(uintptr_t ptr, size_t n) {
  std::lock_guard<std::recursive_mutex> g(mu());
  Range r{ptr, ptr + std::max<size_t>(n, 1)};
  for (auto& per : streams())
    for (auto& s : per)
      for (auto& w : s.queue)
        for (auto& h : w.host_memory)
          if (h.overlaps(r)) return true;
  return false;
}

// How many queued works will still write host memory (0 in most calls: then nothing
// a call returned can be such a destination, and the suite skips looking).
int64_t host_writes_queued() {
  std::lock_guard<std::recursive_mutex> g(mu());
  int64_t total = 0;
  for (auto& per : streams())
    for (auto& s : per)
      for (auto& w : s.queue) total += !w.host_memory.empty();
  return total;
}

int64_t pending(int device) {
  std::lock_guard<std::recursive_mutex> g(mu());
  check_index(device);
  int64_t total = 0;
  for (auto& s : streams()[device]) total += static_cast<int64_t>(s.queue.size());
  return total;
}

std::map<std::string, int64_t> counters() {
  std::lock_guard<std::recursive_mutex> g(mu());
  return {{"deferred", g_counters.deferred},
          {"run_by_touch", g_counters.run_by_touch},
          {"run_by_sync", g_counters.run_by_sync},
          {"poisoned_bytes", g_counters.poisoned_bytes}};
}

}  // namespace mrv2sim

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("device_count", &mrv2sim::device_count);
  m.def("host_write_pending", &mrv2sim::host_write_pending,
        "whether a queued copy will still write host memory in [ptr, ptr + nbytes)");
  m.def("pending", &mrv2sim::pending, "queued work on every stream of a device");
  m.def("host_writes_queued", &mrv2sim::host_writes_queued,
        "queued works (every device and stream) that will still write host memory");
  m.def("counters", &mrv2sim::counters);
  m.attr("POISON_BYTE") = static_cast<int>(mrv2sim::kPoisonByte);
}
