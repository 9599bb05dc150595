#include "tessera/stats.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "tessera/error.h"

namespace tessera {

void Stats::set(const std::string& name, Value value) { values_[name] = std::move(value); }

void Stats::add(const std::string& name, uint64_t delta) {
  auto [it, inserted] = values_.try_emplace(name, uint64_t{0});
  if (auto* v = std::get_if<uint64_t>(&it->second)) {
    *v += delta;
  } else {
    throw Error("stats: counter " + name + " is not an unsigned counter");
  }
}

const Stats::Value& Stats::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw Error("stats: no statistic named " + name);
  return it->second;
}

uint64_t Stats::get_u64(const std::string& name) const {
  const Value& v = get(name);
  if (auto* u = std::get_if<uint64_t>(&v)) return *u;
  if (auto* i = std::get_if<int64_t>(&v); i && *i >= 0) return uint64_t(*i);
  throw Error("stats: " + name + " is not an unsigned counter");
}

double Stats::get_number(const std::string& name) const {
  const Value& v = get(name);
  if (auto* u = std::get_if<uint64_t>(&v)) return double(*u);
  if (auto* i = std::get_if<int64_t>(&v)) return double(*i);
  if (auto* d = std::get_if<double>(&v)) return *d;
  throw Error("stats: " + name + " is not a number");
}

std::string Stats::to_json_text(int indent) const {
  nlohmann::ordered_json root = nlohmann::ordered_json::object();
  for (const auto& [name, value] : values_) {
    nlohmann::ordered_json* node = &root;
    size_t start = 0;
    for (;;) {
      const size_t dot = name.find('.', start);
      const std::string part = name.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      if (dot == std::string::npos) {
        std::visit(
            [&](const auto& x) {
              using T = std::decay_t<decltype(x)>;
              // JSON has no NaN/inf: write null so readers see a missing measurement.
              if constexpr (std::is_same_v<T, double>) {
                (*node)[part] = std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json();
              } else {
                (*node)[part] = x;
              }
            },
            value);
        break;
      }
      nlohmann::ordered_json& child = (*node)[part];
      if (!child.is_object()) child = nlohmann::ordered_json::object();
      node = &child;
      start = dot + 1;
    }
  }
  return root.dump(indent);
}

}  // namespace tessera
