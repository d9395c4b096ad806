#include "lessons/expr.h"

#include "lessons/lesson.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace cudalab::lessons {

// [SECTION] Values

Value Value::of(double d) {
    Value v;
    v.number = d;
    v.is_int = std::isfinite(d) && d == std::floor(d) && std::abs(d) < 9.0e15;
    return v;
}
Value Value::integer(long long i) {
    Value v;
    v.number = double(i);
    return v;
}
Value Value::string(std::string s) {
    Value v;
    v.is_string = true;
    v.is_int = false;
    v.text = std::move(s);
    return v;
}
long long Value::as_int() const {
    if (is_string) throw ExprError("expected a number, got the text '" + text + "'");
    if (!is_int) throw ExprError("expected a whole number, got " + str());
    return (long long)number;
}
double Value::as_double() const {
    if (is_string) throw ExprError("expected a number, got the text '" + text + "'");
    return number;
}
bool Value::truthy() const { return is_string ? !text.empty() : number != 0; }
std::string Value::str() const {
    if (is_string) return text;
    if (is_int) return std::to_string((long long)number);
    if (std::isnan(number)) return "nan";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", number);
    return buf;
}

// [SECTION] Parsing

struct ExprNode {
    enum Kind { number, text, name, call, unary, binary, ternary } kind = number;
    Value value;     // number, text
    std::string id;  // name, call, operator
    std::vector<std::unique_ptr<ExprNode>> kids;
};

namespace {

using Node = ExprNode;

class Parser {
  public:
    explicit Parser(const std::string& s) : s_(s) {}
    std::unique_ptr<Node> parse() {
        auto n = ternary();
        skip();
        if (i_ < s_.size()) fail("unexpected '" + std::string(1, s_[i_]) + "'");
        return n;
    }

  private:
    [[noreturn]] void fail(const std::string& what) const {
        throw ExprError(what + " at column " + std::to_string(i_ + 1) + " of `" + s_ + "`");
    }
    void skip() {
        while (i_ < s_.size() && std::isspace((unsigned char)s_[i_])) ++i_;
    }
    bool eat(const char* op) {
        skip();
        const std::size_t n = std::char_traits<char>::length(op);
        if (s_.compare(i_, n, op) != 0) return false;
        // '|' is not '||', '<' is not '<=', '=' alone is not an operator.
        if (n == 1 && i_ + 1 < s_.size()) {
            const char next = s_[i_ + 1];
            if ((op[0] == '|' && next == '|') || (op[0] == '&' && next == '&') ||
                ((op[0] == '<' || op[0] == '>' || op[0] == '!') && next == '='))
                return false;
        }
        i_ += n;
        return true;
    }
    static std::unique_ptr<Node> make(Node::Kind k, std::string id, std::unique_ptr<Node> a,
                                      std::unique_ptr<Node> b = nullptr) {
        auto n = std::make_unique<Node>();
        n->kind = k;
        n->id = std::move(id);
        n->kids.push_back(std::move(a));
        if (b) n->kids.push_back(std::move(b));
        return n;
    }
    std::unique_ptr<Node> ternary() {
        auto c = binary(0);
        if (!eat("?")) return c;
        auto a = ternary();
        if (!eat(":")) fail("expected ':' of a ? b : c");
        auto b = ternary();
        auto n = make(Node::ternary, "?", std::move(c), std::move(a));
        n->kids.push_back(std::move(b));
        return n;
    }
    std::unique_ptr<Node> binary(int level) {
        static const std::vector<std::vector<const char*>> levels = {
            {"||"},     {"&&"},     {"==", "!=", "<=", ">=", "<", ">"},
            {"|", "&"}, {"+", "-"}, {"*", "/", "%"}};
        if (level == int(levels.size())) return unary();
        auto left = binary(level + 1);
        for (;;) {
            const char* found = nullptr;
            for (const char* op : levels[std::size_t(level)])
                if (eat(op)) {
                    found = op;
                    break;
                }
            if (!found) return left;
            left = make(Node::binary, found, std::move(left), binary(level + 1));
        }
    }
    std::unique_ptr<Node> unary() {
        if (eat("-")) return make(Node::unary, "-", unary());
        if (eat("!")) return make(Node::unary, "!", unary());
        return primary();
    }
    std::unique_ptr<Node> primary() {
        skip();
        if (i_ >= s_.size()) fail("expected a value");
        const char c = s_[i_];
        if (eat("(")) {
            auto n = ternary();
            if (!eat(")")) fail("expected ')'");
            return n;
        }
        auto n = std::make_unique<Node>();
        if (std::isdigit((unsigned char)c) ||
            (c == '.' && i_ + 1 < s_.size() && std::isdigit((unsigned char)s_[i_ + 1]))) {
            std::size_t used = 0;
            const std::string rest = s_.substr(i_);
            double d = 0;
            try {
                d = std::stod(rest, &used);
            } catch (...) {
                fail("bad number");
            }
            const std::string literal = rest.substr(0, used);
            n->kind = Node::number;
            n->value = literal.find_first_of(".eE") == std::string::npos
                           ? Value::integer((long long)d)
                           : Value::of(d);
            if (literal.find_first_of(".eE") != std::string::npos) n->value.is_int = false;
            i_ += used;
            return n;
        }
        if (c == '\'' || c == '"') {
            const std::size_t end = s_.find(c, i_ + 1);
            if (end == std::string::npos) fail("unterminated text");
            n->kind = Node::text;
            n->value = Value::string(s_.substr(i_ + 1, end - i_ - 1));
            i_ = end + 1;
            return n;
        }
        if (std::isalpha((unsigned char)c) || c == '_') {
            std::size_t j = i_;
            while (j < s_.size() &&
                   (std::isalnum((unsigned char)s_[j]) || s_[j] == '_' || s_[j] == '.'))
                ++j;
            n->id = s_.substr(i_, j - i_);
            i_ = j;
            if (eat("(")) {
                n->kind = Node::call;
                if (!eat(")")) {
                    do n->kids.push_back(ternary());
                    while (eat(","));
                    if (!eat(")")) fail("expected ')' after the arguments of " + n->id);
                }
            } else {
                n->kind = Node::name;
            }
            return n;
        }
        fail("unexpected '" + std::string(1, c) + "'");
    }

