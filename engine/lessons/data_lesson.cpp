#include "lessons/data_lesson.h"

#include "lessons/expr.h"

#include <cmath>
#include <cstring>
#include <set>
#include <sstream>
#include <toml++/toml.h>

namespace cudalab::lessons {

// [SECTION] Loading lesson.toml
//
// Every key is checked: an unknown one (a typo) is an error naming the file and line, as is a
// value of the wrong type or an expression that does not parse.

namespace {

struct LoadError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class Loader {
  public:
    explicit Loader(std::string path) : path_(std::move(path)) {}

    [[noreturn]] void fail(const toml::node* node, const std::string& what) const {
        const int line = node ? int(node->source().begin.line) : 0;
        throw LoadError(path_ + ":" + std::to_string(line) + ": " + what);
    }
    static int line_of(const toml::node& n) { return int(n.source().begin.line); }

    // Keys a table may have; anything else is a typo.
    void only(const toml::table& t, const std::set<std::string>& keys,
              const std::string& what) const {
        for (const auto& [k, v] : t)
            if (!keys.count(std::string(k.str()))) {
                std::string list;
                for (const auto& key : keys) list += (list.empty() ? "" : ", ") + key;
                fail(&v, "unknown key '" + std::string(k.str()) + "' in " + what +
                             " (known: " + list + ")");
            }
    }
    // A string, or a number written as one: both are expressions.
    std::string expr(const toml::node& n, const std::string& what) const {
        std::string e;
        if (auto s = n.value<std::string>(); s && n.is_string()) e = *s;
        else if (n.is_integer()) e = std::to_string(*n.value<long long>());
        else if (n.is_floating_point()) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.17g", *n.value<double>());
            e = buf;
            if (e.find_first_of(".eEn") == std::string::npos) e += ".0";
        } else if (n.is_boolean()) e = *n.value<bool>() ? "1" : "0";
        else fail(&n, what + " must be an expression (a string or a number)");
        try {
            parse_expression(e);
        } catch (const ExprError& x) {
            fail(&n, what + ": " + x.what());
        }
        return e;
    }
    std::string text(const toml::node& n, const std::string& what, bool is_template) const {
        if (!n.is_string()) fail(&n, what + " must be a string");
        std::string s = *n.value<std::string>();
        if (is_template) try {
                parse_template(s);
            } catch (const ExprError& x) {
                fail(&n, what + ": " + x.what());
            }
        return s;
    }
    double number(const toml::node& n, const std::string& what) const {
        if (!n.is_number()) fail(&n, what + " must be a number");
        return *n.value<double>();
    }
    std::vector<std::string> strings(const toml::node& n, const std::string& what) const {
        std::vector<std::string> out;
        const toml::array* a = n.as_array();
        if (!a) fail(&n, what + " must be an array of strings");
        for (const auto& x : *a) out.push_back(text(x, what, false));
        return out;
    }
    // grid = ["ceil_div(n, 256)", 2] or a single expression: up to three dimensions.
    std::array<std::string, 3> dims(const toml::node& n, const std::string& what) const {
        std::array<std::string, 3> d = {"1", "1", "1"};
        if (const toml::array* a = n.as_array()) {
            if (a->empty() || a->size() > 3) fail(&n, what + " has 1 to 3 dimensions (x, y, z)");
            for (std::size_t i = 0; i < a->size(); ++i) d[i] = expr(*a->get(i), what);
        } else {
            d[0] = expr(n, what);
        }
        return d;
    }
    std::vector<Binding> bindings(const toml::node& n, const std::string& what) const {
        std::vector<Binding> out;
        const toml::array* a = n.as_array();
        if (!a)
            fail(&n, what + " must be an array of \"name = expression\" strings (in the order they "
                            "are drawn)");
        for (const auto& x : *a) {
            const std::string s = text(x, what, false);
            const std::size_t eq = s.find('=');
            if (eq == std::string::npos || (eq + 1 < s.size() && s[eq + 1] == '='))
                fail(&x, what + ": '" + s + "' is not \"name = expression\"");
            Binding b;
            b.name = s.substr(0, eq);
            b.expr = s.substr(eq + 1);
            auto trim = [](std::string& t) {
                t.erase(0, t.find_first_not_of(" \t"));
                t.erase(t.find_last_not_of(" \t") + 1);
            };
            trim(b.name);
            trim(b.expr);
            if (b.name.empty() || !(std::isalpha((unsigned char)b.name[0]) || b.name[0] == '_') ||
                b.name.find_first_not_of(
                    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
                    std::string::npos)
                fail(&x, what + ": '" + b.name + "' is not a name (letters, digits and _)");
            try {
                parse_expression(b.expr);
            } catch (const ExprError& e) {
                fail(&x, what + ": " + e.what());
            }
            b.line = line_of(x);
            out.push_back(b);
        }
        return out;
    }
    std::map<std::string, std::string> templates(const toml::node& n,
                                                 const std::string& what) const {
        std::map<std::string, std::string> out;
        const toml::table* t = n.as_table();
        if (!t) fail(&n, what + " must be a table of name = \"template\"");
        for (const auto& [k, v] : *t)
            out[std::string(k.str())] = text(v, what + "." + std::string(k.str()), true);
        return out;
    }
    const toml::array* tables(const toml::table& top, const char* key) const {
        const toml::node* n = top.get(key);
        if (!n) return nullptr;
        const toml::array* a = n->as_array();
        if (!a || !a->is_array_of_tables())
            fail(n,
                 std::string("[[") + key + "]] must be an array of tables (write [[" + key + "]])");
        return a;
    }

    static bool element_type(const std::string& t, ElementType* e) {
        static const std::map<std::string, ElementType> types = {
            {"float", ElementType::f32},
            {"double", ElementType::f64},
            {"int", ElementType::i32},
            {"unsigned int", ElementType::u32},
            {"unsigned char", ElementType::u8},
            {"long long", ElementType::i64},
            {"unsigned long long", ElementType::u64}};
        auto it = types.find(t);
        if (it == types.end()) return false;
        *e = it->second;
        return true;
    }

    void load(const toml::table& top, DataLesson* L) {
        only(top,
             {"kind", "checks", "views", "kernel", "grid", "block", "shared", "let", "words", "log",
              "arg", "launch", "compare", "metric", "timed"},
             "lesson.toml");
        if (auto n = top.get("kind")) L->kind = text(*n, "kind", false);
        if (L->kind != "kernel" && L->kind != "program")
            fail(top.get("kind"), "kind is \"kernel\" or \"program\", not \"" + L->kind + "\"");
        if (auto n = top.get("views")) L->views = strings(*n, "views");
        if (L->kind == "program") {
            // The checks are made by the lesson's C++ host side (lesson.cpp); lesson.toml names
            // them so that the linter can hold the two together.
            for (const char* k : {"kernel", "grid", "block", "shared", "let", "words", "log", "arg",
                                  "launch", "compare", "metric", "timed"})
                if (top.get(k))
                    fail(top.get(k), std::string("'") + k +
                                         "' has no meaning in a kind = \"program\" lesson (its "
                                         "host side is C++)");
            if (auto n = top.get("checks")) L->program_checks = strings(*n, "checks");
            return;
        }
        if (top.get("checks"))
            fail(top.get("checks"), "'checks' is for kind = \"program\" lessons; a kernel lesson's "
                                    "checks are its [[compare]] and [[metric]] tables");
        if (auto n = top.get("kernel")) L->kernel = text(*n, "kernel", false);
        if (auto n = top.get("grid")) L->grid = dims(*n, "grid");
        if (auto n = top.get("block")) L->block = dims(*n, "block");
        if (auto n = top.get("shared")) L->shared = expr(*n, "shared");
        if (auto n = top.get("let")) L->let = bindings(*n, "let");
        if (auto n = top.get("words")) L->words = templates(*n, "words");
        if (auto n = top.get("log")) L->log = text(*n, "log", true);

        std::set<std::string> buffers, names;
        if (const toml::array* args = tables(top, "arg"))
            for (const auto& node : *args) {
                const toml::table& t = *node.as_table();
                DataArg a;
                a.line = line_of(node);
                only(t,
                     {"name", "type", "count", "fill", "lo", "hi", "value", "mean", "stddev",
                      "edges", "shape"},
                     "[[arg]]");
                if (!t.get("name")) fail(&node, "[[arg]] has no name");
                a.name = text(*t.get("name"), "[[arg]] name", false);
                const std::string what = "[[arg]] '" + a.name + "'";
                if (!names.insert(a.name).second) fail(&node, what + " is declared twice");
                if (!t.get("type"))
                    fail(&node,
                         what +
                             " has no type (\"float*\", \"int\", ... as the kernel declares it)");
                a.type = text(*t.get("type"), what + " type", false);
                std::string base = a.type;
                a.buffer = !base.empty() && base.back() == '*';
                if (a.buffer) base.pop_back();
                while (!base.empty() && base.back() == ' ') base.pop_back();
                if (!element_type(base, &a.element))
                    fail(t.get("type"), what + ": type '" + a.type +
                                            "' (float, double, int, unsigned int, unsigned char, "
                                            "long long, unsigned long long, or a pointer to one)");
                a.type = base + (a.buffer ? "*" : "");
                if (a.buffer) {
                    buffers.insert(a.name);
                    if (!t.get("count"))
                        fail(&node,
                             what + " is a buffer: it needs a count (an expression of the sizes)");
                    a.count = expr(*t.get("count"), what + " count");
                    if (auto n = t.get("fill")) a.fill = text(*n, what + " fill", false);
                    static const std::set<std::string> fills = {"unwritten", "zero",   "value",
                                                                "uniform",   "normal", "expr"};
                    if (!fills.count(a.fill))
                        fail(t.get("fill"),
                             what + ": fill '" + a.fill +
                                 "' (unwritten, zero, value, uniform, normal or expr)");
                    for (auto [key, field] : {std::pair{"lo", &a.lo},
                                              {"hi", &a.hi},
                                              {"value", &a.value},
                                              {"mean", &a.mean},
                                              {"stddev", &a.stddev}})
                        if (auto n = t.get(key)) *field = expr(*n, what + " " + key);
                    if ((a.fill == "value" || a.fill == "expr") && !t.get("value"))
                        fail(&node, what + ": fill = \"" + a.fill + "\" needs a value");
                    if (auto n = t.get("edges")) {
                        const toml::array* edges = n->as_array();
                        if (!edges)
                            fail(n, what + " edges must be an array of { at = ..., value = ... } "
                                           "or { from = ..., to = ..., value = ... }");
                        for (const auto& e : *edges) {
                            const toml::table* et = e.as_table();
                            if (!et)
                                fail(&e, what + ": an edge is a table { at = ..., value = ... }");
                            only(*et, {"at", "from", "to", "value"}, what + " edge");
                            DataArg::Edge edge;
                            if (!et->get("value")) fail(&e, what + ": an edge needs a value");
                            edge.value = expr(*et->get("value"), what + " edge value");
                            if (auto at = et->get("at")) {
                                edge.from = expr(*at, what + " edge at");
                                edge.to = "(" + edge.from + ") + 1";
                            } else {
                                if (!et->get("from"))
                                    fail(&e, what + ": an edge needs at, or from (and to)");
                                edge.from = expr(*et->get("from"), what + " edge from");
                                edge.to = et->get("to") ? expr(*et->get("to"), what + " edge to")
                                                        : std::string("count");
                            }
                            a.edges.push_back(edge);
                        }
                    }
                    if (auto n = t.get("shape")) {
                        const toml::table* st = n->as_table();
                        if (!st)
                            fail(n, what + " shape must be { rows = ..., cols = ..., kind = "
                                           "\"image\" | \"matrix\" | \"bins\" }");
                        only(*st, {"rows", "cols", "kind"}, what + " shape");
                        a.rows =
                            st->get("rows") ? expr(*st->get("rows"), what + " shape rows") : "1";
                        a.cols = st->get("cols") ? expr(*st->get("cols"), what + " shape cols")
                                                 : "count";
                        const std::string k =
                            st->get("kind") ? text(*st->get("kind"), what + " shape kind", false)
                                            : "matrix";
                        if (k == "image") a.shape_kind = ShapeKind::image;
                        else if (k == "matrix") a.shape_kind = ShapeKind::matrix;
                        else if (k == "bins") a.shape_kind = ShapeKind::bins;
                        else
                            fail(st->get("kind"),
                                 what + ": shape kind '" + k + "' (image, matrix or bins)");
                        a.shaped = true;
                    }
                } else {
                    for (const char* k :
                         {"count", "fill", "lo", "hi", "mean", "stddev", "edges", "shape"})
                        if (t.get(k))
                            fail(t.get(k), what + " is a scalar (" + a.type + "): '" + k +
                                               "' is for buffers");
                    if (!t.get("value"))
                        fail(&node, what + " is a scalar: it needs a value (an expression)");
                    a.scalar = expr(*t.get("value"), what + " value");
                }
                L->args.push_back(std::move(a));
            }
        if (L->args.empty())
            fail(nullptr,
                 "a kernel lesson needs [[arg]] tables: the kernel's parameters, in order");

        const toml::array* launches = tables(top, "launch");
        if (!launches) fail(nullptr, "a kernel lesson needs at least one [[launch]]");
        for (const auto& node : *launches) {
            const toml::table& t = *node.as_table();
            only(t,
                 {"let", "each", "kernel", "grid", "block", "shared", "cluster", "tags", "words",
                  "log"},
                 "[[launch]]");
            DataLaunch l;
            l.line = line_of(node);
            if (auto n = t.get("let")) l.let = bindings(*n, "[[launch]] let");
            if (auto n = t.get("each")) {
                const toml::table* e = n->as_table();
                if (!e || e->size() != 1)
                    fail(n, "[[launch]] each is one name and its values: each = { n = [1, 1000, "
                            "4099] }");
                // toml++'s iterator owns the pair it hands out: keep it alive while using it.
                const auto first = e->begin();
                const toml::node& v = first->second;
                l.each_name = std::string(first->first.str());
                const toml::array* values = v.as_array();
                if (!values || values->empty())
                    fail(&v, "[[launch]] each." + l.each_name + " must be a non-empty array");
                for (const auto& x : *values)
                    l.each_values.push_back(expr(x, "[[launch]] each." + l.each_name));
            }
            if (auto n = t.get("kernel")) l.kernel = text(*n, "[[launch]] kernel", false);
            if (auto n = t.get("grid")) l.grid = dims(*n, "[[launch]] grid");
            if (auto n = t.get("block")) l.block = dims(*n, "[[launch]] block");
            if (auto n = t.get("shared")) l.shared = expr(*n, "[[launch]] shared");
            if (auto n = t.get("cluster")) l.cluster = dims(*n, "[[launch]] cluster");
            if (auto n = t.get("tags")) l.tags = strings(*n, "[[launch]] tags");
            if (auto n = t.get("words")) l.words = templates(*n, "[[launch]] words");
            if (auto n = t.get("log")) l.log = text(*n, "[[launch]] log", true);
            L->launches.push_back(std::move(l));
        }
        if (L->kernel.empty())
            for (const auto& l : L->launches)
                if (l.kernel.empty())
                    fail(
                        nullptr,
                        "no kernel: name it at the top (kernel = \"name\") or in every [[launch]]");

        std::set<std::string> tags = {"all"};
        for (const auto& l : L->launches) tags.insert(l.tags.begin(), l.tags.end());
        auto check_tag = [&](const toml::node* n, const std::string& tag, const std::string& what) {
            if (!tags.count(tag)) fail(n, what + ": no [[launch]] has the tag '" + tag + "'");
        };

        const toml::array* compares = tables(top, "compare");
        if (!compares)
            fail(nullptr, "a kernel lesson needs at least one [[compare]]: a buffer checked "
                          "against the solution's");
        for (const auto& node : *compares) {
            const toml::table& t = *node.as_table();
            only(t,
                 {"buffer", "name", "where", "atol", "rtol", "ulps", "launches", "shared_unwritten",
                  "advice"},
                 "[[compare]]");
            DataCompare c;
            c.line = line_of(node);
            if (!t.get("buffer"))
                fail(&node, "[[compare]] needs a buffer (the name of a buffer [[arg]])");
            c.buffer = text(*t.get("buffer"), "[[compare]] buffer", false);
            if (!buffers.count(c.buffer))
                fail(t.get("buffer"),
                     "[[compare]] buffer '" + c.buffer + "' is not a buffer [[arg]]");
            if (!t.get("name"))
                fail(&node, "[[compare]] needs a name (the check's name, a template)");
            c.name = text(*t.get("name"), "[[compare]] name", true);
            if (auto n = t.get("where")) c.where = text(*n, "[[compare]] where", true);
            if (auto n = t.get("atol")) c.tolerance.atol = number(*n, "[[compare]] atol");
            if (auto n = t.get("rtol")) c.tolerance.rtol = number(*n, "[[compare]] rtol");
            if (auto n = t.get("ulps")) c.tolerance.ulps = number(*n, "[[compare]] ulps");
            if (auto n = t.get("launches")) {
                c.launches = text(*n, "[[compare]] launches", false);
                check_tag(n, c.launches, "[[compare]] launches");
            }
            if (auto n = t.get("shared_unwritten"))
                c.shared_unwritten_advice = text(*n, "[[compare]] shared_unwritten", false);
            if (auto n = t.get("advice")) c.advice = text(*n, "[[compare]] advice", true);
            L->compares.push_back(std::move(c));
        }

        static const std::set<std::string> metric_keys = {
            "name",    "kind",     "direction", "value", "per",          "needed",
            "allowed", "at_most",  "at_least",  "sums",  "message",      "over",
            "advice",  "launches", "aggregate", "focus", "wrong_result", "wrong_advice"};
        if (const toml::array* metrics = tables(top, "metric"))
            for (const auto& node : *metrics) {
                const toml::table& t = *node.as_table();
                only(t, metric_keys, "[[metric]]");
                DataMetric m;
                m.line = line_of(node);
                if (!t.get("name")) fail(&node, "[[metric]] needs a name");
                m.name = text(*t.get("name"), "[[metric]] name", false);
                const std::string what = "[[metric]] '" + m.name + "'";
                if (auto n = t.get("kind")) m.kind = text(*n, what + " kind", false);
                if (m.kind != "ratio" && m.kind != "sectors")
                    fail(t.get("kind"), what + ": kind is \"ratio\" or \"sectors\"");
                if (!t.get("advice"))
                    fail(&node, what + " needs advice: what to try when it fails");
                m.advice = text(*t.get("advice"), what + " advice", false);
                if (auto n = t.get("launches")) {
                    m.launches = text(*n, what + " launches", false);
                    check_tag(n, m.launches, what + " launches");
                }
                if (auto n = t.get("focus")) m.focus = text(*n, what + " focus", false);
                if (auto n = t.get("aggregate")) m.aggregate = text(*n, what + " aggregate", false);
                if (m.aggregate != "sum" && m.aggregate != "worst")
                    fail(t.get("aggregate"), what + ": aggregate is \"sum\" or \"worst\"");
                if (m.focus != "last" && m.focus != "worst")
                    fail(t.get("focus"), what + ": focus is \"last\" or \"worst\"");
                if (auto n = t.get("wrong_result"))
                    m.wrong_result = text(*n, what + " wrong_result", false);
                if (auto n = t.get("wrong_advice"))
                    m.wrong_advice = text(*n, what + " wrong_advice", false);
                if (m.kind == "sectors") {
                    for (const char* k : {"value", "per", "allowed", "at_most", "at_least", "sums",
                                          "message", "aggregate"})
                        if (t.get(k))
                            fail(t.get(k), what + ": '" + k +
                                               "' is for kind = \"ratio\" (sectors bound moved / "
                                               "needed by 1.10)");
                    if (!t.get("direction"))
                        fail(&node, what + " needs direction = \"loads\" or \"stores\"");
                    m.direction = text(*t.get("direction"), what + " direction", false);
                    if (m.direction != "loads" && m.direction != "stores")
                        fail(t.get("direction"), what + ": direction is \"loads\" or \"stores\"");
                    if (!t.get("needed"))
                        fail(&node, what + " needs needed: the sectors a coalesced kernel moves "
                                           "per launch, e.g. \"2 * coalesced(1, n, 32)\"");
                    m.needed = expr(*t.get("needed"), what + " needed");
                    if (auto n = t.get("over")) m.over = text(*n, what + " over", true);
                } else {
                    for (const char* k : {"direction", "needed", "over"})
                        if (t.get(k))
                            fail(t.get(k), what + ": '" + k + "' is for kind = \"sectors\"");
                    if (!t.get("value"))
                        fail(&node, what + " needs value: a figure (or an expression of figures) "
                                           "summed over its launches");
                    m.value = expr(*t.get("value"), what + " value");
                    if (auto n = t.get("per")) m.per = expr(*n, what + " per");
                    const int bounds = int(t.contains("allowed")) + int(t.contains("at_most")) +
                                       int(t.contains("at_least"));
                    if (bounds != 1)
                        fail(&node,
                             what + " needs exactly one bound: allowed, at_most or at_least");
                    if (m.aggregate == "worst" && t.contains("allowed"))
                        fail(t.get("allowed"),
                             what + ": aggregate = \"worst\" takes at_most or at_least");
                    if (auto n = t.get("allowed")) m.allowed = expr(*n, what + " allowed");
                    if (auto n = t.get("at_most")) m.at_most = expr(*n, what + " at_most");
                    if (auto n = t.get("at_least")) m.at_least = expr(*n, what + " at_least");
                    if (auto n = t.get("sums")) {
                        const toml::table* st = n->as_table();
                        if (!st) fail(n, what + " sums must be a table of name = expression");
                        for (const auto& [k, v] : *st)
                            m.sums[std::string(k.str())] =
                                expr(v, what + " sums." + std::string(k.str()));
                    }
                    if (auto n = t.get("message")) m.message = text(*n, what + " message", true);
                    for (const std::string* e : {&m.at_most, &m.at_least})
                        if (e->find("reference") != std::string::npos) L->uses_reference = true;
                }
                L->metrics.push_back(std::move(m));
            }

        if (const toml::array* timed = tables(top, "timed"))
            for (const auto& node : *timed) {
                const toml::table& t = *node.as_table();
                only(t,
                     {"name", "kind", "let", "kernel", "grid", "block", "amount", "at_least",
                      "launches", "advice"},
                     "[[timed]]");
                DataTimed d;
                d.line = line_of(node);
                if (!t.get("name")) fail(&node, "[[timed]] needs a name");
                d.name = text(*t.get("name"), "[[timed]] name", false);
                const std::string what = "[[timed]] '" + d.name + "'";
                if (auto n = t.get("kind")) d.kind = text(*n, what + " kind", false);
                if (d.kind != "bandwidth" && d.kind != "flops")
                    fail(t.get("kind"), what + ": kind is \"bandwidth\" or \"flops\"");
                if (auto n = t.get("let")) d.let = bindings(*n, what + " let");
                if (auto n = t.get("kernel")) d.kernel = text(*n, what + " kernel", false);
                d.grid = t.get("grid") ? dims(*t.get("grid"), what + " grid") : L->grid;
                d.block = t.get("block") ? dims(*t.get("block"), what + " block") : L->block;
                if (!t.get("amount"))
                    fail(&node,
                         what + " needs amount: the bytes moved (bandwidth) or FLOPs (flops)");
                d.amount = expr(*t.get("amount"), what + " amount");
                if (auto n = t.get("at_least")) d.at_least = number(*n, what + " at_least");
                if (auto n = t.get("launches")) {
                    d.launches = text(*n, what + " launches", false);
                    check_tag(n, d.launches, what + " launches");
                }
                if (!t.get("advice")) fail(&node, what + " needs advice");
                d.advice = text(*t.get("advice"), what + " advice", false);
                L->timed.push_back(std::move(d));
            }
    }

  private:
    std::string path_;
};

}  // namespace

Status load_data_lesson(const std::string& path, DataLesson* lesson) {
    *lesson = DataLesson{};
    lesson->path = path;
    toml::table top;
    try {
        top = toml::parse_file(path);
    } catch (const toml::parse_error& e) {
        return Status::error(StatusCode::io_error, path + ":" +
                                                       std::to_string(e.source().begin.line) +
                                                       ": " + std::string(e.description()));
    }
    try {
        Loader(path).load(top, lesson);
    } catch (const LoadError& e) {
        return Status::error(StatusCode::io_error, e.what());
    }
    return Status::success();
}

// [SECTION] Running a data lesson

namespace {

struct RunError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::size_t element_bytes(ElementType e) {
    switch (e) {
    case ElementType::f32:
    case ElementType::i32:
    case ElementType::u32: return 4;
    case ElementType::f64:
    case ElementType::i64:
    case ElementType::u64: return 8;
    case ElementType::u8: return 1;
    }
    return 4;
}

// Calls f with a value of the element type (for its type only).
template <class F> auto with_type(ElementType e, F f) {
    switch (e) {
    case ElementType::f32: return f(float{});
    case ElementType::f64: return f(double{});
    case ElementType::i32: return f(int{});
    case ElementType::u32: return f((unsigned){});
    case ElementType::u8: return f((unsigned char){});
    case ElementType::i64: return f((long long){});
    case ElementType::u64: return f((unsigned long long){});
    }
    return f(float{});
}

template <class T> T cast_to(double v) {
    if constexpr (std::is_floating_point_v<T>) return T(v);
    else {
        if (std::isnan(v)) return T(0);
        return T((long long)v);
    }
}

// One launch being run: its variables (sizes, grid, block, words) and its buffers.
struct Instance {
    ExprContext context;
    const DataLaunch* launch = nullptr;
    std::string kernel;
    LaunchConfig config;
    int index = -1;  // into Session::launches()
    bool correct = true;
    std::optional<analysis::KernelFigures> oracle_figures;
    bool in(const std::string& tag) const {
        return tag == "all" ||
               std::find(launch->tags.begin(), launch->tags.end(), tag) != launch->tags.end();
    }
};

class Runner {
  public:
    Runner(const DataLesson& L, Session& s, Oracle& o) : L_(L), s_(s), o_(o) {}

