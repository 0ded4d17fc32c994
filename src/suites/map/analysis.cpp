#include "suites/map/analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/stats.hpp"

namespace mpiscope::map {

namespace {

// The pairs of a class split into a healthy group and a slow one at the widest gap between
// neighbouring figures (log scale, `goodness` larger is better), when that gap is at least the
// slow factor and wider than the healthy group's own spread (the machine's run-to-run noise: on
// a loaded machine healthy TCP pairs spread over a factor 3 and must not be called slow).
struct Split {
  double reference = 0;  // median goodness of the healthy group
  double cut = 0;        // below this goodness a pair is slow (when found)
  bool found = false;
};

constexpr std::size_t kMinHealthyPairs = 3;

Split split(std::vector<double> goodness, const std::vector<double>& sweep_spreads, double factor) {
  std::sort(goodness.begin(), goodness.end());
  Split s;
  s.reference = core::quantile(goodness, 0.5);
  // The healthy group holds at least a third of the pairs and kMinHealthyPairs of them: one slow
  // host of 3 leaves a third of the inter-host pairs healthy, while one unusually fast pair must
  // not make every other pair slow, nor can 2 pairs tell a slow third from noise (2 false alarms
  // in 50 noisy made-up machines with 3 intra-host pairs and a minimum of 2).
  const std::size_t n = goodness.size();
  const std::size_t min_healthy = std::max<std::size_t>(kMinHealthyPairs, (n + 2) / 3);
  std::size_t widest = 0;  // the gap between goodness[widest - 1] and goodness[widest]
  for (std::size_t i = 1; i + min_healthy <= n; ++i)
    if (widest == 0 || goodness[i] - goodness[i - 1] > goodness[widest] - goodness[widest - 1])
      widest = i;
  if (widest == 0) return s;
  const double gap = goodness[widest] - goodness[widest - 1];
  const std::vector<double> healthy(goodness.begin() + static_cast<std::ptrdiff_t>(widest),
                                    goodness.end());
  // The noise: the healthy pairs' spread, or how much one pair moved between its sweeps (90th
  // percentile over the class), whichever is wider; few pairs hardly show the first.
  const double noise =
      std::max(healthy.back() - healthy.front(), core::quantile(sweep_spreads, 0.9));
  if (gap < std::log(factor) || gap <= noise) return s;
  s.reference = core::quantile(healthy, 0.5);
  s.cut = (goodness[widest] + goodness[widest - 1]) / 2;
  s.found = true;
  return s;
}

double goodness_of_latency(double us) {
  return -std::log(std::max(us, 1e-12));
}
double goodness_of_bandwidth(double mbs) {
  return std::log(std::max(mbs, 1e-12));
}

struct ClassSplits {
  Split latency, bandwidth;
};

std::optional<ClassSummary> summarize_class(const std::vector<PairResult*>& pairs, double factor,
                                            ClassSplits& splits) {
  if (pairs.empty()) return std::nullopt;
  std::vector<double> latency, bandwidth, latency_goodness, bandwidth_goodness;
  std::vector<double> latency_sweep_spread, bandwidth_sweep_spread;
  auto spread = [](const std::vector<double>& sweeps, double (*goodness)(double)) {
    const auto [low, high] = std::minmax_element(sweeps.begin(), sweeps.end());
    return std::abs(goodness(*high) - goodness(*low));
  };
  for (const auto* p : pairs) {
    latency.push_back(p->latency_median_us);
    bandwidth.push_back(p->bandwidth_median_mbs);
    latency_goodness.push_back(goodness_of_latency(p->latency_median_us));
    bandwidth_goodness.push_back(goodness_of_bandwidth(p->bandwidth_median_mbs));
    latency_sweep_spread.push_back(spread(p->latency_us, goodness_of_latency));
    bandwidth_sweep_spread.push_back(spread(p->bandwidth_mbs, goodness_of_bandwidth));
  }
  splits = {split(latency_goodness, latency_sweep_spread, factor),
            split(bandwidth_goodness, bandwidth_sweep_spread, factor)};
  auto distribution = [](const std::vector<double>& v, double reference) {
    return Distribution{*std::min_element(v.begin(), v.end()), core::quantile(v, 0.5),
                        *std::max_element(v.begin(), v.end()), reference};
  };
  ClassSummary c;
  c.pairs = pairs.size();
  c.latency_us = distribution(latency, std::exp(-splits.latency.reference));
  c.bandwidth_mbs = distribution(bandwidth, std::exp(splits.bandwidth.reference));
  return c;
}

// Slow: on the slow side of the split in every sweep, not only in the median.
void mark_slow(std::vector<PairResult*>& pairs, const ClassSplits& splits) {
  for (auto* p : pairs) {
    p->slow_latency = splits.latency.found &&
                      std::all_of(p->latency_us.begin(), p->latency_us.end(), [&](double v) {
                        return goodness_of_latency(v) < splits.latency.cut;
                      });
    p->slow_bandwidth =
        splits.bandwidth.found &&
        std::all_of(p->bandwidth_mbs.begin(), p->bandwidth_mbs.end(),
                    [&](double v) { return goodness_of_bandwidth(v) < splits.bandwidth.cut; });
  }
}

// One entry per host or rank; a second figure adds its reason to the first's.
void add_flag(std::vector<Flagged>& flags, const std::string& what, const std::string& reason) {
  for (auto& f : flags)
    if (f.what == what) {
      f.reason += "; " + reason;
      return;
    }
  flags.push_back({what, reason});
}

std::string figures(const std::vector<const PairResult*>& pairs, const ClassSummary& c) {
  std::vector<double> latency, bandwidth;
  for (const auto* p : pairs) {
    latency.push_back(p->latency_median_us);
    bandwidth.push_back(p->bandwidth_median_mbs);
  }
  return fmt::format(
      "median latency {:.2f} us (healthy {:.2f} us), median bandwidth {:.1f} MB/s (healthy "
      "{:.1f} MB/s)",
      core::quantile(latency, 0.5), c.latency_us.reference, core::quantile(bandwidth, 0.5),
      c.bandwidth_mbs.reference);
}

}  // namespace

MapAnalysis analyse(const std::vector<PairSample>& samples,
                    const std::vector<std::string>& host_of_rank, double slow_factor) {
  MapAnalysis out;
  out.slow_factor = slow_factor;
  std::map<std::pair<int, int>, std::vector<const PairSample*>> by_pair;
  for (const auto& s : samples) by_pair[{s.a, s.b}].push_back(&s);
  for (auto& [key, list] : by_pair) {
    std::sort(list.begin(), list.end(),
              [](const PairSample* x, const PairSample* y) { return x->sweep < y->sweep; });
    PairResult p;
    p.a = key.first;
    p.b = key.second;
    p.host_a = host_of_rank.at(static_cast<std::size_t>(p.a));
    p.host_b = host_of_rank.at(static_cast<std::size_t>(p.b));
    p.inter_host = p.host_a != p.host_b;
    for (const auto* s : list) {
      p.latency_us.push_back(s->latency_us);
      p.bandwidth_mbs.push_back(s->bandwidth_mbs);
      p.latency_round_trips += s->latency_iterations;
      p.bandwidth_round_trips += s->bandwidth_iterations;
    }
    p.latency_median_us = core::quantile(p.latency_us, 0.5);
    p.bandwidth_median_mbs = core::quantile(p.bandwidth_mbs, 0.5);
    out.pairs.push_back(std::move(p));
  }

  std::vector<PairResult*> intra, inter;
  for (auto& p : out.pairs) (p.inter_host ? inter : intra).push_back(&p);
  auto judged = [](const std::vector<PairResult*>& c) { return c.size() > kMinHealthyPairs; };
  for (const auto* c : {&intra, &inter})
    if (!c->empty() && !judged(*c))
      out.unjudged.push_back(fmt::format(
          "{} pairs {}: too few to tell a slow pair from noise (at least {} are needed)", c->size(),
          c == &intra ? "within hosts" : "between hosts", kMinHealthyPairs + 1));
  ClassSplits intra_splits, inter_splits;
  out.intra_host = summarize_class(intra, slow_factor, intra_splits);
  out.inter_host = summarize_class(inter, slow_factor, inter_splits);
  mark_slow(intra, intra_splits);
  mark_slow(inter, inter_splits);

  // Each figure is placed on its own: a slowed link lowers bandwidth, while CPU contention can
  // raise the latency of other pairs at the same time (seen on the test hosts); mixing the two
  // would make every host pair look slow.
  struct Quantity {
    const char* name;
    bool (*slow)(const PairResult&);
  };
  const Quantity quantities[] = {
      {"bandwidth", [](const PairResult& p) { return p.slow_bandwidth; }},
      {"latency", [](const PairResult& p) { return p.slow_latency; }}};
  std::map<std::string, std::set<std::string>> flagged_hosts;  // host -> quantities
  std::map<int, std::set<std::string>> flagged_ranks;          // rank -> quantities
  auto flagged_in = [](const auto& flags, const auto& key, const char* quantity) {
    const auto it = flags.find(key);
    return it != flags.end() && it->second.count(quantity) > 0;
  };
  for (const auto& q : quantities) {
    // Hosts: a host pair is slow when most of its rank pairs are.
    std::map<std::pair<std::string, std::string>, std::pair<int, int>> host_pairs;  // slow, all
    for (const auto* p : inter) {
      auto& count = host_pairs[std::minmax(p->host_a, p->host_b)];
      count.first += q.slow(*p) ? 1 : 0;
      count.second += 1;
    }
    auto host_pair_slow = [](const std::pair<int, int>& c) { return 2 * c.first > c.second; };
    const bool some_healthy = std::any_of(host_pairs.begin(), host_pairs.end(),
                                          [&](const auto& e) { return !host_pair_slow(e.second); });
    const bool some_slow = std::any_of(host_pairs.begin(), host_pairs.end(),
                                       [&](const auto& e) { return host_pair_slow(e.second); });
    if (some_slow && !some_healthy)
      out.unplaced = std::string("every pair of hosts is slow in ") + q.name +
                     " against the healthy ones: no single host can be blamed";
    std::set<std::string> hosts;
    for (const auto& [key, count] : host_pairs) hosts.insert({key.first, key.second});
    for (const auto& host : hosts) {
      bool all_slow = some_healthy;
      for (const auto& [key, count] : host_pairs)
        if (key.first == host || key.second == host) all_slow = all_slow && host_pair_slow(count);
      if (!all_slow) continue;
      flagged_hosts[host].insert(q.name);
      std::vector<const PairResult*> links;
      for (const auto* p : inter)
        if (p->host_a == host || p->host_b == host) links.push_back(p);
      add_flag(out.hosts, host,
               fmt::format("{} of its {} rank pairs with other hosts: {}", q.name, links.size(),
                           figures(links, *out.inter_host)));
    }

    // Ranks: every judged pair the rank is in is slow (at least two), its host not flagged.
    // Pairs of a class too small to judge (out.unjudged) do not count either way.
    const int ranks = static_cast<int>(host_of_rank.size());
    for (int r = 0; r < ranks; ++r) {
      if (flagged_in(flagged_hosts, host_of_rank[static_cast<std::size_t>(r)], q.name)) continue;
      std::vector<const PairResult*> mine;
      for (const auto& p : out.pairs)
        if ((p.a == r || p.b == r) && judged(p.inter_host ? inter : intra)) mine.push_back(&p);
      if (mine.size() < 2 ||
          !std::all_of(mine.begin(), mine.end(), [&](const PairResult* p) { return q.slow(*p); }))
        continue;
      flagged_ranks[r].insert(q.name);
      const auto& c = mine.front()->inter_host ? *out.inter_host : *out.intra_host;
      add_flag(out.ranks, "rank " + std::to_string(r),
               fmt::format("{} of all its {} pairs: {}", q.name, mine.size(), figures(mine, c)));
    }
  }

  // Each slow pair's explanation: a flagged host, else a flagged rank, else the link itself.
  for (auto& p : out.pairs) {
    std::string link_quantities;
    for (const auto& q : quantities) {
      if (!q.slow(p)) continue;
      if (flagged_in(flagged_hosts, p.host_a, q.name))
        p.flag = "slow host " + p.host_a;
      else if (flagged_in(flagged_hosts, p.host_b, q.name))
        p.flag = "slow host " + p.host_b;
      else if (flagged_in(flagged_ranks, p.a, q.name) || flagged_in(flagged_ranks, p.b, q.name)) {
        if (p.flag.empty())
          p.flag =
              "slow rank " + std::to_string(flagged_in(flagged_ranks, p.a, q.name) ? p.a : p.b);
      } else {
        link_quantities += (link_quantities.empty() ? "" : " and ") + std::string(q.name);
      }
    }
    if (link_quantities.empty()) continue;
    if (p.flag.empty()) p.flag = "slow link";
    const auto& c = p.inter_host ? *out.inter_host : *out.intra_host;
    out.links.push_back({fmt::format("{}-{}", p.a, p.b),
                         fmt::format("{} {} ({} - {}): {}", link_quantities,
                                     p.inter_host ? "between hosts" : "within a host", p.host_a,
                                     p.host_b, figures({&p}, c))});
  }
  return out;
}

}  // namespace mpiscope::map
