#include "api/worker_pool.hpp"

#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "core/device.hpp"
#include "core/device_streams.hpp"

namespace sciz::workers {
namespace {

class Pool {
 public:
  void run(int k, const std::function<void(int)>& f) {
    struct Call {
      std::mutex mu;
      std::condition_variable cv;
      int left;
      std::exception_ptr err;
    } call;
    call.left = k;
    grow(k);
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (int w = 0; w < k; ++w)
        tasks_.push_back([&call, &f, w] {
          std::exception_ptr e;
          try {
            f(w);
          } catch (...) {
            e = std::current_exception();
          }
          std::lock_guard<std::mutex> l(call.mu);
          if (e && !call.err) call.err = e;
          if (--call.left == 0) call.cv.notify_all();
        });
    }
    cv_.notify_all();
    std::unique_lock<std::mutex> l(call.mu);
    call.cv.wait(l, [&] { return call.left == 0; });
    if (call.err) std::rethrow_exception(call.err);
  }

  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }

 private:
  // Enough threads for k tasks of this call beside those other calls keep busy.
  void grow(int k) {
    std::lock_guard<std::mutex> lock(mu_);
    const int want = busy_ + k;
    while (static_cast<int>(threads_.size()) < want) threads_.emplace_back([this] { loop(); });
  }

  void loop() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stop_ || !tasks_.empty(); });
        if (stop_ && tasks_.empty()) return;
        task = std::move(tasks_.front());
        tasks_.pop_front();
        ++busy_;
      }
      task();
      std::lock_guard<std::mutex> lock(mu_);
      --busy_;
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  std::vector<std::thread> threads_;
  int busy_ = 0;
  bool stop_ = false;
};

Pool& pool() {
  static Pool p;
  return p;
}

}  // namespace

void run(int k, const std::function<void(int)>& f) {
  if (k <= 0) return;
  pool().run(k, f);
}

cudaStream_t stream_for(int device) {
  thread_local std::map<int, cudaStream_t> mine;
  auto it = mine.find(device);
  if (it != mine.end()) return it->second;
  cudaStream_t s = dev::make_stream(device);
  mine[device] = s;
  return s;
}

}  // namespace sciz::workers
