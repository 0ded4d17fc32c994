#include "suites/skampi/patterns.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "core/fault_injection.hpp"
#include "core/mpi.hpp"

namespace mpiscope::skampi {

namespace {

using Bytes = std::vector<unsigned char>;
constexpr int kTag = 7, kTaskTag = 1, kStopTag = 2, kResultTag = 3, kDoneTag = 4, kUnusedTag = 999;

// The two datatypes of a point and the block one process occupies in a multi-block buffer.
struct Types {
  Types(const KernelSetup& s)
      : n(s.length / s.base->size()),
        send(s.send_datatype, n, *s.base, s.datatype_params),
        recv(s.recv_datatype, n, *s.base, s.datatype_params) {}
  long n;
  MessageType send, recv;
  static long slot(const MessageType& t) { return std::max(t.span(), t.count() * t.extent()); }
};

// MPI_Buffer_attach for the lifetime of a kernel that uses MPI_Bsend.
class AttachedBuffer {
 public:
  AttachedBuffer(const MessageType& t, int messages, MPI_Comm comm) {
    int pack = 0;
    mpi::check(MPI_Pack_size(t.count(), t.type(), comm, &pack), "MPI_Pack_size");
    buf_.resize(static_cast<std::size_t>(messages) *
                    (static_cast<std::size_t>(pack) + MPI_BSEND_OVERHEAD) +
                64);
    mpi::check(MPI_Buffer_attach(buf_.data(), static_cast<int>(buf_.size())), "MPI_Buffer_attach");
  }
  ~AttachedBuffer() {
    void* p = nullptr;
    int size = 0;
    MPI_Buffer_detach(&p, &size);
  }

 private:
  Bytes buf_;
};

// ---- Ping-pong: rank 0 sends and waits for the answer; the round trip is one sample. ----
enum class SendMode { kSend, kSsend, kIsend, kIssend, kBsend, kSendrecv, kSendrecvReplace };
enum class RecvMode { kRecv, kRecvAnyTag, kIrecv, kIprobeRecv };

class PingPong : public Kernel {
 public:
  PingPong(const KernelSetup& s, SendMode sm, RecvMode rm)
      : comm_(s.comm),
        t_(s),
        sm_(sm),
        rm_(rm),
        sbuf_(static_cast<std::size_t>(t_.send.span()) + 1),
        rbuf_(static_cast<std::size_t>(t_.recv.span()) + 1) {
    int r = 0;
    MPI_Comm_rank(comm_, &r);
    peer_ = 1 - r;
    me_ = r;
    if (sm == SendMode::kBsend) attached_ = std::make_unique<AttachedBuffer>(t_.send, 2, comm_);
  }
  double sample() override {
    const double t0 = MPI_Wtime();
    repetition();
    return MPI_Wtime() - t0;
  }
  double empty() override {
    const double t0 = MPI_Wtime();
    return MPI_Wtime() - t0;
  }
  void repetition() override {  // one round trip
    if (me_ == 0) {
      send();
      receive();
    } else {
      receive();
      send();
    }
  }
  long verify() override {
    // Rank 0 sends one message with its send type; rank 1 receives it with its receive type,
    // counts wrong bytes and reports the count back.
    long wrong = 0;
    if (me_ == 0) {
      std::fill(sbuf_.begin(), sbuf_.end(), 0);
      fill_message(sbuf_.data(), t_.send, 11);
      mpi::check(MPI_Send(sbuf_.data(), t_.send.count(), t_.send.type(), peer_, kTag, comm_),
                 "MPI_Send");
      mpi::check(MPI_Recv(&wrong, 1, MPI_LONG, peer_, kTag, comm_, MPI_STATUS_IGNORE), "MPI_Recv");
    } else {
      std::fill(rbuf_.begin(), rbuf_.end(), 0);
      mpi::check(MPI_Recv(rbuf_.data(), t_.recv.count(), t_.recv.type(), peer_, kTag, comm_,
                          MPI_STATUS_IGNORE),
                 "MPI_Recv");
      if (core::fault::corrupt_received_data() && t_.n > 0)
        rbuf_[static_cast<std::size_t>(t_.recv.data_byte_offsets()[0])] ^= 0xff;
      wrong = count_wrong_bytes(rbuf_.data(), t_.recv, 11);
      mpi::check(MPI_Send(&wrong, 1, MPI_LONG, peer_, kTag, comm_), "MPI_Send");
    }
    return wrong;
  }