    const std::string& s_;
    std::size_t i_ = 0;
};

std::shared_ptr<const Node> parsed(const std::string& expr) {
    static std::mutex mutex;
    static std::unordered_map<std::string, std::shared_ptr<const Node>> cache;
    {
        std::lock_guard<std::mutex> lock(mutex);
        if (auto it = cache.find(expr); it != cache.end()) return it->second;
    }
    std::shared_ptr<const Node> n = Parser(expr).parse();
    std::lock_guard<std::mutex> lock(mutex);
    if (cache.size() > 4096)
        cache.clear();  // bounded: lesson files are small, learners' are not here
    cache[expr] = n;
    return n;
}

// [SECTION] Evaluation

Value eval(const Node& n, ExprContext& c, const std::string& whole);

Value call(const Node& n, ExprContext& c, const std::string& whole) {
    std::vector<Value> a;
    for (const auto& k : n.kids) a.push_back(eval(*k, c, whole));
    auto want = [&](std::size_t lo, std::size_t hi) {
        if (a.size() < lo || a.size() > hi)
            throw ExprError(n.id + "() takes " + std::to_string(lo) +
                            (lo == hi ? "" : " to " + std::to_string(hi)) + " arguments, got " +
                            std::to_string(a.size()) + " in `" + whole + "`");
    };
    const std::string& f = n.id;
    if (f == "min" || f == "max") {
        want(1, 64);
        Value best = a[0];
        for (const auto& v : a)
            if (f == "min" ? v.as_double() < best.as_double() : v.as_double() > best.as_double())
                best = v;
        return best;
    }
    if (f == "abs") {
        want(1, 1);
        return Value::of(std::abs(a[0].as_double()));
    }
    if (f == "sin" || f == "cos" || f == "sqrt" || f == "exp" || f == "log") {
        want(1, 1);
        const double x = a[0].as_double();
        Value v = Value::of(f == "sin"    ? std::sin(x)
                            : f == "cos"  ? std::cos(x)
                            : f == "sqrt" ? std::sqrt(x)
                            : f == "exp"  ? std::exp(x)
                                          : std::log(x));
        v.is_int = false;
        return v;
    }
    if (f == "round") {
        want(1, 1);
        return Value::integer(std::llround(a[0].as_double()));
    }  // halves away from zero
    if (f == "clamp") {
        want(3, 3);
        const double x = a[0].as_double(), lo = a[1].as_double(), hi = a[2].as_double();
        return x < lo ? a[1] : x > hi ? a[2] : a[0];
    }
    if (f == "floor") {
        want(1, 1);
        return Value::of(std::floor(a[0].as_double()));
    }
    if (f == "ceil") {
        want(1, 1);
        return Value::of(std::ceil(a[0].as_double()));
    }
    if (f == "ceil_div") {
        want(2, 2);
        const long long x = a[0].as_int(), y = a[1].as_int();
        if (y <= 0) throw ExprError("ceil_div by " + std::to_string(y) + " in `" + whole + "`");
        return Value::integer((x + y - 1) / y);
    }
    if (f == "fixed") {
        want(2, 2);
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.*f", int(std::clamp(a[1].as_int(), 0LL, 12LL)),
                      a[0].as_double());
        return Value::string(buf);
    }
    if (f == "coalesced") {
        want(3, 4);
        const long long rows = a[0].as_int(), width = a[1].as_int(), segment = a[2].as_int();
        const long long bytes = a.size() == 4 ? a[3].as_int() : 4;
        if (rows < 0 || width < 0 || segment < 0 || bytes <= 0)
            throw ExprError("coalesced() of a negative size in `" + whole + "`");
        return Value::integer(
            (long long)coalesced_sectors(std::uint64_t(rows), std::uint64_t(width),
                                         std::uint64_t(segment), std::uint64_t(bytes)));
    }
    if (f == "random_int" || f == "random_float" || f == "random_double") {
        want(2, 2);
        if (!c.rng)
            throw ExprError(f + "() is not available here (only in sizes, fills and arguments): `" +
                            whole + "`");
        if (f == "random_int") {
            const long long lo = a[0].as_int(), hi = a[1].as_int();
            if (lo > hi || lo < std::numeric_limits<int>::min() ||
                hi > std::numeric_limits<int>::max())
                throw ExprError("random_int(" + std::to_string(lo) + ", " + std::to_string(hi) +
                                ") is not a range of ints");
            // As Session::random_ints draws them, so a data lesson and a C++ one agree on a seed.
            return Value::integer(std::uniform_int_distribution<int>(int(lo), int(hi))(*c.rng));
        }
        const double lo = a[0].as_double(), hi = a[1].as_double();
        if (!(lo < hi)) throw ExprError(f + "(lo, hi) needs lo < hi in `" + whole + "`");
        if (f == "random_double") {
            Value v = Value::of(std::uniform_real_distribution<double>(lo, hi)(*c.rng));
            v.is_int = false;
            return v;
        }
        Value v =
            Value::of(double(std::uniform_real_distribution<float>(float(lo), float(hi))(*c.rng)));
        v.is_int = false;
        return v;
    }
    throw ExprError("unknown function " + f + "() in `" + whole + "`");
}