    void run() {
        ExprContext base;
        base.rng = &s_.rng();
        for (const auto& b : L_.let) base.vars[b.name] = ev(b.expr, base, b.line);
        std::vector<Instance> done;
        for (const auto& launch : L_.launches) {
            const std::size_t count = launch.each_values.empty() ? 1 : launch.each_values.size();
            for (std::size_t k = 0; k < count; ++k) {
                Instance in;
                in.context = base;
                in.launch = &launch;
                if (!launch.each_values.empty())
                    in.context.vars[launch.each_name] =
                        ev(launch.each_values[k], in.context, launch.line);
                if (!run_launch(in)) return;
                done.push_back(std::move(in));
            }
        }
        for (const auto& m : L_.metrics) metric(m, done);
        for (const auto& t : L_.timed) timed(t, done);
    }

  private:
    Value ev(const std::string& e, ExprContext& c, int line) {
        try {
            return evaluate(e, c);
        } catch (const ExprError& x) {
            throw RunError(L_.path + ":" + std::to_string(line) + ": " + x.what());
        }
    }
    std::string ex(const std::string& t, ExprContext& c, int line) {
        try {
            return expand(t, c);
        } catch (const ExprError& x) {
            throw RunError(L_.path + ":" + std::to_string(line) + ": " + x.what());
        }
    }
    Dim3 dim(const std::array<std::string, 3>& d, ExprContext& c, int line, const char* what) {
        std::uint32_t v[3];
        for (int i = 0; i < 3; ++i) {
            const long long x = ev(d[std::size_t(i)], c, line).as_int();
            if (x < 1 || x > 0x7fffffff)
                throw RunError(L_.path + ":" + std::to_string(line) + ": " + what + " dimension " +
                               "xyz"[i] + " is " + std::to_string(x) + " (it must be at least 1)");
            v[i] = std::uint32_t(x);
        }
        return Dim3{v[0], v[1], v[2]};
    }