 private:
  void send() {
    const auto& t = t_.send;
    MPI_Request req;
    switch (sm_) {
      case SendMode::kSend:
        MPI_Send(sbuf_.data(), t.count(), t.type(), peer_, kTag, comm_);
        break;
      case SendMode::kSsend:
        MPI_Ssend(sbuf_.data(), t.count(), t.type(), peer_, kTag, comm_);
        break;
      case SendMode::kBsend:
        MPI_Bsend(sbuf_.data(), t.count(), t.type(), peer_, kTag, comm_);
        break;
      case SendMode::kIsend:
        MPI_Isend(sbuf_.data(), t.count(), t.type(), peer_, kTag, comm_, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        break;
      case SendMode::kIssend:
        MPI_Issend(sbuf_.data(), t.count(), t.type(), peer_, kTag, comm_, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        break;
      case SendMode::kSendrecv:
        MPI_Sendrecv(sbuf_.data(), t.count(), t.type(), peer_, kTag, rbuf_.data(), t_.recv.count(),
                     t_.recv.type(), peer_, kTag, comm_, MPI_STATUS_IGNORE);
        break;
      case SendMode::kSendrecvReplace:
        MPI_Sendrecv_replace(sbuf_.data(), t.count(), t.type(), peer_, kTag, peer_, kTag, comm_,
                             MPI_STATUS_IGNORE);
        break;
    }
  }
  void receive() {
    if (sm_ == SendMode::kSendrecv || sm_ == SendMode::kSendrecvReplace) return;  // one exchange
    const auto& t = t_.recv;
    MPI_Request req;
    int flag = 0;
    switch (rm_) {
      case RecvMode::kRecv:
        MPI_Recv(rbuf_.data(), t.count(), t.type(), peer_, kTag, comm_, MPI_STATUS_IGNORE);
        break;
      case RecvMode::kRecvAnyTag:
        MPI_Recv(rbuf_.data(), t.count(), t.type(), peer_, MPI_ANY_TAG, comm_, MPI_STATUS_IGNORE);
        break;
      case RecvMode::kIrecv:
        MPI_Irecv(rbuf_.data(), t.count(), t.type(), peer_, kTag, comm_, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        break;
      case RecvMode::kIprobeRecv:
        while (!flag) MPI_Iprobe(peer_, kTag, comm_, &flag, MPI_STATUS_IGNORE);
        MPI_Recv(rbuf_.data(), t.count(), t.type(), peer_, kTag, comm_, MPI_STATUS_IGNORE);
        break;
    }
  }
  MPI_Comm comm_;
  Types t_;
  SendMode sm_;
  RecvMode rm_;
  Bytes sbuf_, rbuf_;
  int peer_ = 0, me_ = 0;
  std::unique_ptr<AttachedBuffer> attached_;
};

// ---- Collective: a barrier, then the operation timed on every process until it has told the
// root that it is done; the same without the operation is the empty measurement. Rank 0 is the
// root and its time is the point's.
// The end is a zero-byte message from every other process to the root, not a second barrier (as
// the paper has it): a barrier costs the root less when it arrives last, the others already
// waiting in it, so after an operation the root finishes last (MPI_Gather, MPI_Reduce) the
// operation's sample held less of the barrier than the empty measurement subtracted, and 14 of
// 24 MPI_Gather points came out negative. The root's wait for the messages is the same in both:
// a sample ends when the last message is in or the root is done, whichever is later, and each
// message leaves no earlier than in the empty measurement, so a sample is never shorter than it.

class Collective : public Kernel {
 public:
  Collective(const KernelSetup& s, int type) : comm_(s.comm), t_(s), type_(type) {
    MPI_Comm_rank(comm_, &me_);
    MPI_Comm_size(comm_, &p_);
    slot_s_ = Types::slot(t_.send);
    slot_r_ = Types::slot(t_.recv);
    sbuf_.assign(static_cast<std::size_t>(slot_s_ * p_ + t_.send.span() + 1), 1);
    rbuf_.assign(static_cast<std::size_t>(slot_r_ * p_ + t_.recv.span() + 1), 0);
    counts_.assign(static_cast<std::size_t>(p_), t_.send.count());
    rcounts_.assign(static_cast<std::size_t>(p_), t_.recv.count());
    for (int i = 0; i < p_; ++i) {
      sdispl_.push_back(i * t_.send.count());
      rdispl_.push_back(i * t_.recv.count());
    }
    reqs_.resize(static_cast<std::size_t>(p_));
    const std::string base_name = [&] {
      char name[MPI_MAX_OBJECT_NAME] = {};
      int len = 0;
      MPI_Type_get_name(s.base->get(), name, &len);
      return std::string(name, static_cast<std::size_t>(len));
    }();
    op_ = (base_name == "MPI_BYTE") ? MPI_BOR : MPI_SUM;
    base_size_ = s.base->size();
  }
  double sample() override {
    MPI_Barrier(comm_);
    const double t0 = MPI_Wtime();
    operation();
    tell_root_done();
    const double t = MPI_Wtime() - t0;
    for (auto& c : split_) MPI_Comm_free(&c);  // Comm_split: the new communicator, untimed
    split_.clear();
    return t;
  }
  double empty() override {
    MPI_Barrier(comm_);
    const double t0 = MPI_Wtime();
    tell_root_done();
    return MPI_Wtime() - t0;
  }
  // The operation without the barriers; Comm_split's communicators wait for after_repetitions
  // (after each sample, untimed).
  void repetition() override { operation(); }
  void after_repetitions() override {
    for (auto& c : split_) MPI_Comm_free(&c);
    split_.clear();
  }

 private:
  void operation() {
    unsigned char* s = sbuf_.data();
    unsigned char* r = rbuf_.data();
    const MPI_Datatype st = t_.send.type(), rt = t_.recv.type();
    const int sc = t_.send.count(), rc = t_.recv.count();
    MPI_Comm c = comm_;
    switch (type_) {
      case 17:
        if (me_ == 0)
          MPI_Bcast(s, sc, st, 0, c);
        else
          MPI_Bcast(r, rc, rt, 0, c);
        break;
      case 18:
        MPI_Barrier(c);
        break;
      case 19:
        MPI_Reduce(s, r, sc, st, op_, 0, c);
        break;
      case 20:
        MPI_Alltoall(s, sc, st, r, rc, rt, c);
        break;
      case 21:
        MPI_Scan(s, r, sc, st, op_, c);
        break;
      case kCommSplitType: {
        MPI_Comm n;
        MPI_Comm_split(c, 0, me_, &n);
        split_.push_back(n);
        break;
      }
      case kMemcpyType:
        std::memcpy(r, s, static_cast<std::size_t>(t_.n * base_size_));
        break;
      case 33:
        MPI_Gather(s, sc, st, r, rc, rt, 0, c);
        break;
      case 35:
        MPI_Scatter(s, sc, st, r, rc, rt, 0, c);
        break;
      case 36:
        MPI_Allreduce(s, r, sc, st, op_, c);
        break;
      case 37:
        MPI_Reduce(s, r, sc, st, op_, 0, c);
        MPI_Bcast(r, sc, st, 0, c);
        break;
      case 38:
        MPI_Reduce_scatter(s, r, counts_.data(), st, op_, c);
        break;
      case 39:
        MPI_Allgather(s, sc, st, r, rc, rt, c);
        break;
      case 40:
        MPI_Scatterv(s, counts_.data(), sdispl_.data(), st, r, rc, rt, 0, c);
        break;
      case 41:
        MPI_Gatherv(s, sc, st, r, rcounts_.data(), rdispl_.data(), rt, 0, c);
        break;
      case 42:
        MPI_Allgatherv(s, sc, st, r, rcounts_.data(), rdispl_.data(), rt, c);
        break;
      case 43:
        MPI_Alltoallv(s, counts_.data(), sdispl_.data(), st, r, rcounts_.data(), rdispl_.data(), rt,
                      c);
        break;
      case 44:
        // Reduce the whole vector (p blocks) to the root, then scatter one block to each.
        MPI_Reduce(s, r, sc * p_, st, op_, 0, c);
        MPI_Scatterv(r, counts_.data(), sdispl_.data(), st, s, sc, st, 0, c);
        break;
      case 45:
        hand_gather(false);
        break;
      case 46:
        hand_gather(true);
        break;
      case 47:
        hand_scatter(false);
        break;
      case 48:
        hand_scatter(true);
        break;
      default:
        throw std::logic_error("not a collective type: " + std::to_string(type_));
    }
  }
  void tell_root_done() {
    if (me_ != 0) {
      MPI_Send(nullptr, 0, MPI_BYTE, 0, kDoneTag, comm_);
      return;
    }
    for (int i = 1; i < p_; ++i)
      MPI_Recv(nullptr, 0, MPI_BYTE, i, kDoneTag, comm_, MPI_STATUS_IGNORE);
  }
  // Gatherv by point-to-point: the root receives every block (blocking in rank order, or all
  // at once with MPI_Irecv + MPI_Waitall); the others send theirs.
  void hand_gather(bool nonblocking) {
    const auto& st = t_.send;
    const auto& rt = t_.recv;
    if (me_ != 0) {
      if (nonblocking) {
        MPI_Isend(sbuf_.data(), st.count(), st.type(), 0, kTag, comm_, &reqs_[0]);
        MPI_Wait(&reqs_[0], MPI_STATUS_IGNORE);
      } else {
        MPI_Send(sbuf_.data(), st.count(), st.type(), 0, kTag, comm_);
      }
      return;
    }
    MPI_Sendrecv(sbuf_.data(), st.count(), st.type(), 0, kTag, rbuf_.data(), rt.count(), rt.type(),
                 0, kTag, comm_, MPI_STATUS_IGNORE);
    for (int i = 1; i < p_; ++i) {
      unsigned char* at = rbuf_.data() + i * slot_r_;
      if (nonblocking)
        MPI_Irecv(at, rt.count(), rt.type(), i, kTag, comm_, &reqs_[static_cast<std::size_t>(i)]);
      else
        MPI_Recv(at, rt.count(), rt.type(), i, kTag, comm_, MPI_STATUS_IGNORE);
    }
    if (nonblocking) MPI_Waitall(p_ - 1, reqs_.data() + 1, MPI_STATUSES_IGNORE);
  }
  void hand_scatter(bool nonblocking) {
    const auto& st = t_.send;
    const auto& rt = t_.recv;
    if (me_ != 0) {
      if (nonblocking) {
        MPI_Irecv(rbuf_.data(), rt.count(), rt.type(), 0, kTag, comm_, &reqs_[0]);
        MPI_Wait(&reqs_[0], MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(rbuf_.data(), rt.count(), rt.type(), 0, kTag, comm_, MPI_STATUS_IGNORE);
      }
      return;
    }
    MPI_Sendrecv(sbuf_.data(), st.count(), st.type(), 0, kTag, rbuf_.data(), rt.count(), rt.type(),
                 0, kTag, comm_, MPI_STATUS_IGNORE);
    for (int i = 1; i < p_; ++i) {
      unsigned char* at = sbuf_.data() + i * slot_s_;
      if (nonblocking)
        MPI_Isend(at, st.count(), st.type(), i, kTag, comm_, &reqs_[static_cast<std::size_t>(i)]);
      else
        MPI_Send(at, st.count(), st.type(), i, kTag, comm_);
    }
    if (nonblocking) MPI_Waitall(p_ - 1, reqs_.data() + 1, MPI_STATUSES_IGNORE);
  }

 public:
  ~Collective() override {
    for (auto& c : split_) MPI_Comm_free(&c);
  }

 private:
  MPI_Comm comm_;
  Types t_;
  int type_;
  int me_ = 0, p_ = 1;
  long slot_s_ = 0, slot_r_ = 0;
  Bytes sbuf_, rbuf_;
  std::vector<int> counts_, rcounts_, sdispl_, rdispl_;
  std::vector<MPI_Request> reqs_;
  std::vector<MPI_Comm> split_;
  MPI_Op op_ = MPI_SUM;
  long base_size_ = 0;
};

// ---- Master-worker: rank 0 hands out `chunks` tasks of one message each to the workers and
// collects a result message per task; the time until the last result is in is one sample.
// Types 10-12 vary how the master collects results (the tasks go out by MPI_Send), types 13-16
// how it sends tasks; those collect results by MPI_Recv from a named worker, the oldest
// outstanding task's, so that 12 and 13 differ in MPI_ANY_SOURCE alone (docs/skampi.md). ----
enum class MasterRecv { kWaitsome, kWaitany, kRecvAnySource, kRecvInTurn };

class MasterWorker : public Kernel {
 public:
  MasterWorker(const KernelSetup& s, MasterRecv rm, SendMode sm)
      : comm_(s.comm), t_(s), rm_(rm), sm_(sm), chunks_(s.chunks) {
    MPI_Comm_rank(comm_, &me_);
    int p = 1;
    MPI_Comm_size(comm_, &p);
    workers_ = p - 1;
    if (workers_ < 1)
      throw std::runtime_error("the master-worker pattern needs at least 2 processes");
    const std::size_t per = static_cast<std::size_t>(std::max(t_.send.span(), t_.recv.span()) + 1);
    const std::size_t slots = me_ == 0 ? static_cast<std::size_t>(workers_) + 1 : 1;
    tasks_.assign(per * slots, 1);
    results_.assign(per * slots, 0);
    stride_ = static_cast<long>(per);
    reqs_.assign(static_cast<std::size_t>(workers_) + 1, MPI_REQUEST_NULL);
    sreqs_.assign(static_cast<std::size_t>(workers_) + 1, MPI_REQUEST_NULL);
    if (sm == SendMode::kBsend)
      attached_ = std::make_unique<AttachedBuffer>(t_.send, workers_ + 1, comm_);
  }
  double sample() override {
    MPI_Barrier(comm_);
    const double t0 = MPI_Wtime();
    if (me_ == 0)
      master();
    else
      worker();
    const double t = MPI_Wtime() - t0;
    if (me_ == 0)  // untimed: release the workers
      for (int w = 1; w <= workers_; ++w) MPI_Send(nullptr, 0, MPI_BYTE, w, kStopTag, comm_);
    return t;
  }
  double empty() override {
    MPI_Barrier(comm_);
    const double t0 = MPI_Wtime();
    return MPI_Wtime() - t0;
  }

 private:
  unsigned char* task(int w) { return tasks_.data() + static_cast<long>(w) * stride_; }
  unsigned char* result(int w) { return results_.data() + static_cast<long>(w) * stride_; }
  void send_task(int w) {
    const auto& t = t_.send;
    auto& req = sreqs_[static_cast<std::size_t>(w)];
    switch (sm_) {
      case SendMode::kSsend:
        MPI_Ssend(task(w), t.count(), t.type(), w, kTaskTag, comm_);
        break;
      case SendMode::kBsend:
        MPI_Bsend(task(w), t.count(), t.type(), w, kTaskTag, comm_);
        break;
      case SendMode::kIsend:
        if (req != MPI_REQUEST_NULL) MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Isend(task(w), t.count(), t.type(), w, kTaskTag, comm_, &req);
        break;
      default:
        MPI_Send(task(w), t.count(), t.type(), w, kTaskTag, comm_);
        break;
    }
    if (rm_ == MasterRecv::kWaitsome || rm_ == MasterRecv::kWaitany)
      MPI_Irecv(result(w), t_.recv.count(), t_.recv.type(), w, kResultTag, comm_,
                &reqs_[static_cast<std::size_t>(w)]);
  }
  void master() {
    int sent = 0, done = 0;
    for (int w = 1; w <= workers_ && sent < chunks_; ++w, ++sent) send_task(w);
    std::vector<int> idx(static_cast<std::size_t>(workers_));
    while (done < chunks_) {
      std::vector<int> ready;
      if (rm_ == MasterRecv::kRecvAnySource) {
        MPI_Status st;
        MPI_Recv(result(0), t_.recv.count(), t_.recv.type(), MPI_ANY_SOURCE, kResultTag, comm_,
                 &st);
        ready.push_back(st.MPI_SOURCE);
      } else if (rm_ == MasterRecv::kRecvInTurn) {
        // Tasks go out to workers 1, 2, ..., and each returned worker gets the next task, so
        // the oldest outstanding task is always worker done % workers + 1's.
        const int w = done % workers_ + 1;
        MPI_Recv(result(w), t_.recv.count(), t_.recv.type(), w, kResultTag, comm_,
                 MPI_STATUS_IGNORE);
        ready.push_back(w);
      } else if (rm_ == MasterRecv::kWaitany) {
        int i = 0;
        MPI_Waitany(workers_, reqs_.data() + 1, &i, MPI_STATUS_IGNORE);
        ready.push_back(i + 1);
      } else {
        int out = 0;
        MPI_Waitsome(workers_, reqs_.data() + 1, &out, idx.data(), MPI_STATUSES_IGNORE);
        for (int k = 0; k < out; ++k) ready.push_back(idx[static_cast<std::size_t>(k)] + 1);
      }
      for (int w : ready) {
        ++done;
        if (sent < chunks_) {
          send_task(w);
          ++sent;
        }
      }
    }
    for (auto& r : sreqs_)
      if (r != MPI_REQUEST_NULL) MPI_Wait(&r, MPI_STATUS_IGNORE);
  }
  void worker() {
    while (true) {
      MPI_Status st;
      MPI_Recv(task(0), t_.recv.count(), t_.recv.type(), 0, MPI_ANY_TAG, comm_, &st);
      if (st.MPI_TAG == kStopTag) return;
      MPI_Send(result(0), t_.send.count(), t_.send.type(), 0, kResultTag, comm_);
    }
  }
  MPI_Comm comm_;
  Types t_;
  MasterRecv rm_;
  SendMode sm_;
  int chunks_, me_ = 0, workers_ = 0;
  long stride_ = 0;
  Bytes tasks_, results_;
  std::vector<MPI_Request> reqs_, sreqs_;
  std::unique_ptr<AttachedBuffer> attached_;
};

// ---- Simple: one call with local completion on rank 0. ----
class Simple : public Kernel {
 public:
  Simple(const KernelSetup& s, int type)
      : comm_(s.comm), type_(type), buf_(4096 + MPI_BSEND_OVERHEAD) {}
  double sample() override {
    int x = 0;
    double t = 0;
    switch (type_) {
      case 24: {
        const double t0 = MPI_Wtime();
        volatile double w = MPI_Wtime();
        (void)w;
        t = MPI_Wtime() - t0;
        break;
      }
      case 25: {
        const double t0 = MPI_Wtime();
        MPI_Comm_rank(comm_, &x);
        t = MPI_Wtime() - t0;
        break;
      }
      case 26: {
        const double t0 = MPI_Wtime();
        MPI_Comm_size(comm_, &x);
        t = MPI_Wtime() - t0;
        break;
      }
      case 27: {
        const double t0 = MPI_Wtime();
        MPI_Iprobe(MPI_ANY_SOURCE, kUnusedTag, comm_, &x, MPI_STATUS_IGNORE);
        t = MPI_Wtime() - t0;
        if (x) throw std::logic_error("MPI_Iprobe found a message nobody sent");
        break;
      }
      case kBufferAttachType: {
        const double t0 = MPI_Wtime();
        MPI_Buffer_attach(buf_.data(), static_cast<int>(buf_.size()));
        t = MPI_Wtime() - t0;
        void* p = nullptr;
        MPI_Buffer_detach(&p, &x);  // untimed
        break;
      }
      default:
        throw std::logic_error("not a simple type");
    }
    return t;
  }
  void repetition() override {
    int x = 0;
    switch (type_) {
      case 24: {
        volatile double w = MPI_Wtime();
        (void)w;
        break;
      }
      case 25:
        MPI_Comm_rank(comm_, &x);
        break;
      case 26:
        MPI_Comm_size(comm_, &x);
        break;
      case 27:
        MPI_Iprobe(MPI_ANY_SOURCE, kUnusedTag, comm_, &x, MPI_STATUS_IGNORE);
        if (x) throw std::logic_error("MPI_Iprobe found a message nobody sent");
        break;
      default:
        Kernel::repetition();
    }
  }
  double empty() override {
    const double t0 = MPI_Wtime();
    return MPI_Wtime() - t0;
  }

 private:
  MPI_Comm comm_;
  int type_;
  Bytes buf_;
};

}  // namespace

void Kernel::repetition() {
  throw std::logic_error("this SKaMPI pattern has no accurate-mode repetition");
}

const char* accurate_unavailable(const InstanceInfo& inst) {
  if (inst.pattern == Pattern::kMasterWorker)
    return "the master-worker pattern is measured with SKaMPI's method: its workers are released "
           "after the master's timed region, so one repetition is not a complete operation on "
           "every process";
  if (inst.type == kBufferAttachType)
    return "MPI_Buffer_attach is measured with SKaMPI's method: a second attach needs the detach "
           "that SKaMPI leaves out of the timing, so one repetition is not the call alone";
  return nullptr;
}

bool measured_accurately(const SuiteSpec& s, const cli::MethodOptions& method) {
  return method.accurate() && accurate_unavailable(*find_instance(s.type)) == nullptr;
}

std::unique_ptr<Kernel> make_kernel(const InstanceInfo& inst, const KernelSetup& s) {
  switch (inst.type) {
    case 1:
      return std::make_unique<PingPong>(s, SendMode::kSend, RecvMode::kRecv);
    case 2:
      return std::make_unique<PingPong>(s, SendMode::kSend, RecvMode::kRecvAnyTag);
    case 3:
      return std::make_unique<PingPong>(s, SendMode::kSend, RecvMode::kIrecv);
    case 4:
      return std::make_unique<PingPong>(s, SendMode::kSend, RecvMode::kIprobeRecv);
    case 5:
      return std::make_unique<PingPong>(s, SendMode::kSsend, RecvMode::kRecv);
    case 6:
      return std::make_unique<PingPong>(s, SendMode::kIsend, RecvMode::kRecv);
    case 7:
      return std::make_unique<PingPong>(s, SendMode::kBsend, RecvMode::kRecv);
    case 8:
      return std::make_unique<PingPong>(s, SendMode::kSendrecv, RecvMode::kRecv);
    case 9:
      return std::make_unique<PingPong>(s, SendMode::kSendrecvReplace, RecvMode::kRecv);
    case 34:
      return std::make_unique<PingPong>(s, SendMode::kIssend, RecvMode::kRecv);
    case 10:
      return std::make_unique<MasterWorker>(s, MasterRecv::kWaitsome, SendMode::kSend);
    case 11:
      return std::make_unique<MasterWorker>(s, MasterRecv::kWaitany, SendMode::kSend);
    case 12:
      return std::make_unique<MasterWorker>(s, MasterRecv::kRecvAnySource, SendMode::kSend);
    case 13:
      return std::make_unique<MasterWorker>(s, MasterRecv::kRecvInTurn, SendMode::kSend);
    case 14:
      return std::make_unique<MasterWorker>(s, MasterRecv::kRecvInTurn, SendMode::kSsend);
    case 15:
      return std::make_unique<MasterWorker>(s, MasterRecv::kRecvInTurn, SendMode::kIsend);
    case 16:
      return std::make_unique<MasterWorker>(s, MasterRecv::kRecvInTurn, SendMode::kBsend);
    default:
      break;
  }
  if (inst.pattern == Pattern::kSimple) return std::make_unique<Simple>(s, inst.type);
  return std::make_unique<Collective>(s, inst.type);
}

long buffer_bytes(const InstanceInfo& inst, long span, int p) {
  switch (inst.pattern) {
    case Pattern::kPingPong:
      return 2 * span;
    case Pattern::kMasterWorker:
      return 2 * (p + 1) * span;
    case Pattern::kSimple:
      return 0;
    case Pattern::kCollective:
      return 2 * (p + 1) * span;
  }
  return 0;
}

}  // namespace mpiscope::skampi