Value eval(const Node& n, ExprContext& c, const std::string& whole) {
    switch (n.kind) {
    case Node::number:
    case Node::text: return n.value;
    case Node::name: {
        if (auto it = c.vars.find(n.id); it != c.vars.end()) return it->second;
        Value v;
        if (c.lookup && c.lookup(n.id, &v)) return v;
        if (n.id == "nan") {
            v = Value::of(std::numeric_limits<double>::quiet_NaN());
            v.is_int = false;
            return v;
        }
        if (n.id == "inf") {
            v = Value::of(std::numeric_limits<double>::infinity());
            v.is_int = false;
            return v;
        }
        std::string known;
        for (const auto& [k, _] : c.vars) known += (known.empty() ? "" : ", ") + k;
        throw ExprError("unknown name '" + n.id + "' in `" + whole + "`" +
                        (known.empty() ? "" : " (known here: " + known + ")"));
    }
    case Node::call: return call(n, c, whole);
    case Node::unary: {
        const Value v = eval(*n.kids[0], c, whole);
        if (n.id == "!") return Value::integer(!v.truthy());
        Value r = Value::of(-v.as_double());
        r.is_int = v.is_int;
        return r;
    }
    case Node::ternary:
        return eval(*n.kids[0], c, whole).truthy() ? eval(*n.kids[1], c, whole)
                                                   : eval(*n.kids[2], c, whole);
    case Node::binary: break;
    }
    const std::string& op = n.id;
    if (op == "&&")
        return Value::integer(eval(*n.kids[0], c, whole).truthy() &&
                              eval(*n.kids[1], c, whole).truthy());
    if (op == "||")
        return Value::integer(eval(*n.kids[0], c, whole).truthy() ||
                              eval(*n.kids[1], c, whole).truthy());
    const Value a = eval(*n.kids[0], c, whole), b = eval(*n.kids[1], c, whole);
    if (op == "+" && (a.is_string || b.is_string)) return Value::string(a.str() + b.str());
    if ((op == "==" || op == "!=") && (a.is_string || b.is_string))
        return Value::integer((a.is_string == b.is_string && a.str() == b.str()) == (op == "=="));
    const bool ints = a.is_int && b.is_int;
    const double x = a.as_double(), y = b.as_double();
    if (op == "==") return Value::integer(x == y);
    if (op == "!=") return Value::integer(x != y);
    if (op == "<") return Value::integer(x < y);
    if (op == "<=") return Value::integer(x <= y);
    if (op == ">") return Value::integer(x > y);
    if (op == ">=") return Value::integer(x >= y);
    if (op == "|") return Value::integer(a.as_int() | b.as_int());
    if (op == "&") return Value::integer(a.as_int() & b.as_int());
    if (op == "+") {
        Value r = Value::of(x + y);
        r.is_int = ints;
        return r;
    }
    if (op == "-") {
        Value r = Value::of(x - y);
        r.is_int = ints;
        return r;
    }
    if (op == "*") {
        Value r = Value::of(x * y);
        r.is_int = ints;
        return r;
    }
    if (op == "/" || op == "%") {
        if (ints) {
            if (b.as_int() == 0) throw ExprError("division by zero in `" + whole + "`");
            return Value::integer(op == "/" ? a.as_int() / b.as_int() : a.as_int() % b.as_int());
        }
        Value r = Value::of(op == "/" ? x / y : std::fmod(x, y));
        r.is_int = false;
        return r;
    }
    throw ExprError("unknown operator " + op + " in `" + whole + "`");
}