    // The host data of a buffer argument, as bytes.
    std::vector<unsigned char> generate(const DataArg& a, std::size_t count, ExprContext& c) {
        return with_type(a.element, [&](auto zero) {
            using T = decltype(zero);
            std::vector<T> v(count);
            if (a.fill == "unwritten") std::memset(v.data(), 0xFF, count * sizeof(T));
            else if (a.fill == "value")
                std::fill(v.begin(), v.end(), cast_to<T>(ev(a.value, c, a.line).as_double()));
            else if (a.fill == "uniform") {
                // As Session::random_floats / random_ints draw them.
                if constexpr (std::is_floating_point_v<T>) {
                    std::uniform_real_distribution<T> d(T(ev(a.lo, c, a.line).as_double()),
                                                        T(ev(a.hi, c, a.line).as_double()));
                    for (auto& x : v) x = d(s_.rng());
                } else if constexpr (sizeof(T) == 8) {
                    std::uniform_int_distribution<long long> d(ev(a.lo, c, a.line).as_int(),
                                                               ev(a.hi, c, a.line).as_int());
                    for (auto& x : v) x = T(d(s_.rng()));
                } else if constexpr (std::is_same_v<T, unsigned>) {
                    std::uniform_int_distribution<unsigned> d(
                        unsigned(ev(a.lo, c, a.line).as_int()),
                        unsigned(ev(a.hi, c, a.line).as_int()));
                    for (auto& x : v) x = d(s_.rng());
                } else {
                    std::uniform_int_distribution<int> d(int(ev(a.lo, c, a.line).as_int()),
                                                         int(ev(a.hi, c, a.line).as_int()));
                    for (auto& x : v) x = T(d(s_.rng()));
                }
            } else if (a.fill == "normal") {
                std::normal_distribution<double> d(ev(a.mean, c, a.line).as_double(),
                                                   ev(a.stddev, c, a.line).as_double());
                for (auto& x : v)
                    x = std::is_floating_point_v<T> ? T(d(s_.rng()))
                                                    : cast_to<T>(std::round(d(s_.rng())));
            } else if (a.fill == "expr") {
                // Parsed once: evaluated per element (lesson 10 draws 100000-pixel images this
                // way).
                Value& i = c.vars["i"];
                try {
                    const Expression value(a.value);
                    for (std::size_t k = 0; k < count; ++k) {
                        i.number = double(k);
                        v[k] = cast_to<T>(value(c).as_double());
                    }
                } catch (const ExprError& x) {
                    throw RunError(L_.path + ":" + std::to_string(a.line) + ": " + x.what());
                }
                c.vars.erase("i");
            }
            // "zero": as constructed.
            c.vars["count"] = Value::integer((long long)count);
            for (const auto& e : a.edges) {
                const long long from = ev(e.from, c, a.line).as_int(),
                                to = ev(e.to, c, a.line).as_int();
                if (from < 0 || to > (long long)count || from > to)
                    throw RunError(L_.path + ":" + std::to_string(a.line) + ": [[arg]] '" + a.name +
                                   "': edge [" + std::to_string(from) + ", " + std::to_string(to) +
                                   ") is outside its " + std::to_string(count) + " elements");
                for (long long k = from; k < to; ++k) {
                    c.vars["i"] = Value::integer(k);
                    v[std::size_t(k)] = cast_to<T>(ev(e.value, c, a.line).as_double());
                }
                c.vars.erase("i");
            }
            c.vars.erase("count");
            std::vector<unsigned char> bytes(count * sizeof(T));
            if (count) std::memcpy(bytes.data(), v.data(), bytes.size());
            return bytes;
        });
    }

