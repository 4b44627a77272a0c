#include "xstack/source/paddle/NetParser.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "xstack/core/TimeUnits.h"

namespace xstack {
namespace {

using json = nlohmann::json;

// SAX handler for one net line. Depth 1 is the line's object, depth 2 the
// inside of its "args" object (when inArgs_). A callback returning false
// stops the parse: the line is bad and `failure` says why.
class NetLineHandler {
 public:
  bool haveName = false, tx = true;
  std::optional<uint64_t> tsNs;
  std::vector<std::pair<std::string, std::string>> args;
  uint64_t droppedArgs = 0;
  std::string firstDropped;  // describes the first dropped arg
  std::string failure;       // why the parse stopped, when it did

  bool null() { return scalar("null"); }
  bool boolean(bool) { return scalar("a boolean"); }
  bool number_integer(json::number_integer_t v) { return number(std::to_string(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return number(std::to_string(v)); }
  bool number_float(json::number_float_t, const json::string_t& text) {
    // The lexer writes the locale's decimal point into the text: restore '.'.
    std::string t = text;
    for (char& c : t)
      if (!(c >= '0' && c <= '9') && c != '-' && c != '+' && c != 'e' && c != 'E') c = '.';
    return number(std::move(t));
  }
  bool string(json::string_t& s) {
    if (depth_ == 1 && key_ == "name") {
      if (s != "tx" && s != "rx") return fail("name is neither \"tx\" nor \"rx\"");
      haveName = true;
      tx = s == "tx";
      return true;
    }
    return scalar("a string");
  }
  bool binary(json::binary_t&) { return scalar("binary"); }
  bool start_object(std::size_t) { return open(true); }
  bool start_array(std::size_t) { return open(false); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(json::string_t& k) {
    key_ = k;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
    return fail(e.what());
  }

 private:
  bool fail(std::string why) {
    if (failure.empty()) failure = std::move(why);
    return false;
  }

  bool number(std::string text) {
    if (depth_ == 1 && key_ == "ts") {
      tsNs = parseMillisToNs(text);
      return tsNs ? true : fail("ts " + text + " is not a non-negative number of ms");
    }
    if (depth_ == 2 && inArgs_) {
      args.emplace_back(key_, std::move(text));
      return true;
    }
    return scalar("a number");
  }

  // A value other than a kept name, ts or arg. `what` names its type.
  bool scalar(const char* what) {
    if (depth_ == 0) return fail("not a JSON object");
    if (depth_ == 1) {
      if (key_ == "name") return fail("name is not a string");
      if (key_ == "ts") return fail("ts is not a number");
      if (key_ == "args") return fail("args is not an object");
      return true;  // other keys are ignored
    }
    if (depth_ == 2 && inArgs_) drop(what);
    return true;
  }

  bool open(bool object) {
    if (depth_ == 0 && !object) return fail("not a JSON object");
    if (depth_ == 1) {
      if (key_ == "args" && object) {
        inArgs_ = true;
      } else if (key_ == "name" || key_ == "ts" || key_ == "args") {
        return fail(key_ + " has the wrong type");
      }
    } else if (depth_ == 2 && inArgs_) {
      drop(object ? "an object" : "an array");
    }
    ++depth_;
    return true;
  }

  bool close() {
    if (--depth_ == 1) inArgs_ = false;
    return true;
  }

  void drop(const char* what) {
    if (droppedArgs++ == 0) firstDropped = "arg \"" + key_ + "\" is " + what + ", dropped";
  }

  int depth_ = 0;
  bool inArgs_ = false;
  std::string key_;
};

// Keeps the last value of an arg named twice, at the place of its first.
void dedupeArgs(std::vector<std::pair<std::string, std::string>>& args) {
  if (args.size() < 2) return;
  // name -> index of its last value; keys view the first occurrence's name.
  std::unordered_map<std::string_view, size_t> last;
  for (size_t i = 0; i < args.size(); ++i) last[args[i].first] = i;
  if (last.size() == args.size()) return;
  std::vector<std::pair<std::string, std::string>> out;
  out.reserve(last.size());
  for (size_t i = 0; i < args.size(); ++i) {
    auto it = last.find(args[i].first);
    if (it == last.end()) continue;  // a later duplicate, already placed
    const size_t j = it->second;
    last.erase(it);
    out.emplace_back(std::move(args[i].first), std::move(args[j].second));
  }
  args = std::move(out);
}

}  // namespace

void NetParser::feedLine(std::string_view line, const LineInfo& info) {
  if (line.find_first_not_of(" \t\r\v\f") == std::string_view::npos) return;  // blank
  auto where = [&] { return path_ + ":" + std::to_string(info.number) + ": "; };
  // nlohmann's lexer takes a NUL byte for the end of input; JSON has no
  // place for a raw NUL, so such a line is bad as a whole.
  if (line.find('\0') != std::string_view::npos) {
    warnings_.add(Warn::NetBadLine, 1, where() + "NUL byte in line");
    return;
  }
  NetLineHandler h;
  bool ok = false;
  try {
    ok = json::sax_parse(line.begin(), line.end(), &h, json::input_format_t::json,
                         /*strict=*/true);
  } catch (const json::exception& e) {
    h.failure = e.what();
  }
  std::string why;
  if (!ok) {
    why = h.failure.empty() ? "not valid JSON" : h.failure;
    if (info.unterminated) why = "last line (no newline) is cut: " + why;
  } else if (!h.haveName) {
    why = "no \"name\"";
  } else if (!h.tsNs) {
    why = "no \"ts\"";
  }
  if (!why.empty()) {
    warnings_.add(Warn::NetBadLine, 1, where() + why);
    return;
  }
  if (h.droppedArgs) warnings_.add(Warn::NetNonNumericArg, h.droppedArgs, where() + h.firstDropped);
  dedupeArgs(h.args);
  samples_.push_back(NetCounterSample{*h.tsNs, h.tx, std::move(h.args)});
}

void NetParser::overlongLine(const LineInfo& info, uint64_t length) {
  warnings_.add(Warn::NetBadLine, 1,
                path_ + ":" + std::to_string(info.number) + ": line of " + std::to_string(length) +
                    " bytes skipped");
}

}  // namespace xstack