// Splits a template into text and expressions; calls `on_expr` for each expression.
template <class F> std::string walk_template(const std::string& text, F on_expr) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char ch = text[i];
        if ((ch == '{' || ch == '}') && i + 1 < text.size() && text[i + 1] == ch) {
            out += ch;
            ++i;
            continue;
        }
        if (ch == '}')
            throw ExprError("a '}' with no '{' in the text `" + text +
                            "` (write '}}' for a brace)");
        if (ch != '{') {
            out += ch;
            continue;
        }
        // The expression runs to the matching '}', skipping quoted text.
        std::size_t j = i + 1;
        char quote = 0;
        for (; j < text.size(); ++j) {
            if (quote) {
                if (text[j] == quote) quote = 0;
                continue;
            }
            if (text[j] == '\'' || text[j] == '"') quote = text[j];
            else if (text[j] == '}') break;
        }
        if (j >= text.size()) throw ExprError("a '{' with no '}' in the text `" + text + "`");
        out += on_expr(text.substr(i + 1, j - i - 1));
        i = j;
    }
    return out;
}

}  // namespace

Value evaluate(const std::string& expr, ExprContext& context) {
    return eval(*parsed(expr), context, expr);
}

Expression::Expression(const std::string& text) : root_(parsed(text)), text_(text) {}

Value Expression::operator()(ExprContext& context) const { return eval(*root_, context, text_); }

void parse_expression(const std::string& expr) { (void)parsed(expr); }

std::string expand(const std::string& text, ExprContext& context) {
    return walk_template(text, [&](const std::string& e) { return evaluate(e, context).str(); });
}

void parse_template(const std::string& text) {
    walk_template(text, [](const std::string& e) {
        parse_expression(e);
        return std::string();
    });
}

}  // namespace cudalab::lessons