    KernelArg scalar(const DataArg& a, const Value& v) {
        return with_type(a.element, [&](auto zero) {
            return KernelArg::of(cast_to<decltype(zero)>(v.as_double()));
        });
    }

    // Allocates and fills one buffer on a runtime; 0 when it could not.
    static DevicePtr place(Runtime& r, const std::vector<unsigned char>& bytes) {
        DeviceBuffer<unsigned char> b;
        if (!r.allocate(std::max<std::size_t>(bytes.size(), 1), &b).ok()) return 0;
        if (!bytes.empty()) r.backend().copy_to_device(b.ptr, bytes.data(), bytes.size());
        return b.ptr;
    }

    // The launch's words (the lesson's, with the launch's own in their place): templates that may
    // use each other, so each is expanded when first needed.
    void words(const std::map<std::string, std::string>& lesson,
               const std::map<std::string, std::string>& launch, ExprContext& c, int line) {
        std::map<std::string, std::string> pending = lesson;
        for (const auto& [k, t] : launch) pending[k] = t;
        std::set<std::string> busy;
        std::function<void(const std::string&)> expand_word = [&](const std::string& k) {
            if (!busy.insert(k).second)
                throw RunError(L_.path + ":" + std::to_string(line) + ": the word '" + k +
                               "' uses itself");
            const std::string t = pending.at(k);
            const std::string text = ex(t, c, line);
            c.vars[k] = Value::string(text);
            pending.erase(k);
        };
        const auto saved = c.lookup;
        c.lookup = [&](const std::string& name, Value* v) {
            if (!pending.count(name)) return false;
            expand_word(name);
            *v = c.vars.at(name);
            return true;
        };
        try {
            while (!pending.empty()) expand_word(pending.begin()->first);
        } catch (...) {
            c.lookup = saved;
            throw;
        }
        c.lookup = saved;
    }

