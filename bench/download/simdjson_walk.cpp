// simdjson_walk.cpp - the simdjson anchor of the decode measurement (bench/download/run.sh).
//
//   simdjson_walk <page.json> [iterations]
//
// Times simdjson's On-Demand API (Debian's libsimdjson-dev) walking EVERY value of the page:
// each object's keys (unescaped), each string unescaped into simdjson's string buffer, each
// number parsed (integers as int64, others as double), each true/false/null read. The page is
// loaded once into a padded_string; every iteration re-parses it from the bytes with the same
// parser (its buffers reused, as a download would). Prints one JSON line: best and median
// seconds per walk, the page's bytes and the number of scalar values seen (a check that the
// walk did visit everything).
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

using namespace simdjson;

static size_t sink = 0;

static void walk(ondemand::value v, size_t &values) {
    switch (v.type()) {
    case ondemand::json_type::object:
        for (auto field : v.get_object()) {
            std::string_view key = field.unescaped_key();
            sink += key.size();
            walk(field.value(), values);
        }
        break;
    case ondemand::json_type::array:
        for (auto element : v.get_array()) walk(element.value(), values);
        break;
    case ondemand::json_type::string: {
        std::string_view s = v.get_string();
        sink += s.size();
        values++;
        break;
    }
    case ondemand::json_type::number: {
        ondemand::number_type t = v.get_number_type();
        if (t == ondemand::number_type::signed_integer) sink += (size_t)int64_t(v.get_int64());
        else if (t == ondemand::number_type::unsigned_integer) sink += (size_t)uint64_t(v.get_uint64());
        else sink += (size_t)double(v.get_double());
        values++;
        break;
    }
    case ondemand::json_type::boolean:
        sink += bool(v.get_bool());
        values++;
        break;
    case ondemand::json_type::null:
        sink += v.is_null();
        values++;
        break;
    }
}

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: simdjson_walk <page.json> [iterations]\n");
        return 64;
    }
    int iterations = argc > 2 ? std::atoi(argv[2]) : 30;
    padded_string page = padded_string::load(argv[1]);
    ondemand::parser parser;
    size_t values = 0;
    std::vector<double> times;
    for (int i = -2; i < iterations; i++) {  // two warm-up walks
        auto t0 = std::chrono::steady_clock::now();
        values = 0;
        ondemand::document doc = parser.iterate(page);
        walk(doc.get_value(), values);
        auto t1 = std::chrono::steady_clock::now();
        if (i >= 0) times.push_back(std::chrono::duration<double>(t1 - t0).count());
    }
    std::sort(times.begin(), times.end());
    std::printf("{\"name\":\"simdjson\",\"version\":\"%s\",\"implementation\":\"%s\",\"bytes\":%zu,\"values\":%zu,"
                "\"best\":%.9f,\"median\":%.9f,\"sink\":%zu}\n",
                SIMDJSON_STRINGIFY(SIMDJSON_VERSION), get_active_implementation()->name().c_str(), page.size(), values, times[0],
                times[times.size() / 2], sink % 10);
    return 0;
}
