#include "suites/map/analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/stats.hpp"

namespace mpiscope::map {

namespace {

constexpr double kHealthyBandwidthQuantile = 0.9;
constexpr double kHealthyLatencyQuantile = 0.1;

std::optional<ClassSummary> summarize_class(std::vector<PairResult*> pairs) {
  if (pairs.empty()) return std::nullopt;
  std::vector<double> latency, bandwidth;
  for (const auto* p : pairs) {
    latency.push_back(p->latency_median_us);
    bandwidth.push_back(p->bandwidth_median_mbs);
  }
  auto distribution = [](const std::vector<double>& v, double healthy_quantile) {
    return Distribution{*std::min_element(v.begin(), v.end()), core::quantile(v, 0.5),
                        *std::max_element(v.begin(), v.end()), core::quantile(v, healthy_quantile)};
  };
  ClassSummary c;
  c.pairs = pairs.size();
  c.latency_us = distribution(latency, kHealthyLatencyQuantile);
  c.bandwidth_mbs = distribution(bandwidth, kHealthyBandwidthQuantile);
  return c;
}

// Slow in every sweep, against the class's reference.
void mark_slow(std::vector<PairResult*>& pairs, const ClassSummary& c, double factor) {
  for (auto* p : pairs) {
    p->slow_latency = std::all_of(p->latency_us.begin(), p->latency_us.end(),
                                  [&](double v) { return v > c.latency_us.reference * factor; });
    p->slow_bandwidth =
        std::all_of(p->bandwidth_mbs.begin(), p->bandwidth_mbs.end(),
                    [&](double v) { return v < c.bandwidth_mbs.reference / factor; });
  }
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
  out.intra_host = summarize_class(intra);
  out.inter_host = summarize_class(inter);
  if (out.intra_host) mark_slow(intra, *out.intra_host, slow_factor);
  if (out.inter_host) mark_slow(inter, *out.inter_host, slow_factor);

  // Hosts: a host pair is slow when most of its rank pairs are.
  std::map<std::pair<std::string, std::string>, std::pair<int, int>> host_pairs;  // slow, all
  for (const auto* p : inter) {
    auto& count = host_pairs[std::minmax(p->host_a, p->host_b)];
    count.first += p->slow() ? 1 : 0;
    count.second += 1;
  }
  auto host_pair_slow = [](const std::pair<int, int>& c) { return 2 * c.first > c.second; };
  const bool some_host_pair_healthy =
      std::any_of(host_pairs.begin(), host_pairs.end(),
                  [&](const auto& e) { return !host_pair_slow(e.second); });
  std::set<std::string> hosts;
  for (const auto& [key, count] : host_pairs) hosts.insert({key.first, key.second});
  std::set<std::string> flagged_hosts;
  bool some_host_pair_slow = false;
  for (const auto& host : hosts) {
    bool all_slow = true;
    for (const auto& [key, count] : host_pairs) {
      if (key.first != host && key.second != host) continue;
      all_slow = all_slow && host_pair_slow(count);
      some_host_pair_slow = some_host_pair_slow || host_pair_slow(count);
    }
    if (all_slow && some_host_pair_healthy) flagged_hosts.insert(host);
  }
  if (some_host_pair_slow && !some_host_pair_healthy)
    out.unplaced =
        "every pair of hosts is slow against the healthy reference: no single host can be "
        "blamed";
  for (const auto& host : flagged_hosts) {
    std::vector<const PairResult*> links;
    for (const auto* p : inter)
      if (p->host_a == host || p->host_b == host) links.push_back(p);
    out.hosts.push_back({host, fmt::format("its {} rank pairs with other hosts: {}", links.size(),
                                           figures(links, *out.inter_host))});
  }

  // Ranks: every pair the rank is in is slow (at least two), its host not flagged.
  const int ranks = static_cast<int>(host_of_rank.size());
  std::set<int> flagged_ranks;
  for (int r = 0; r < ranks; ++r) {
    if (flagged_hosts.count(host_of_rank[static_cast<std::size_t>(r)])) continue;
    std::vector<const PairResult*> mine;
    for (const auto& p : out.pairs)
      if (p.a == r || p.b == r) mine.push_back(&p);
    if (mine.size() >= 2 &&
        std::all_of(mine.begin(), mine.end(), [](const PairResult* p) { return p->slow(); })) {
      flagged_ranks.insert(r);
      const auto& c = mine.front()->inter_host ? *out.inter_host : *out.intra_host;
      out.ranks.push_back(
          {"rank " + std::to_string(r),
           fmt::format("all its {} pairs are slow: {}", mine.size(), figures(mine, c))});
    }
  }

  for (auto& p : out.pairs) {
    if (!p.slow()) continue;
    if (flagged_hosts.count(p.host_a))
      p.flag = "slow host " + p.host_a;
    else if (flagged_hosts.count(p.host_b))
      p.flag = "slow host " + p.host_b;
    else if (flagged_ranks.count(p.a))
      p.flag = "slow rank " + std::to_string(p.a);
    else if (flagged_ranks.count(p.b))
      p.flag = "slow rank " + std::to_string(p.b);
    else {
      p.flag = "slow link";
      const auto& c = p.inter_host ? *out.inter_host : *out.intra_host;
      out.links.push_back(
          {fmt::format("{}-{}", p.a, p.b),
           fmt::format("{} ({} - {}): {}", p.inter_host ? "between hosts" : "within a host",
                       p.host_a, p.host_b, figures({&p}, c))});
    }
  }
  return out;
}

}  // namespace mpiscope::map