    bool run_launch(Instance& in) {
        const DataLaunch& l = *in.launch;
        ExprContext& c = in.context;
        for (const auto& b : l.let) c.vars[b.name] = ev(b.expr, c, b.line);
        const Dim3 grid = dim(l.grid[0].empty() ? L_.grid : l.grid, c, l.line, "grid");
        const Dim3 block = dim(l.block[0].empty() ? L_.block : l.block, c, l.line, "block");
        for (auto [name, d] : {std::pair{"grid", grid}, {"block", block}}) {
            c.vars[std::string(name) + ".x"] = Value::integer(d.x);
            c.vars[std::string(name) + ".y"] = Value::integer(d.y);
            c.vars[std::string(name) + ".z"] = Value::integer(d.z);
        }
        const long long shared = ev(l.shared.empty() ? L_.shared : l.shared, c, l.line).as_int();
        in.kernel = l.kernel.empty() ? L_.kernel : l.kernel;
        in.config = LaunchConfig{grid, block, std::uint32_t(std::max(0LL, shared))};
        if (!l.cluster[0].empty()) {  // thread block clusters: the emulator checks the shape
            in.config.cluster = dim(l.cluster, c, l.line, "cluster");
            in.config.explicit_cluster = true;
        }
        words(L_.words, l.words, c, l.line);

        // Inputs: generated once, in argument order, placed on both sides.
        std::vector<KernelArg> mine, theirs;
        std::vector<std::string> types;
        for (const auto& a : L_.args) {
            types.push_back(a.type);
            if (!a.buffer) {
                const Value v = ev(a.scalar, c, a.line);
                mine.push_back(scalar(a, v));
                theirs.push_back(mine.back());
                c.vars[a.name] = v;
                continue;
            }
            const long long count = ev(a.count, c, a.line).as_int();
            if (count < 0 || count > (1ll << 31))
                throw RunError(L_.path + ":" + std::to_string(a.line) + ": [[arg]] '" + a.name +
                               "' has " + std::to_string(count) + " elements");
            const std::vector<unsigned char> bytes = generate(a, std::size_t(count), c);
            const DevicePtr p = place(s_.runtime(), bytes), q = place(*o_.runtime, bytes);
            if (!p || !q)
                throw RunError("could not allocate " + std::to_string(bytes.size()) +
                               " bytes for '" + a.name + "'");
            buffers_[a.name] = {p, q, std::size_t(count)};
            mine.push_back(KernelArg::of(p));
            theirs.push_back(KernelArg::of(q));
            if (a.shaped) {
                const long long rows = ev(a.rows, c, a.line).as_int();
                c.vars["count"] = Value::integer(count);
                const long long cols = ev(a.cols, c, a.line).as_int();
                c.vars.erase("count");
                s_.shape(BufferShape{p, bytes.size(), std::uint32_t(rows), std::uint32_t(cols),
                                     std::uint32_t(element_bytes(a.element)), a.shape_kind,
                                     a.name});
            }
        }

        if (!s_.launch_packed(in.kernel, in.config, mine, types)) return false;
        in.index = s_.launch_index();
        if (const std::string& log = l.log.empty() ? L_.log : l.log; !log.empty())
            s_.log().push_back(ex(log, c, l.line));

        TraceOptions trace;
        trace.enabled = L_.uses_reference;
        trace.auto_detail_blocks = 0;
        trace.writers = false;
        LaunchResult ref = o_.runtime->backend().launch(in.kernel, in.config, theirs, trace);
        if (!ref.status.ok()) {
            CheckResult bug;
            bug.name = "the reference solution runs";
            bug.fault = true;
            bug.message =
                "the reference solution (the oracle of this data lesson) failed on launch " +
                std::to_string(in.index + 1) + ": " + ref.status.message;
            bug.advice = "This is the lesson's fault, not yours: tell the instructor (cudalab lint "
                         "shows it too).";
            s_.add_check(std::move(bug));
            return false;
        }
        if (ref.trace) in.oracle_figures = analysis::analyze(*ref.trace);

        for (const auto& cmp : L_.compares) {
            if (!in.in(cmp.launches)) continue;
            const Placed& b = buffers_.at(cmp.buffer);
            const std::string name = ex(cmp.name, c, cmp.line);
            const DataArg* arg = nullptr;
            for (const auto& a : L_.args)
                if (a.name == cmp.buffer) arg = &a;
            const bool ok = with_type(arg->element, [&](auto zero) {
                using T = decltype(zero);
                std::vector<T> expected(b.count);
                o_.runtime->backend().copy_to_host(expected.data(), b.oracle, b.count * sizeof(T));
                std::function<std::string(std::size_t)> where;
                if (!cmp.where.empty()) {
                    where = [this, &cmp, c](std::size_t i) mutable {
                        c.vars["i"] = Value::integer((long long)i);
                        try {
                            return expand(cmp.where, c);
                        } catch (const ExprError& x) {
                            return std::string("? (") + x.what() + ")";
                        }
                    };
                } else {
                    const std::string buffer = cmp.buffer;
                    where = [buffer](std::size_t i) {
                        return buffer + "[" + std::to_string(i) + "]";
                    };
                }
                return s_.check_close(name, DeviceBuffer<T>{b.mine, b.count}, expected,
                                      cmp.tolerance, where);
            });
            bool initialised = true;
            if (!cmp.shared_unwritten_advice.empty())
                initialised = s_.check_shared_initialised(name, cmp.shared_unwritten_advice);
            if (!cmp.advice.empty() && !(ok && initialised))
                s_.advise(name, ex(cmp.advice, c, cmp.line));
            in.correct = in.correct && ok && initialised;
        }
        return true;
    }

