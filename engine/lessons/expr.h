// Expressions and text templates of data lessons (lessons/ID/lesson.toml): sizes, grids, fills,
// bounds and check names are written as small expressions over named values, e.g.
// "ceil_div(n, 256)", "2 * coalesced(1, n, 32)", "i >= n ? ' (past n)' : ''". A template is text
// with expressions in braces: "c = a + b, n = {n}, {grid.x} blocks of {block.x}".
//
// Grammar (C-like precedence, lowest first): a ? b : c, ||, &&, == != < <= > >=, | &, + -, * / %,
// unary - !, then numbers, 'strings' (or "strings"), names (letters, digits, _ and .) and calls.
// Numbers are integers until an operand is fractional; / and % of two integers are the integer
// ones. + with a string operand concatenates. Functions: min, max, abs, ceil_div, floor, ceil,
// round (halves away from zero), clamp(x, lo, hi), sin, cos, sqrt, exp, log, fixed(x, digits)
// (text with that many decimals), coalesced(rows, width, segment[, element bytes]) (lesson.h's
// coalesced_sectors), random_int(lo, hi), random_float(lo, hi), random_double(lo, hi) (drawn from
// the lesson's seeded generator, in evaluation order). Names nan and inf are the float values.
//
// Errors (an unknown name, a syntax error, a division by zero) throw ExprError with what went
// wrong and where in the expression; the lesson loader adds the file and line.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>

namespace cudalab::lessons {

struct ExprError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Value {
    bool is_string = false;
    bool is_int = true;
    double number = 0;
    std::string text;

    static Value of(double d);
    static Value integer(long long i);
    static Value string(std::string s);
    long long as_int() const;  // throws on a string or a fraction
    double as_double() const;  // throws on a string
    bool truthy() const;
    std::string str() const;  // integers without a decimal point, others with up to 9 digits
};

struct ExprContext {
    std::map<std::string, Value> vars;
    std::mt19937_64* rng = nullptr;  // null: random_* is an error (e.g. in a bound)
    // Names not in vars, asked for by name (the figures of a launch); null or nullopt: unknown.
    std::function<bool(const std::string&, Value*)> lookup;
};

// Evaluates `expr` (parsed once and cached by its text).
Value evaluate(const std::string& expr, ExprContext& context);

// An expression parsed once, for evaluating many times (a fill, once per element).
struct ExprNode;
class Expression {
  public:
    explicit Expression(const std::string& text);  // throws ExprError
    Value operator()(ExprContext& context) const;

  private:
    std::shared_ptr<const ExprNode> root_;
    std::string text_;
};
// Only parses (for the loader: a syntax error is found before the lesson runs).
void parse_expression(const std::string& expr);
// Expands "{expr}" in `text`; "{{" and "}}" are literal braces.
std::string expand(const std::string& text, ExprContext& context);
// Only parses the expressions of a template.
void parse_template(const std::string& text);

}  // namespace cudalab::lessons
