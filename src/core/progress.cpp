#include "core/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "core/mpi.hpp"

namespace mpiscope::core {

namespace {
std::string clock_text(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
                   : fmt::format("{}:{:02}", s / 60, s % 60);
}
constexpr auto kQuietBeforeDrawing = std::chrono::seconds(1);
}  // namespace

namespace {
bool progress_wanted() {
  const char* setting = std::getenv("MPISCOPE_PROGRESS");
  return !(setting && std::strcmp(setting, "0") == 0);
}
}  // namespace

void progress_message(const std::string& text) {
  if (!progress_wanted()) return;
  if (std::FILE* tty = std::fopen("/dev/tty", "w")) {
    std::fprintf(tty, "%s\n", text.c_str());
    std::fclose(tty);
  } else if (isatty(STDERR_FILENO)) {
    std::fprintf(stderr, "%s\n", text.c_str());
    std::fflush(stderr);
  }
}

std::string elapsed_and_left(double elapsed_s, long done, long total) {
  std::string text = "elapsed " + clock_text(elapsed_s);
  if (total > 0 && done > 0)  // the rate so far: an estimate, and marked as one
    text += " | ~" +
            clock_text(elapsed_s / static_cast<double>(done) * static_cast<double>(total - done)) +
            " left";
  return text;
}

ProgressDisplay::ProgressDisplay(std::string suite, long total_points)
    : suite_(std::move(suite)), total_(total_points), start_(Clock::now()), last_quiet_(start_) {
  if (mpi::world_rank() != 0 || !progress_wanted()) return;
  if (std::FILE* tty = std::fopen("/dev/tty", "w")) {
    out_ = tty;
    own_file_ = true;
  } else if (isatty(STDERR_FILENO)) {
    out_ = stderr;
  } else {
    return;
  }
  // Makes no MPI call: it only writes to the terminal.
  thread_ = std::thread([this] { run(); });
}

ProgressDisplay::~ProgressDisplay() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
    clear_locked();
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (own_file_) std::fclose(out_);
}

std::string ProgressDisplay::line(const std::string& suite, const std::string& what, long done,
                                  long total, double elapsed_s) {
  std::string text = fmt::format("mpiscope {}: {}", suite, what);
  if (total > 0) text += fmt::format(" | point {}/{}", std::min(done + 1, total), total);
  return text + " | " + elapsed_and_left(elapsed_s, done, total);
}

void ProgressDisplay::point_started(const std::string& what) {
  if (!out_) return;
  std::lock_guard lock(mutex_);
  what_ = what;
  in_point_ = true;
}

void ProgressDisplay::point_finished() {
  if (!out_) return;
  std::lock_guard lock(mutex_);
  ++done_;
  in_point_ = false;
}

void ProgressDisplay::clear() {
  if (!out_) return;
  std::lock_guard lock(mutex_);
  clear_locked();
}

void ProgressDisplay::clear_locked() {
  last_quiet_ = Clock::now();
  if (!shown_) return;
  std::fputs("\r\033[K", out_);
  std::fflush(out_);
  shown_ = false;
}

void ProgressDisplay::draw_locked(Clock::time_point now) {
  std::string text =
      line(suite_, what_, done_, total_, std::chrono::duration<double>(now - start_).count());
  if (text.size() > 110) text.resize(110);
  std::fprintf(out_, "\r\033[K%s\r", text.c_str());
  std::fflush(out_);
  shown_ = true;
  last_draw_ = now;
}

void ProgressDisplay::run() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, std::chrono::milliseconds(250));
    if (stop_) break;
    const auto now = Clock::now();
    if (in_point_ && now - last_quiet_ >= kQuietBeforeDrawing &&
        (!shown_ || now - last_draw_ >= std::chrono::seconds(1)))
      draw_locked(now);
  }
}

}  // namespace mpiscope::core