    // Per-launch figures by name, for metric expressions.
    static bool figure(const analysis::KernelFigures& k, const LaunchSummary& summary,
                       const std::string& name, Value* out) {
        const analysis::Figures& f = k.total;
        static const std::map<std::string, std::uint64_t (*)(const analysis::Figures&)> figures = {
            {"warp_instructions", [](const analysis::Figures& f) { return f.warp_instructions; }},
            {"lanes_executed", [](const analysis::Figures& f) { return f.thread_instructions; }},
            {"active_lanes", [](const analysis::Figures& f) { return f.active_lanes; }},
            {"read_requests", [](const analysis::Figures& f) { return f.read_requests(); }},
            {"read_sectors", [](const analysis::Figures& f) { return f.read_sectors(); }},
            {"read_bytes", [](const analysis::Figures& f) { return f.read_bytes(); }},
            {"write_requests", [](const analysis::Figures& f) { return f.write_requests(); }},
            {"write_sectors", [](const analysis::Figures& f) { return f.write_sectors(); }},
            {"write_bytes", [](const analysis::Figures& f) { return f.write_bytes(); }},
            {"global_atomics", [](const analysis::Figures& f) { return f.global_atomics; }},
            {"global_atomic_requests",
             [](const analysis::Figures& f) { return f.global_atomic_requests; }},
            {"shared_requests", [](const analysis::Figures& f) { return f.shared_requests; }},
            {"shared_wavefronts", [](const analysis::Figures& f) { return f.shared_wavefronts; }},
            {"shared_ideal_wavefronts",
             [](const analysis::Figures& f) { return f.shared_ideal_wavefronts; }},
            {"bank_conflicts", [](const analysis::Figures& f) { return f.bank_conflicts(); }},
            {"shared_atomics", [](const analysis::Figures& f) { return f.shared_atomics; }},
            {"branches", [](const analysis::Figures& f) { return f.branches; }},
            {"divergent_branches", [](const analysis::Figures& f) { return f.divergent_branches; }},
            {"barriers", [](const analysis::Figures& f) { return f.barriers_executed; }},
        };
        if (name == "thread_instructions") {
            *out = Value::integer((long long)summary.thread_instructions);
            return true;
        }
        if (name == "block_barriers") {
            *out = Value::integer((long long)k.block_barriers);
            return true;
        }
        // The source line whose branches split warps most often, and how often (0: none did).
        if (name == "divergent_line" || name == "divergent_at_line") {
            const analysis::LineFigures* worst = nullptr;
            for (const auto& l : k.lines)
                if (!worst || l.figures.divergent_branches > worst->figures.divergent_branches)
                    worst = &l;
            const bool any = worst && worst->figures.divergent_branches > 0;
            *out = Value::integer(!any ? 0
                                  : name == "divergent_line"
                                      ? (long long)worst->line
                                      : (long long)worst->figures.divergent_branches);
            return true;
        }
        auto it = figures.find(name);
        if (it == figures.end()) return false;
        *out = Value::integer((long long)it->second(f));
        return true;
    }

    struct Totals {
        double value = 0, per = 0, allowed = 0, needed = 0, moved = 0;
        std::map<std::string, double> sums;
        // aggregate = "worst": the launch with the largest value / per, and its own figures.
        double worst_ratio = -INFINITY, worst_value = 0, worst_per = 0;
        std::map<std::string, double> worst_sums;
        std::map<std::string, Value> worst_vars;  // the worst launch's names and words
        int worst_launch = -1;
        Session::WorstLaunch worst;
        int last = -1, launches = 0;
        bool correct = true;
    };

    // Sums a metric over its launches, from the learner's figures or the solution's.
    Totals sum(const DataMetric& m, std::vector<Instance>& done, bool oracle) {
        Totals t;
        for (auto& in : done) {
            if (!in.in(m.launches)) continue;
            const analysis::KernelFigures* f =
                oracle ? (in.oracle_figures ? &*in.oracle_figures : nullptr)
                       : s_.kernel_figures(in.index);
            if (!f) throw RunError("untraced");
            const LaunchSummary summary =
                oracle ? LaunchSummary{} : s_.launches()[std::size_t(in.index)];
            ExprContext c = in.context;
            c.rng = nullptr;
            c.lookup = [&](const std::string& name, Value* v) {
                return figure(*f, summary, name, v);
            };
            ++t.launches;
            t.last = in.index;
            t.correct = t.correct && in.correct;
            if (m.kind == "sectors") {
                const double moved = double(m.direction == "loads" ? f->total.read_sectors()
                                                                   : f->total.write_sectors());
                const double needed = ev(m.needed, c, m.line).as_double();
                t.moved += moved;
                t.needed += needed;
                t.worst.see(in.index, moved - needed);
                continue;
            }
            const double value = ev(m.value, c, m.line).as_double();
            const double per = m.per.empty() ? 1 : ev(m.per, c, m.line).as_double();
            t.value += value;
            t.per += per;
            double excess = value / (per ? per : 1);
            if (!m.allowed.empty()) {
                const double allowed = ev(m.allowed, c, m.line).as_double();
                t.allowed += allowed;
                excess = value - allowed;
            }
            std::map<std::string, double> mine;
            for (const auto& [k, e] : m.sums) {
                mine[k] = ev(e, c, m.line).as_double();
                t.sums[k] += mine[k];
            }
            t.worst.see(in.index, excess);
            const double ratio = value / (per ? per : 1);
            if (ratio > t.worst_ratio) {
                t.worst_ratio = ratio;
                t.worst_value = value;
                t.worst_per = per;
                t.worst_sums = mine;
                t.worst_vars = in.context.vars;
                t.worst_launch = in.index;
            }
        }
        return t;
    }

    void metric(const DataMetric& m, std::vector<Instance>& done) {
        Totals t;
        try {
            t = sum(m, done, false);
        } catch (const RunError& e) {
            if (std::string(e.what()) != "untraced") throw;
            s_.log().push_back(m.name + ": not measured (the " + s_.runtime().backend().name() +
                               " backend records no trace)");
            return;
        }
        if (t.launches == 0) return;
        const bool worst = m.aggregate == "worst";
        // The launch the app opens on: the last one, or the worst (for aggregate = "worst", the one
        // whose figure is the check's value).
        s_.measure(m.focus == "last" ? t.last : worst ? t.worst_launch : t.worst.launch);
        const Session::MeasuredOn on{t.correct, m.wrong_result, m.wrong_advice};
        if (m.kind == "sectors") {
            ExprContext c;
            c.vars["launches"] = Value::integer(t.launches);
            s_.check_sectors_moved(m.name, std::uint64_t(t.moved), std::uint64_t(t.needed),
                                   ex(m.over, c, m.line), m.advice, on);
            return;
        }
        ExprContext c;
        if (worst) c.vars = t.worst_vars;
        c.vars["launches"] = Value::integer(t.launches);
        c.vars["total"] = Value::of(worst ? t.worst_value : t.value);
        c.vars["per"] = Value::of(worst ? t.worst_per : t.per);
        const double value = worst           ? t.worst_ratio
                             : m.per.empty() ? t.value
                                             : (t.per ? t.value / t.per : 0);
        c.vars["value"] = Value::of(value);
        c.vars["value"].is_int = m.per.empty() && c.vars["value"].is_int;
        for (const auto& [k, v] : worst ? t.worst_sums : t.sums) c.vars[k] = Value::of(v);
        if (worst) c.vars["launch"] = Value::integer(t.worst_launch + 1);
        if (L_.uses_reference) {
            try {
                const Totals r = sum(m, done, true);
                c.vars["reference"] = Value::of(worst           ? r.worst_ratio
                                                : m.per.empty() ? r.value
                                                                : (r.per ? r.value / r.per : 0));
            } catch (const RunError& e) {
                if (std::string(e.what()) != "untraced") throw;
            }
        }
        double bound = 0;
        if (!m.allowed.empty()) bound = m.per.empty() ? t.allowed : (t.per ? t.allowed / t.per : 0);
        else bound = ev(m.at_most.empty() ? m.at_least : m.at_most, c, m.line).as_double();
        c.vars["bound"] = Value::of(bound);
        std::string message = m.message.empty() ? "" : ex(m.message, c, m.line);
        if (message.empty()) {
            std::ostringstream o;
            o << Value::of(value).str() << " over " << t.launches
              << (t.launches == 1 ? " launch" : " launches");
            message = o.str();
        }
        if (!m.at_least.empty()) s_.check_at_least(m.name, value, bound, message, m.advice, on);
        else s_.check_at_most(m.name, value, bound, message, m.advice, on);
    }

    void timed(const DataTimed& d, std::vector<Instance>& done) {
        if (!s_.has_timing()) {
            s_.log().push_back(d.name +
                               ": not measured (timed checks need --backend gpu and a GPU)");
            return;
        }
        for (const auto& in : done)
            if (in.in(d.launches) && !in.correct) {
                s_.log().push_back(d.name +
                                   ": not measured until the launches it needs are correct");
                return;
            }
        auto peak = s_.device_peak();
        if (!peak) return;
        ExprContext c;
        c.rng = &s_.rng();
        for (const auto& b : L_.let) c.vars[b.name] = ev(b.expr, c, b.line);
        c.vars["sm_count"] = Value::integer(peak->sm_count);
        for (const auto& b : d.let) c.vars[b.name] = ev(b.expr, c, b.line);
        const LaunchConfig config{dim(d.grid, c, d.line, "grid"), dim(d.block, c, d.line, "block"),
                                  0};
        for (auto [name, v] : {std::pair{"grid", config.grid}, {"block", config.block}}) {
            c.vars[std::string(name) + ".x"] = Value::integer(v.x);
            c.vars[std::string(name) + ".y"] = Value::integer(v.y);
            c.vars[std::string(name) + ".z"] = Value::integer(v.z);
        }
        std::vector<KernelArg> args;
        for (const auto& a : L_.args) {
            if (!a.buffer) {
                const Value v = ev(a.scalar, c, a.line);
                args.push_back(scalar(a, v));
                c.vars[a.name] = v;
                continue;
            }
            // Timed buffers are only allocated: their values do not change the time.
            const long long count = ev(a.count, c, a.line).as_int();
            DeviceBuffer<unsigned char> b = s_.alloc<unsigned char>(
                std::size_t(std::max(1LL, count)) * element_bytes(a.element));
            if (!b.ptr) return;
            args.push_back(KernelArg::of(b.ptr));
        }
        auto t = s_.time_packed(d.kernel.empty() ? L_.kernel : d.kernel, config, args);
        if (!t) return;
        const double amount = ev(d.amount, c, d.line).as_double();
        if (d.kind == "bandwidth") s_.check_bandwidth(d.name, amount, *t, d.at_least, d.advice);
        else s_.check_flops(d.name, amount, *t, d.at_least, d.advice);
    }

    struct Placed {
        DevicePtr mine = 0, oracle = 0;
        std::size_t count = 0;
    };
    const DataLesson& L_;
    Session& s_;
    Oracle& o_;
    std::map<std::string, Placed> buffers_;
};

}  // namespace

void run_data_lesson(const DataLesson& lesson, Session& session, Oracle& oracle) {
    try {
        Runner(lesson, session, oracle).run();
    } catch (const RunError& e) {
        CheckResult bug;
        bug.name = "lesson.toml runs";
        bug.fault = true;
        bug.message = e.what();
        bug.advice = "This is the lesson's fault, not yours: tell the instructor (cudalab lint "
                     "shows it too).";
        session.add_check(std::move(bug));
    } catch (const ExprError& e) {
        CheckResult bug;
        bug.name = "lesson.toml runs";
        bug.fault = true;
        bug.message = lesson.path + ": " + e.what();
        bug.advice = "This is the lesson's fault, not yours: tell the instructor (cudalab lint "
                     "shows it too).";
        session.add_check(std::move(bug));
    }
}

}  // namespace cudalab::lessons
